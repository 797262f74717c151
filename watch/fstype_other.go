//go:build !linux && !darwin

package watch

// remoteFS cannot tell network file systems apart on this platform: use
// Options.Poll (sessionctl watch --poll) for them.
func remoteFS(dir string) string { return "" }
