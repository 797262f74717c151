package jsonlimport

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// lineReaderBuf is the bufio.Reader size used by scanLines. Lines longer than
// it are assembled in a separate buffer (up to MaxLineSize).
const lineReaderBuf = 64 << 10

// errStopScan can be returned by a scanLines callback to stop early; scanLines
// then returns nil.
var errStopScan = errors.New("stop scanning")

// scanLines reads r line by line with bounded memory and calls fn for every
// physical line, in order. It is the line reader shared by every format in
// this package.
//
//   - r must be positioned at byte offset from of the underlying file; from
//     is only added to the offsets reported (scanLines does not seek).
//   - line is the line's bytes WITHOUT the terminating '\n'. A '\r' before the
//     '\n' is kept (use trimCR when the format drops it). Empty lines are
//     reported too (line is then empty but non-nil). The slice is only valid
//     during the call: copy it (bytes.Clone) to keep it.
//   - lineNo is 1-based and counts the physical lines read by this call
//     (the line starting at from is 1). Callers resuming at an offset add their
//     own base.
//   - start is the offset of the line's first byte; end is the offset just
//     past the line, including its '\n' when complete.
//   - complete is false for a torn last line: bytes at EOF without a
//     trailing '\n'. Such a line is still reported (with its bytes) so that
//     the caller can decide; importers do not consume it (Parsed.Offset stays
//     at start).
//   - A line longer than MaxLineSize bytes (not counting '\n') is not
//     buffered: its bytes are skipped and fn receives line == nil (the only
//     case where line is nil), with start/end/complete set. Use
//     oversized(line) to test for it.
//
// If fn returns an error, scanning stops; scanLines returns nil for
// errStopScan and the error itself otherwise. Read errors are returned
// as they are.
func scanLines(r io.Reader, from int64, fn func(line []byte, lineNo int, start, end int64, complete bool) error) error {
	br := bufio.NewReaderSize(r, lineReaderBuf)
	var (
		big        []byte // assembles lines longer than the bufio buffer
		assembling bool   // the current line is being assembled in big
		skipping   bool   // the current line exceeded MaxLineSize
		length     int64  // bytes of the current line seen so far (without '\n')
		pos        = from
		start      = from
		lineNo     = 0
	)
	emit := func(line []byte, complete bool) error {
		lineNo++
		err := fn(line, lineNo, start, pos, complete)
		start, length, skipping, assembling = pos, 0, false, false
		if cap(big) > 1<<20 {
			big = nil // do not pin the memory of one huge line
		}
		big = big[:0]
		return err
	}
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			pos += int64(len(chunk))
			ended := chunk[len(chunk)-1] == '\n'
			data := chunk
			if ended {
				data = chunk[:len(chunk)-1]
			}
			length += int64(len(data))
			switch {
			case skipping:
			case length > MaxLineSize:
				skipping, assembling = true, false
				big = nil
			case ended && !assembling:
				// Fast path: the whole line is in the bufio buffer.
			default:
				big = append(big, data...)
				assembling = true
			}
			if ended {
				line := data
				switch {
				case skipping:
					line = nil
				case assembling:
					line = big
				}
				if ferr := emit(line, true); ferr != nil {
					return stopOK(ferr)
				}
			}
		}
		switch err {
		case nil, bufio.ErrBufferFull:
		case io.EOF:
			if pos > start {
				var line []byte
				if !skipping {
					line = append([]byte{}, big...)
				}
				if ferr := emit(line, false); ferr != nil {
					return stopOK(ferr)
				}
			}
			return nil
		default:
			return err
		}
	}
}

func stopOK(err error) error {
	if err == errStopScan {
		return nil
	}
	return err
}

// oversized reports whether a line handed to a scanLines callback was longer
// than MaxLineSize and therefore skipped.
func oversized(line []byte) bool { return line == nil }

// trimCR drops one trailing '\r', as bufio.ScanLines does.
func trimCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}

// isBlank reports whether line holds only ASCII whitespace.
func isBlank(line []byte) bool {
	return len(bytes.TrimSpace(line)) == 0
}
