package entire

// SetSniffLen sets how much of a large transcript is written out for the
// readers to claim it, and returns what restores it.
func SetSniffLen(n int64) (restore func()) {
	old := sniffLen
	sniffLen = n
	return func() { sniffLen = old }
}
