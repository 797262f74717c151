package jsonlimport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

// TestTornTailReportedEveryImport: a torn last line is not imported, and
// every import that finds its file unchanged says so again (a problem is
// what was not imported, every time it still is not); once the line is
// gone or complete, no import reports it. Every format that leaves a torn
// tail unconsumed is covered.
func TestTornTailReportedEveryImport(t *testing.T) {
	cases := []struct{ name, src string }{
		{"picoclaw", filepath.Join(picoDamagedDir, "torn-last-line")},
		{"zot", filepath.Join("..", "testdata", "zot-damaged", "01-torn-last-line.jsonl")},
		{"claude-code", filepath.Join(ccTestdata, "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000003.jsonl")},
		{"pi", filepath.Join(piTestdata, "sessions", "damaged.jsonl")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if fi, err := os.Stat(tc.src); err == nil && fi.IsDir() {
				dir = jsonltest.CopyDir(t, tc.src)
			} else {
				data, err := os.ReadFile(tc.src)
				if err != nil {
					t.Fatal(err)
				}
				sub := filepath.Join(dir, "-home-dev-proj")
				if err := os.MkdirAll(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(sub, filepath.Base(tc.src)), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s := openStore(t)
			torn := func(rep Report) []Problem {
				var out []Problem
				for _, p := range rep.Problems {
					if strings.Contains(p.Reason, "torn last line") {
						out = append(out, p)
					}
				}
				return out
			}
			first := torn(picoImport(t, s, Options{Format: tc.name}, dir))
			if len(first) == 0 {
				t.Fatalf("the first import reports no torn last line")
			}
			for i := 2; i <= 3; i++ {
				rep := picoImport(t, s, Options{Format: tc.name}, dir)
				if rep.Unchanged == 0 || rep.Sessions != 0 {
					t.Fatalf("import %d: %d unchanged, %d sessions: want the file found unchanged", i, rep.Unchanged, rep.Sessions)
				}
				if got := torn(rep); len(got) != len(first) || got[0] != first[0] {
					t.Fatalf("import %d of the unchanged file reports %v, want %v again", i, got, first)
				}
			}
			// The torn bytes removed (the writer's line gone, the file ends
			// at a newline): nothing torn any more.
			path := first[0].Path
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			end := strings.LastIndexByte(string(data), '\n') + 1
			if err := os.WriteFile(path, data[:end], 0o644); err != nil {
				t.Fatal(err)
			}
			if got := torn(picoImport(t, s, Options{Format: tc.name}, dir)); len(got) != 0 {
				t.Errorf("after the torn line is gone: %v", got)
			}
			if got := torn(picoImport(t, s, Options{Format: tc.name}, dir)); len(got) != 0 {
				t.Errorf("an unchanged file without a torn line: %v", got)
			}
		})
	}
}

// TestActionNotesFirst: a note that asks the user to act (a model without
// a price) comes before the other notes of the report, whatever the order
// of the files.
func TestActionNotesFirst(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "-home-dev-proj")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := os.WriteFile(filepath.Join(dir, "a"+string(rune('0'+i))+".txt"), []byte("not a session"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	line := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/p","message":{"role":"user","content":"hi"}}` + "\n" +
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-01-01T00:00:01Z","requestId":"r1","message":{"id":"m1","role":"assistant","model":"zz-unpriced-model-9","content":[{"type":"text","text":"yo"}],"usage":{"input_tokens":10,"output_tokens":5}}}` + "\n"
	if err := os.WriteFile(filepath.Join(sub, "s1.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := picoImport(t, openStore(t), Options{}, dir)
	if len(rep.Notes) < 6 {
		t.Fatalf("notes %v", rep.Notes)
	}
	if !rep.Notes[0].Action || !strings.Contains(rep.Notes[0].Reason, "zz-unpriced-model-9") || !strings.Contains(rep.Notes[0].Reason, "sessionctl reprice") {
		t.Errorf("the first note is %+v, want the unpriced model's, marked as an action", rep.Notes[0])
	}
	for _, n := range rep.Notes[1:] {
		if n.Action {
			t.Errorf("a note after the others asks to act: %+v", n)
		}
	}
}
