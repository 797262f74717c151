package engine

import (
	"context"
	"fmt"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/secrets"
)

// clipMargin is what a redacting EntriesClipped reads past the cut of
// an entry not scanned yet, so that the read-time scan sees a secret the
// cut splits whole. The detector's expressions read at most 4 KiB
// (secrets' window) on either side of a keyword, and the multiline
// private-key rule ends at the first END line after its BEGIN (a PEM RSA
// 4096 key is about 3.3 KB): 64 KiB holds every match that starts before
// the cut. A secret found across the cut is masked up to the cut, as a
// stored span that crosses it is.
const clipMargin = 64 << 10

// EntriesClipped implements sessiondb.EntryClipper: log entries from..to
// of session id (to 0: the end), each body cut to at most max bytes and
// read as a prefix (Dialect.BodyPrefix), with its full size
// (Dialect.BodySize). In a redacting read, an entry the scan has seen
// gets its stored spans clipped to the cut (a span crossing it masks to
// the end of the prefix); one it has not is read clipMargin bytes further,
// scanned (secrets.FindJSONPrefix when the body is longer still), and
// then cut, so that a secret the cut splits is masked, not half shown.
func (e *Engine) EntriesClipped(ctx context.Context, id string, from, to int64, max int) ([]sessiondb.ClippedEntry, error) {
	if err := sessiondb.ValidateID(id); err != nil {
		return nil, fmt.Errorf("entries of %s: %w", id, err)
	}
	if from < 0 || to < 0 || (to != 0 && to < from) {
		return nil, fmt.Errorf("entries of %s: %w: range %d..%d", id, sessiondb.ErrInvalid, from, to)
	}
	if max < 1 {
		return nil, fmt.Errorf("entries of %s: %w: body limit %d", id, sessiondb.ErrInvalid, max)
	}
	if to == 0 {
		to = 1<<63 - 1
	}
	redact := redactor(ctx) != nil
	read := max
	if redact {
		read = max + clipMargin
	}
	var out []sessiondb.ClippedEntry
	err := e.d.Read(ctx, func(tx Tx) error {
		out = nil
		if err := SessionExists(ctx, tx, id); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT seq, kind, role, `+e.sql.BodyPrefix+`, `+e.sql.BodySize+`, created_at
			FROM entries WHERE session_id = ? AND seq BETWEEN ? AND ? ORDER BY seq`, read, id, from, to)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r entryRow
			var size int
			if err := rows.Scan(&r.Seq, &r.Kind, &r.Role, &r.Body, &size, &r.CreatedAt); err != nil {
				return err
			}
			// PostgreSQL's prefix counts characters: cut it to bytes.
			r.Body = sessiondb.ClipBody(r.Body, read)
			out = append(out, sessiondb.ClippedEntry{Entry: r.entry(false), Size: size})
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		if redact {
			return e.redactClipped(ctx, tx, id, out, max)
		}
		for i := range out {
			if out[i].Size > max {
				out[i].Body, out[i].Clipped = sessiondb.ClipBody(out[i].Body, max), true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// redactClipped masks the secrets of es, read with up to clipMargin bytes
// past max, and cuts each body longer than max to max.
func (e *Engine) redactClipped(ctx context.Context, tx Tx, id string, es []sessiondb.ClippedEntry, max int) error {
	if len(es) == 0 {
		return nil
	}
	through, err := e.scannedThrough(ctx, tx, id)
	if err != nil {
		return err
	}
	lo, hi := es[0].Seq, es[len(es)-1].Seq
	spans := map[int64][]secrets.Span{}
	if through >= lo {
		if spans, err = storedSpans(ctx, tx, id, lo, min(hi, through)); err != nil {
			return err
		}
	}
	det := secrets.Default()
	for i := range es {
		c := &es[i]
		var sp []secrets.Span
		switch {
		case c.Seq <= through:
			sp = spans[c.Seq]
		case len(c.Body) == c.Size:
			sp = det.FindJSON(c.Body)
		default:
			sp = det.FindJSONPrefix(c.Body)
		}
		body := c.Body
		if c.Size > max {
			body = sessiondb.ClipBody(body, max)
			sp = clipSpans(sp, len(body))
			c.Clipped = true
		}
		c.Body = secrets.Redact(body, sp)
	}
	return nil
}

// clipSpans returns the spans that start before n, each ending by n: a
// secret the cut splits is masked up to the cut.
func clipSpans(spans []secrets.Span, n int) []secrets.Span {
	var out []secrets.Span
	for _, s := range spans {
		if s.Start >= n {
			continue
		}
		s.End = min(s.End, n)
		out = append(out, s)
	}
	return out
}
