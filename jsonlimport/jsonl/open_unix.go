//go:build unix

package jsonl

import "syscall"

// openNonblock makes open(2) of a FIFO return at once instead of waiting
// for a writer (it has no effect on a regular file).
const openNonblock = syscall.O_NONBLOCK
