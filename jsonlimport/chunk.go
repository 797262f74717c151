package jsonlimport

import (
	"bytes"
	"context"
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
