package secrets

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sessiondb/sessiondb/internal/longtest"
)

// corpusLines returns the lines of the JSONL files of the real corpus
// (testdata/corpus: Claude Code and Codex sessions, prose replaced, ids,
// hashes, signatures and numbers kept), the first n files by name (all
// when n <= 0).
func corpusLines(tb testing.TB, n int) [][]byte {
	tb.Helper()
	var files []string
	err := filepath.WalkDir("../../testdata/corpus", func(p string, e fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		tb.Fatalf("corpus: %v (%d files)", err, len(files))
	}
	slices.Sort(files)
	if n > 0 {
		files = files[:min(n, len(files))]
	}
	var lines [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<28)
		for sc.Scan() {
			lines = append(lines, bytes.Clone(sc.Bytes()))
		}
	}
	return lines
}

// TestCorpusHasNoFindings: the corpus holds tool ids, UUIDs, git SHAs,
// thinking signatures, base64 images and usage figures as they were, and
// no secret (its prose is placeholders): any finding is a false positive.
// The quick run reads 12 files, the long run all.
func TestCorpusHasNoFindings(t *testing.T) {
	n := 12
	if longtest.Enabled() {
		n = 0
	}
	d := Default()
	lines := corpusLines(t, n)
	for _, line := range lines {
		for _, s := range d.FindJSON(line) {
			lo, hi := max(0, s.Start-60), min(len(line), s.End+20)
			t.Errorf("%s in %q", s.Rule, line[lo:hi])
		}
	}
	t.Logf("%d lines", len(lines))
}

// BenchmarkFindJSONCorpus scans every line of the corpus (22 MB) as the
// indexer scans stored bodies; MB/s is the scan speed, cpu-MB/s the same
// per second of CPU used (on a shared machine the wall time moves with
// the neighbours, the CPU time much less).
func BenchmarkFindJSONCorpus(b *testing.B) {
	lines := corpusLines(b, 0)
	var size int64
	for _, l := range lines {
		size += int64(len(l))
	}
	d := Default()
	b.SetBytes(size)
	cpu0 := cpuSeconds()
	for b.Loop() {
		for _, l := range lines {
			d.FindJSON(l)
		}
	}
	b.ReportMetric(float64(size)*float64(b.N)/1e6/(cpuSeconds()-cpu0), "cpu-MB/s")
}

// cpuSeconds is the CPU time (user+sys, all threads) the process used so
// far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
