//go:build !unix

package jsonl

// openNonblock is 0 where there are no FIFOs to open.
const openNonblock = 0
