//go:build unix

package jsonlimport

import (
	"os"
	"syscall"
)

// fileIDOf returns the file's device and inode.
func fileIDOf(fi os.FileInfo) fileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}
	}
	return fileID{}
}
