//go:build unix

package jsonl

import (
	"os"
	"syscall"
)

// InodeOf returns the file's device and inode.
func InodeOf(fi os.FileInfo) Inode {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return Inode{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}
	}
	return Inode{}
}
