package jsonlimport

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCursorTwinsAreANote: Cursor's IDE keeps a composer in state.vscdb
// and its agent the same composer as agent-transcripts/<id>.jsonl. An
// import of both keeps both sessions (the second under a derived ID) and
// says so in a note, not a problem, whichever is imported first; an ID
// taken by another agent's session is still a problem.
func TestCursorTwinsAreANote(t *testing.T) {
	ctx := context.Background()
	src, err := os.ReadFile("../testdata/cursor-agent/crafted/projects/Users-example-work-alpha/agent-transcripts/a1b2c3d4-0005-4000-8000-000000000005.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, order := range []string{"store first", "transcript first", "together"} {
		t.Run(order, func(t *testing.T) {
			dir := t.TempDir()
			ide := filepath.Join(dir, "User", "globalStorage")
			copyTree(t, "../testdata/cursor/tools", ide)
			s := openStore(t)
			// The IDE store's first composer, read by itself.
			probe := openStore(t)
			if _, err := Import(ctx, probe, []string{ide}, Options{}); err != nil {
				t.Fatal(err)
			}
			sessions := listSessions(t, probe)
			if len(sessions) == 0 {
				t.Fatal("setup: the IDE store holds no session")
			}
			id := sessions[0].ID
			tr := filepath.Join(dir, "projects", "home-me-p", "agent-transcripts", id+".jsonl")
			os.MkdirAll(filepath.Dir(tr), 0o755)
			if err := os.WriteFile(tr, src, 0o644); err != nil {
				t.Fatal(err)
			}
			var reps []Report
			imp := func(paths ...string) {
				rep, err := Import(ctx, s, paths, Options{})
				if err != nil {
					t.Fatal(err)
				}
				reps = append(reps, rep)
			}
			switch order {
			case "store first":
				imp(ide)
				imp(tr)
			case "transcript first":
				imp(tr)
				imp(ide)
			default:
				imp(ide, tr)
			}
			noted := false
			for _, rep := range reps {
				for _, p := range rep.Problems {
					if strings.Contains(p.Reason, id) {
						t.Errorf("problem: %v", p)
					}
				}
				for _, n := range rep.Notes {
					noted = noted || strings.Contains(n.Reason, "is also kept by")
				}
			}
			if !noted {
				t.Errorf("no note names the twin")
			}
			formats := map[string]bool{}
			for _, x := range listSessions(t, s) {
				if strings.HasPrefix(x.ID, id) {
					formats[x.SourceFormat] = true
				}
			}
			if !formats["cursor"] || !formats["cursor-agent"] {
				t.Errorf("sessions of %s by format: %v, want both kept", id, formats)
			}
		})
	}

	// A pi session holding that ID is not Cursor's twin: a problem.
	if !twinFormats("cursor", "cursor-agent") || twinFormats("cursor-agent", "pi") || twinFormats("cursor", "cursor") {
		t.Error("twinFormats pairs the wrong formats")
	}
}
