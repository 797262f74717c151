package jsonl

// What tells whether a file is still the one read before: its identity
// (Inode), its size and time (FileStamp), and hashes of byte ranges
// (HashRange, TailHash). The importer checks a grown file's prefix with
// them; Claude Code's reader checks its tool-results files and the copies
// of a project's transcripts.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"time"
)

// Inode is a file's device and inode (zero when unknown).
type Inode struct{ Dev, Ino uint64 }

// Known reports whether the inode is known (InodeOf found one).
func (id Inode) Known() bool { return id.Ino != 0 }

// FileStamp is the size, modification time and permission bits of a side
// file. The permissions are there because a file that could not be read
// (mode 000: "permission denied", imported without it) and is then made
// readable by chmod keeps its size and time: without them, the import
// would be taken as done for good. Mode 0 (a stamp recorded before it was
// kept) matches any mode.
type FileStamp struct {
	Path    string    `json:"path"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime"`
	Mode    uint32    `json:"mode,omitempty"`
}

// StampOf returns the stamp of a side file at path from its FileInfo.
func StampOf(path string, fi os.FileInfo) FileStamp {
	// The type bits too (a FIFO put in a file's place), and one bit set
	// always, so that a recorded stamp's Mode is never 0.
	return FileStamp{Path: path, Size: fi.Size(), ModTime: fi.ModTime(), Mode: uint32(fi.Mode()) | 1<<30}
}

// Same reports whether two stamps describe the same file state.
func (s FileStamp) Same(o FileStamp) bool {
	return s.Path == o.Path && s.Size == o.Size && s.ModTime.Equal(o.ModTime) &&
		(s.Mode == 0 || o.Mode == 0 || s.Mode == o.Mode)
}

// TailWindow is how many bytes before an offset TailHash hashes.
const TailWindow = 4 << 10

// TailHash returns the hex sha256 of the TailWindow bytes before offset.
func TailHash(path string, offset int64) (string, error) {
	h := sha256.New()
	if err := HashRange(path, h, max(0, offset-TailWindow), offset); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// HashRange feeds bytes [from, to) of the file at path into h.
func HashRange(path string, h hash.Hash, from, to int64) error {
	if to <= from {
		return nil
	}
	f, err := Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	n, err := io.Copy(h, io.NewSectionReader(f, from, to-from))
	if err != nil {
		return fmt.Errorf("hash %s: %w", path, err)
	}
	if n != to-from {
		return fmt.Errorf("hash %s: file shrank to %d bytes while reading", path, from+n)
	}
	return nil
}
