package compactor

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/jsonlimport"
)

// TestCompactCrushCorpus compacts every crush and Go opencode session of
// the corpus (--keep 2, offline) and checks each compaction with
// Understand (checkCompaction: tool pairs intact in the kept tail, the
// summary read as the format's own message, cross-format export). Every
// session of more than two turns compacts, unless the summary would not
// make its transcript smaller (the corpus's prose is cut short).
func TestCompactCrushCorpus(t *testing.T) {
	longtest.Skip(t, "compacts all 39 sessions of both corpora twice (2-3 s); TestCompactCrushStores compacts two stores")
	compactCrush(t, filepath.Join("..", "testdata", "corpus", "crush"), filepath.Join("..", "testdata", "corpus", "opencode-go"))
}

// TestCompactCrushStores is TestCompactCrushCorpus on one store of each
// format.
func TestCompactCrushStores(t *testing.T) {
	compactCrush(t, filepath.Join("..", "testdata", "corpus", "crush", "gleicon+mcpfier"),
		filepath.Join("..", "testdata", "corpus", "opencode-go", "Zainrax+mood"))
}

func compactCrush(t *testing.T, paths ...string) {
	if raceEnabled {
		t.Skip("imports and compacts corpus stores, no concurrency: run without -race")
	}
	st := openStore(t)
	importCorpus(t, st, paths...)
	type figures struct{ tried, compacted, pairs int }
	figs := map[string]*figures{}
	for _, s := range listAll(t, st) {
		f := figs[s.SourceFormat]
		if f == nil {
			f = &figures{}
			figs[s.SourceFormat] = f
		}
		f.tried++
		n := turns(t, st, s)
		intact, _, reason := checkCompaction(t, st, s)
		if reason != "" {
			if n > 2 && !strings.Contains(reason, "would not make the transcript smaller") {
				t.Errorf("%s %s: %d turns, not compacted with --keep 2: %s", s.SourceFormat, s.ID, n, reason)
			}
			continue
		}
		f.compacted++
		f.pairs += intact
	}
	for _, format := range []string{jsonlimport.FormatCrush, jsonlimport.FormatOpencodeGo} {
		f := figs[format]
		if f == nil || f.compacted == 0 {
			t.Fatalf("%s: nothing compacted: %+v", format, f)
		}
		t.Logf("%s: compacted %d of %d sessions; %d tool pairs intact in the kept tails", format, f.compacted, f.tried, f.pairs)
	}
}

// noOwnExport reports whether sessions of format are not written back in
// it (crush and the Go opencode: their stores are only read).
func noOwnExport(format string) bool {
	return format == jsonlimport.FormatCrush || format == jsonlimport.FormatOpencodeGo
}
