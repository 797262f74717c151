//go:build !linux && !darwin

package watch

import "os"

// remoteFS cannot tell network file systems apart on this platform: use
// Options.Poll (sessionctl watch --poll) for them.
func remoteFS(dir string) string { return "" }

// inode is unknown on this platform: polls compare sizes and times only.
func inode(fi os.FileInfo) uint64 { return 0 }
