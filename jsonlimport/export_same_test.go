package jsonlimport

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportSameFormatBytes exports every session of each format's
// fixtures and samples back into its own format and counts the source
// files that come back byte for byte. Claude Code, Codex and pi write the
// log of the latest import and must give back every undamaged file
// (TestExportCorpusByteIdentity and TestPiExportRoundTrip check the
// transcripts too); picoclaw, zot and swink render a session from its
// transcript and metadata (their package notes say how), so a file comes
// back identical only when it holds nothing but what that rendering
// writes: the figures are logged, and a drop below them fails.
func TestExportSameFormatBytes(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		format, root string
		atLeast      int // files byte-identical, as measured
	}{
		// Every pi file but damaged.jsonl (what the import recovered).
		{FormatPi, filepath.Join(piTestdata, "sessions"), 7},
		{FormatPicoclaw, filepath.Join("..", "testdata", "samples", "picoclaw"), 17},
		// zot: the effective transcript and one usage row of totals.
		{FormatZot, filepath.Join("..", "testdata", "samples", "zot"), 1},
		// swink: the header in swink's current form (version, sequence,
		// padding), as swink itself rewrites it.
		{FormatSwink, filepath.Join("..", "testdata", "samples", "swink"), 0},
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			s := openStore(t)
			if _, err := Import(ctx, s, []string{c.root}, Options{Format: c.format}); err != nil {
				t.Fatal(err)
			}
			sources := map[string]string{} // session ID → its source file
			for _, sess := range allSessions(t, s) {
				// A pi branch fork ("<session>@<tip>") shares its file with
				// the session; its export is the branch's own file.
				if sess.SourcePath != "" && !strings.Contains(sess.ID, "@") {
					sources[sess.ID] = sess.SourcePath
				}
			}
			equal, total := 0, 0
			for id, src := range sources {
				want, err := os.ReadFile(src)
				if err != nil {
					t.Fatal(err)
				}
				files, err := Export(ctx, s, []string{id}, c.format, t.TempDir())
				if err != nil {
					t.Errorf("%s: %v", id, err)
					continue
				}
				total++
				for _, f := range files {
					if filepath.Ext(f) != filepath.Ext(src) {
						continue
					}
					if got, _ := os.ReadFile(f); bytes.Equal(got, want) {
						equal++
						break
					}
				}
			}
			t.Logf("%s: files byte-identical %d / %d", c.format, equal, total)
			if equal < c.atLeast {
				t.Errorf("%d files come back byte for byte; %d did", equal, c.atLeast)
			}
		})
	}
}
