//go:build !unix

package jsonl

import "os"

// InodeOf returns the zero Inode: without an inode the cheap prefix check
// is never used and every prefix is hashed whole.
func InodeOf(os.FileInfo) Inode { return Inode{} }
