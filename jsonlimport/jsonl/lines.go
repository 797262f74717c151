package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// lineReaderBuf is the bufio.Reader size used by ScanLines. Lines longer than
// it are assembled in a separate buffer (up to MaxLineSize).
const lineReaderBuf = 64 << 10

// ErrStopScan can be returned by a ScanLines callback to stop early; ScanLines
// then returns nil.
var ErrStopScan = errors.New("stop scanning")

// ScanLines reads r line by line with bounded memory and calls fn for every
// physical line, in order. It is the line reader shared by every format.
//
//   - r must be positioned at byte offset from of the underlying file; from
//     is only added to the offsets reported (ScanLines does not seek).
//   - line is the line's bytes WITHOUT the terminating '\n'. A '\r' before the
//     '\n' is kept (use TrimCR when the format drops it). Empty lines are
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
//     Oversized(line) to test for it.
//
// If fn returns an error, scanning stops; ScanLines returns nil for
// ErrStopScan and the error itself otherwise. Read errors are returned
// as they are.
func ScanLines(r io.Reader, from int64, fn func(line []byte, lineNo int, start, end int64, complete bool) error) error {
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
					return StopOK(ferr)
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
					return StopOK(ferr)
				}
			}
			return nil
		default:
			return err
		}
	}
}

// StopOK returns nil for ErrStopScan and err itself otherwise.
func StopOK(err error) error {
	if err == ErrStopScan {
		return nil
	}
	return err
}

// Oversized reports whether a line handed to a ScanLines callback was longer
// than MaxLineSize and therefore skipped.
func Oversized(line []byte) bool { return line == nil }

// TrimCR drops one trailing '\r', as bufio.ScanLines does.
func TrimCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}

// IsBlank reports whether line holds only ASCII whitespace.
func IsBlank(line []byte) bool {
	return len(bytes.TrimSpace(line)) == 0
}
