package jsonlimport

// Progress reports how far an Import is. FilesDone and FilesTotal count
// source files (a unit's primary file and its side files); BytesDone and
// BytesTotal their sizes; Sessions the sessions written so far (or, in a dry
// run, that would be). The callback is invoked from the single writer
// goroutine, after each unit, so it needs no locking; it must not block for
// long, since the import waits for it.
type Progress struct {
	FilesDone, FilesTotal int
	BytesDone, BytesTotal int64
	Sessions              int
}

// progress accumulates and reports Progress.
type progress struct {
	p  Progress
	fn func(Progress)
}

func (p *progress) report() {
	if p.fn != nil {
		p.fn(p.p)
	}
}

func (p *progress) done(files int, bytes int64, sessions int) {
	p.p.FilesDone += files
	p.p.BytesDone += bytes
	p.p.Sessions += sessions
	p.report()
}
