package jsonlimport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// One large file costs what a stream of its lines costs.
//
// A reader returns a unit's entries with their bodies, and the unit is
// written with one commit: a 500 MB transcript read at once held its
// bodies, their copies in the commit and the store's work on them, several
// times the file. A file of a format that reads no further than it is told
// and continues from its parse state (jsonl.Bounded: Claude Code) is
// therefore imported in chunks of about chunkSize bytes, each ending at a
// line end: the first chunk is imported as the whole file would be if it
// ended there, and each next one as the growth of the file to its end, by
// the same path as a file that grew (prefix hash continued, reader resumed
// from its offset). Each chunk is one transaction that records how far the
// file was imported, so an import interrupted between two chunks leaves the
// session as a shorter file would have, and the next import continues it;
// the session is visible, growing, while a large file is imported, as it is
// while its agent writes it. What a chunk holds in memory is bounded by
// chunkSize plus the longest line; what the reader keeps between chunks is
// its parse state without the bodies (for Claude Code, about 300 bytes per
// line). Notes about the end of the transcript (a tool call without a
// result yet) are those of the last chunk only: the others describe a
// transcript cut where the file was not.
//
// Import (no Follow) keeps the chunks' parse state in a Follow of its own,
// for the units it chunks only, dropped when it returns.

// chunkSize is the size of a chunk (a variable so that tests can make
// chunks of a small file).
var chunkSize int64 = 8 << 20

// chunked reports whether units of format f are imported in chunks.
func chunked(f Format) bool {
	b, ok := f.(jsonl.Bounded)
	return ok && b.ReadsUpToSize()
}

// chunkEnd returns where a parse of the file at path, size bytes long,
// that starts at offset stops: size when at most chunkSize bytes are left,
// else the end of the first line that ends at or after offset+chunkSize
// (size when no line ends after it). It reads only that line.
func chunkEnd(path string, offset, size int64) (int64, error) {
	at := offset + chunkSize
	if size-offset <= chunkSize {
		return size, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for at < size {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), size-at)], at-1)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return at + int64(i), nil
		}
		at += int64(n)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if n == 0 {
			break
		}
	}
	return size, nil
}

// nextChunks writes the chunks of w's file after the one w wrote, each
// prepared again from what the previous one recorded, and returns the
// last. The unit counts once in rep.Files and rep.Sessions.
func nextChunks(ctx context.Context, store sessiondb.Store, w *work, dryRun bool, rep *Report) (*work, error) {
	files, sessions := rep.Files, rep.Sessions
	defer func() { rep.Files, rep.Sessions = files, sessions }()
	for w.more && w.written {
		if err := ctx.Err(); err != nil {
			return w, fmt.Errorf("import: %w", err)
		}
		done := w.parsed.Offset
		w = prepare(ctx, store, w.p)
		if err := writeUnit(ctx, store, w, dryRun, rep); err != nil {
			return w, err
		}
		if w.parsed != nil && w.parsed.Offset <= done {
			break // no progress: what is left is reported by this chunk
		}
	}
	return w, nil
}

// replay rebuilds, in p.follow, the reader's state of the first offset
// bytes of p's file (entries entries, as imported before), reading them a
// chunk at a time and dropping the entries it returns, and points from at
// it. It reports whether the state was rebuilt as imported: false leaves
// from unchanged and the caller reads the file whole.
//
// After a restart a watcher has no parse state for a file it followed
// unless its Follow saved it (NewFollowIn; Claude Code's snapshot.go),
// and the first append to a 500 MB transcript read it whole, bodies and
// all (issue 42: 1.7–2.9 GB, 59 s).
// The replay costs one parse of the file, a chunk in memory at a time,
// and no database work; the append is then continued from the rebuilt
// state. The prefix hash was checked before: the bytes are those imported,
// so the reader numbers them as it did (the import state's entry count is
// checked too).
func replay(ctx context.Context, p planned, offset int64, entries int, from *Resume) bool {
	at, n := int64(0), 0
	var state json.RawMessage
	for at < offset {
		end, err := chunkEnd(p.unit.Path, at, offset)
		if err != nil {
			return false
		}
		r := Resume{Offset: at, Entries: n, State: state, Cache: p.follow.readerCache(), Size: end}
		if at == 0 {
			r.State = nil
		}
		pd, err := p.format.Parse(ctx, p.unit, r)
		if err != nil || pd == nil || pd.Offset <= at {
			return false
		}
		at, n, state = pd.Offset, n+len(pd.Entries), pd.ResumeState
	}
	if at != offset || n != entries {
		return false
	}
	from.Offset, from.Entries, from.State = at, n, state
	return true
}
