//go:build !unix

package watch

import "os"

// inode is unknown on this platform: polls compare sizes and times only.
func inode(fi os.FileInfo) uint64 { return 0 }
