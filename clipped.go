package sessiondb

import (
	"context"
	"unicode/utf8"
)

// ClippedEntry is a log entry read with its body cut to a prefix
// (EntryClipper): what a page or an answer that shows a bounded part of
// each body needs, without holding the bodies whole.
type ClippedEntry struct {
	Entry
	// Size is the length in bytes of the stored body.
	Size int
	// Clipped reports that Body holds only a prefix of the stored body
	// (cut on a rune boundary): it is then not valid JSON.
	Clipped bool
}

// EntryClipper is implemented by stores that read log entries with each
// body cut to at most max bytes, bringing no more than that prefix (and,
// in a redacted view, a margin read for the secret scan) of a large body
// into memory: memory is bounded by the page, not by the bodies.
// sqlstore and pgstore implement it, and so do their Redacted views,
// where a secret the cut splits is masked up to the cut.
type EntryClipper interface {
	EntriesClipped(ctx context.Context, id string, from, to int64, max int) ([]ClippedEntry, error)
}

// EntriesClipped reads the log entries from..to of session id (to 0: the
// end) with each body cut to at most max bytes: through st's
// EntryClipper when it is one, else through Entries, cutting each body
// after it was read whole.
func EntriesClipped(ctx context.Context, st Store, id string, from, to int64, max int) ([]ClippedEntry, error) {
	if c, ok := st.(EntryClipper); ok {
		return c.EntriesClipped(ctx, id, from, to, max)
	}
	es, err := st.Entries(ctx, id, from, to)
	if err != nil {
		return nil, err
	}
	out := make([]ClippedEntry, len(es))
	for i, e := range es {
		out[i] = ClippedEntry{Entry: e, Size: len(e.Body)}
		if len(e.Body) > max {
			out[i].Body, out[i].Clipped = ClipBody(e.Body, max), true
		}
	}
	return out, nil
}

// ClipBody returns the first max bytes of body, less a rune the cut
// splits.
func ClipBody(body []byte, max int) []byte {
	if len(body) <= max {
		return body
	}
	b := body[:max:max]
	for n := 0; n < utf8.UTFMax && len(b) > 0; n++ {
		r, size := utf8.DecodeLastRune(b)
		if r != utf8.RuneError || size != 1 {
			break
		}
		b = b[:len(b)-1]
	}
	return b
}
