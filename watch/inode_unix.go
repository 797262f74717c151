//go:build unix

package watch

import (
	"os"
	"syscall"
)

// inode returns the file's inode number (0 when unknown).
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
