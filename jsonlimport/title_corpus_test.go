package jsonlimport

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// uuidTitle is a title that is only an ID.
var uuidTitle = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// TestCorpusTitles imports the real Claude Code and Codex corpus and
// checks every session's title: there is one whenever the session holds a
// real user prompt, and it is not an ID, a context preamble, a command
// wrapper or markdown syntax.
func TestCorpusTitles(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	root := corpusRoot(t)
	if _, err := Import(ctx, s, []string{filepath.Join(root, "claude-code"), filepath.Join(root, "codex")}, Options{}); err != nil {
		t.Fatal(err)
	}
	infos, _, err := s.List(ctx, sessiondb.ListOptions{Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) < 100 {
		t.Fatalf("%d sessions imported", len(infos))
	}
	untitled, named := 0, 0
	for _, si := range infos {
		title := si.Title
		log, err := s.Entries(ctx, si.ID, 1, si.LastSeq)
		if err != nil {
			t.Fatal(err)
		}
		if toolTitled(log) {
			// A title the tool recorded (a rename, a summary) is the
			// tool's, whatever it says.
			named++
			continue
		}
		switch {
		case title == "":
			untitled++
			if p := PromptTitle(si.SourceFormat, log); p != "" {
				t.Errorf("%s (%s) has no title but a prompt %q", si.ID, si.SourceFormat, p)
			}
		case uuidTitle.MatchString(title), strings.HasPrefix(title, "<"), strings.HasPrefix(title, "#"),
			strings.Contains(title, "My request for Codex"), strings.Contains(title, "**"), strings.Contains(title, "\n"),
			strings.HasPrefix(title, "AGENTS.md instructions"):
			t.Errorf("%s (%s) is titled %q", si.ID, si.SourceFormat, title)
		}
	}
	t.Logf("%d sessions: %d titled by the tool, %d without a title (no user prompt)", len(infos), named, untitled)
}

// toolTitled reports whether a Claude Code log records a title.
func toolTitled(log []sessiondb.Entry) bool {
	for _, e := range log {
		switch e.Kind {
		case "custom-title", "summary", "ai-title":
			return true
		}
	}
	return false
}
