package jsonl

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// scannedLine records one ScanLines callback.
type scannedLine struct {
	Line       string
	Nil        bool
	No         int
	Start, End int64
	Complete   bool
}

func scanAll(t testing.TB, r io.Reader, from int64) []scannedLine {
	t.Helper()
	var out []scannedLine
	err := ScanLines(r, from, func(line []byte, no int, start, end int64, complete bool) error {
		out = append(out, scannedLine{string(line), line == nil, no, start, end, complete})
		return nil
	})
	if err != nil {
		t.Fatalf("ScanLines: %v", err)
	}
	return out
}

func TestScanLines(t *testing.T) {
	long := strings.Repeat("y", 3*lineReaderBuf+17)
	cases := []struct {
		name string
		in   string
		from int64
		want []scannedLine
	}{
		{name: "empty input", in: ""},
		{name: "lines", in: "a\nbc\n", want: []scannedLine{
			{"a", false, 1, 0, 2, true}, {"bc", false, 2, 2, 5, true}}},
		{name: "offset added", in: "a\nbc\n", from: 100, want: []scannedLine{
			{"a", false, 1, 100, 102, true}, {"bc", false, 2, 102, 105, true}}},
		{name: "empty lines reported", in: "\n\nx\n", want: []scannedLine{
			{"", false, 1, 0, 1, true}, {"", false, 2, 1, 2, true}, {"x", false, 3, 2, 4, true}}},
		{name: "torn last line", in: "a\ntor", want: []scannedLine{
			{"a", false, 1, 0, 2, true}, {"tor", false, 2, 2, 5, false}}},
		{name: "cr kept", in: "a\r\nb\r", want: []scannedLine{
			{"a\r", false, 1, 0, 3, true}, {"b\r", false, 2, 3, 5, false}}},
		{name: "line longer than the buffer", in: "s\n" + long + "\nt\n", want: []scannedLine{
			{"s", false, 1, 0, 2, true}, {long, false, 2, 2, int64(3 + len(long)), true},
			{"t", false, 3, int64(3 + len(long)), int64(5 + len(long)), true}}},
		{name: "long torn last line", in: long, want: []scannedLine{
			{long, false, 1, 0, int64(len(long)), false}}},
		{name: "nul bytes are data", in: "\x00\x00\n", want: []scannedLine{
			{"\x00\x00", false, 1, 0, 3, true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := scanAll(t, strings.NewReader(tc.in), tc.from)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// repeatReader yields n copies of b without holding them in memory.
type repeatReader struct {
	b byte
	n int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), r.n)
	for i := range p[:k] {
		p[i] = r.b
	}
	r.n -= k
	return int(k), nil
}

// TestScanLinesOversized streams a line of MaxLineSize+1 bytes: it is
// reported as line == nil with the right offsets, and the following lines
// are still read.
func TestScanLinesOversized(t *testing.T) {
	n := int64(MaxLineSize + 1)
	r := io.MultiReader(strings.NewReader("a\n"), &repeatReader{'z', n}, strings.NewReader("\nb\n"), &repeatReader{'q', n})
	got := scanAll(t, r, 0)
	want := []scannedLine{
		{"a", false, 1, 0, 2, true},
		{"", true, 2, 2, 3 + n, true},
		{"b", false, 3, 3 + n, 5 + n, true},
		{"", true, 4, 5 + n, 5 + 2*n, false},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// Exactly MaxLineSize bytes is still a line.
	var size int
	err := ScanLines(&repeatReader{'m', MaxLineSize}, 0, func(line []byte, _ int, _, _ int64, _ bool) error {
		if Oversized(line) {
			t.Error("a line of exactly MaxLineSize bytes reported as oversized")
		}
		size = len(line)
		return nil
	})
	if err != nil || size != MaxLineSize {
		t.Errorf("size %d err %v", size, err)
	}
}

func TestScanLinesStopAndErrors(t *testing.T) {
	var seen int
	err := ScanLines(strings.NewReader("a\nb\nc\n"), 0, func([]byte, int, int64, int64, bool) error {
		seen++
		if seen == 2 {
			return ErrStopScan
		}
		return nil
	})
	if err != nil || seen != 2 {
		t.Errorf("ErrStopScan: err %v after %d lines", err, seen)
	}
	boom := errors.New("boom")
	err = ScanLines(strings.NewReader("a\nb\n"), 0, func([]byte, int, int64, int64, bool) error { return boom })
	if !errors.Is(err, boom) {
		t.Errorf("callback error: %v", err)
	}
	readErr := errors.New("disk")
	err = ScanLines(io.MultiReader(strings.NewReader("a\n"), errReader{readErr}), 0, func([]byte, int, int64, int64, bool) error { return nil })
	if !errors.Is(err, readErr) {
		t.Errorf("read error: %v", err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// checkScanInvariants checks that the callbacks tile the input exactly.
func checkScanInvariants(t *testing.T, in []byte, from int64) {
	var rebuilt []byte
	pos := from
	no := 0
	err := ScanLines(bytes.NewReader(in), from, func(line []byte, n int, start, end int64, complete bool) error {
		no++
		if n != no || start != pos || end <= start {
			t.Fatalf("line %d: no %d start %d end %d (pos %d)", no, n, start, end, pos)
		}
		if line == nil {
			t.Fatalf("line %d reported oversized", n)
		}
		want := end - start
		if complete {
			want--
		}
		if int64(len(line)) != want {
			t.Fatalf("line %d: %d bytes for range %d-%d complete=%v", n, len(line), start, end, complete)
		}
		if bytes.IndexByte(line, '\n') >= 0 {
			t.Fatalf("line %d holds a newline", n)
		}
		rebuilt = append(rebuilt, line...)
		if complete {
			rebuilt = append(rebuilt, '\n')
		} else if end != from+int64(len(in)) {
			t.Fatalf("incomplete line %d before EOF", n)
		}
		pos = end
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rebuilt, in) {
		t.Fatalf("lines do not rebuild the input")
	}
}

func FuzzScanLines(f *testing.F) {
	f.Add([]byte(""), int64(0))
	f.Add([]byte("a\n\nb\r\ntorn"), int64(7))
	f.Add(bytes.Repeat([]byte("x"), lineReaderBuf+3), int64(0))
	// Lines of a picoclaw sample, each with its newline.
	sample, err := os.ReadFile(filepath.Join("..", "..", "testdata", "picoclaw", "agent_main_cli_direct_alice.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	for i, l := range bytes.SplitAfter(sample, []byte("\n")) {
		if i == 8 {
			break
		}
		f.Add(l, int64(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, from int64) {
		if from < 0 {
			from = -from
		}
		checkScanInvariants(t, in, from%1000)
	})
}
