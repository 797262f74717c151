package jsonl

// Every file a reader opens — a session file or a file read beside one
// (picoclaw's .meta.json, Claude Code's tool-results files and sub-agent
// metas, swink's side files, Codex's index, opencode's JSON files) — is
// opened by Open, and every file read whole by ReadFile, so that one rule
// holds for all of them:
//
//   - only a regular file is read. A FIFO would block open(2) until a
//     writer comes (an import or a watcher hung for good, deaf to SIGTERM),
//     a device such as /dev/zero never ends. The file is opened with
//     O_NONBLOCK, so that opening a FIFO returns at once, and fstat'ed
//     after the open, so that a file replaced by a FIFO or a link to a
//     device between a listing and the open is still refused
//     (ErrNotRegular);
//   - a file read whole has a size limit, checked before the first byte
//     is read (a sparse 3 GB file costs nothing to refuse), and is read
//     through a LimitReader, so that a file that grows while it is read
//     is refused too rather than read on (ErrTooLarge).

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/sessiondb/sessiondb"
)

// ErrNotRegular is returned by Open and ReadFile for a file that is not a
// regular file (a FIFO, a device, a socket, a directory). It wraps
// sessiondb.ErrInvalid.
var ErrNotRegular error = invalidError("not a regular file")

// ErrTooLarge is returned by ReadFile for a file over its size limit. It
// wraps sessiondb.ErrInvalid.
var ErrTooLarge error = invalidError("file too large")

// invalidError is an error that is also sessiondb.ErrInvalid, without
// saying so in its text.
type invalidError string

func (e invalidError) Error() string { return string(e) }

// Is makes errors.Is(err, sessiondb.ErrInvalid) hold.
func (e invalidError) Is(target error) bool { return target == sessiondb.ErrInvalid }

// Open opens the regular file at path for reading; a path that is not one
// (after following links) gives an error wrapping ErrNotRegular, without
// blocking (see the top of this file).
func Open(path string) (*os.File, error) {
	f, _, err := OpenStat(path)
	return f, err
}

// OpenStat is Open that also returns the opened file's FileInfo (from
// fstat: the file that was opened, not the one the path names now).
func OpenStat(path string) (*os.File, os.FileInfo, error) {
	// A stat first, so that a device is not even opened (opening some has
	// effects); the fstat after the open is what decides.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, nil, notRegular(path, fi.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(path, fi.Mode())
	}
	return f, fi, nil
}

// ReadFile reads the regular file at path whole, refusing one of more than
// limit bytes (ErrTooLarge) before reading it.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, fi, err := OpenStat(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: %d bytes, over the limit of %d", ErrTooLarge, fi.Size(), limit)}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: it grew over the limit of %d bytes while read", ErrTooLarge, limit)}
	}
	return data, nil
}

// IsRefused reports whether err is Open's or ReadFile's refusal of a file
// (not a regular file, or too large).
func IsRefused(err error) bool {
	return errors.Is(err, ErrNotRegular) || errors.Is(err, ErrTooLarge)
}

func notRegular(path string, m fs.FileMode) error {
	return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, Kind(m))}
}

// Kind names a file's type for a message: "a FIFO", "a character
// device", "a regular file", ….
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}

// MaxWholeFile is the size limit of a session file a format reads whole
// (a JSON document, not lines: opencode's export and session files): 1 GiB.
const MaxWholeFile = 1 << 30
