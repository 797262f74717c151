package jsonlimport

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var exportUpdate = flag.Bool("export.update", false, "rewrite testdata/export-golden")

// TestExportTranslatedGolden: sessions of one format exported into
// another, compared with golden files (testdata/export-golden, one per
// pair: every file written, with its path). Rewrite them with
// -export.update after checking the difference by hand.
func TestExportTranslatedGolden(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, path, id string
		targets        []string
	}{
		// A real Claude Code 2.x session (thinking, tool calls, results).
		{"claudecode-820ad459", filepath.Join("..", "testdata", "corpus", "claude-code", "projects", "-home-nadia", "820ad459-988a-497a-957d-2dd4d24c3526.jsonl"),
			"820ad459-988a-497a-957d-2dd4d24c3526", []string{FormatPi, FormatZot, FormatSwink, FormatPicoclaw, FormatCodex}},
		// A fixture with a line type nobody has seen: refused.
		{"claudecode-1", filepath.Join(ccTestdata, "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000001.jsonl"),
			"5c2d8e41-0000-4000-8000-000000000001", []string{FormatPi}},
		// A real Codex rollout (reasoning, function and custom tool calls).
		{"codex-019bb2fa", filepath.Join("..", "testdata", "corpus", "codex", "sessions", "2026", "01", "12", "rollout-2026-01-12T23-12-06-019bb2fa-9aa3-7652-8354-6bb6fce60314.jsonl"),
			"019bb2fa-9aa3-7652-8354-6bb6fce60314", []string{FormatPi, FormatZot, FormatSwink, FormatPicoclaw, FormatClaudeCode}},
		// A Codex fixture resumed from a compaction's replacement history.
		{"codex-1", filepath.Join(codexTestdata, "codex-home", "sessions", "2026", "01", "10", "rollout-2026-01-10T09-00-00-019f26cb-0000-7000-8000-000000000001.jsonl"),
			"019f26cb-0000-7000-8000-000000000001", []string{FormatPi, FormatZot, FormatSwink, FormatPicoclaw}},
		// A zot session (11 tool calls and their results, no thinking):
		// a Codex rollout (translate_codex.go).
		{"zot-1a343fd1", filepath.Join("..", "testdata", "samples", "zot", "zot_home", "sessions", "70490179fb06dad3", "20261129-124252-1a343fd1.jsonl"),
			"1a343fd1-ebd4-49d9-a41b-60b072be3e11", []string{FormatCodex}},
		{"picoclaw-alice", filepath.Join("..", "testdata", "samples", "picoclaw"),
			"agent:main:cli:direct:alice", []string{FormatPi, FormatZot}},
	}
	for _, c := range cases {
		s := openStore(t)
		if _, err := Import(ctx, s, []string{c.path}, Options{}); err != nil {
			t.Fatal(err)
		}
		for _, target := range c.targets {
			name := c.name + "." + target + ".golden"
			t.Run(name, func(t *testing.T) {
				out := t.TempDir()
				var got strings.Builder
				files, err := Export(ctx, s, []string{c.id}, target, out)
				if err != nil {
					got.WriteString("refused: " + err.Error() + "\n")
				}
				for _, f := range files {
					rel, _ := filepath.Rel(out, f)
					data, err := os.ReadFile(f)
					if err != nil {
						t.Fatal(err)
					}
					got.WriteString("== " + filepath.ToSlash(rel) + " ==\n")
					got.Write(data)
				}
				golden := filepath.Join("..", "testdata", "export-golden", name)
				if *exportUpdate {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -export.update)", err)
				}
				if got.String() != string(want) {
					t.Errorf("%s differs from the golden file:\n%s", name, got.String())
				}
			})
		}
	}
}
