package viewer

import (
	"context"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// TestVanishedSourceShown: a session whose source is gone says so in the
// list (a badge) and on its page (since when, last seen, "exists only in
// sessiondb"), the API gives the marks, and ?machine= filters the list.
func TestVanishedSourceShown(t *testing.T) {
	s := seed(t)
	ctx := context.Background()
	src := "/home/a/.picoclaw/sessions/agent_main_cli_direct_x.jsonl"
	for _, ss := range []sessiondb.Session{
		{ID: "vanished-1", Title: "kept after cleanup", SourceFormat: "picoclaw", SourcePath: src, Machine: "box-a"},
		{ID: "present-1", Title: "still on disk", SourceFormat: "picoclaw", SourcePath: src + ".other", Machine: "box-b"},
	} {
		if _, err := s.st.Create(ctx, ss); err != nil {
			t.Fatal(err)
		}
	}
	tr, ok := s.st.(sessiondb.SourceTracker)
	if !ok {
		t.Fatal("the store keeps no source marks")
	}
	seen := time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
	gone := time.Date(2026, 12, 2, 9, 30, 0, 0, time.UTC)
	if _, err := tr.MarkSources(ctx, sessiondb.SourceMarks{Seen: []string{src, src + ".other"}, At: seen}); err != nil {
		t.Fatal(err)
	}
	if n, err := tr.MarkSources(ctx, sessiondb.SourceMarks{Gone: []string{src}, At: gone}); err != nil || n != 1 {
		t.Fatalf("marked %d gone (%v), want 1", n, err)
	}
	srv := server(t, s.st, Options{}).URL
	list := mustPage(t, srv, "/?machine=box-a")
	mustContain(t, "list", list, "kept after cleanup", `<span class="gone">only here: source gone 2026-12-02</span>`, `<div class="machine">box-a</div>`)
	mustNotContain(t, "list filtered by machine", list, "still on disk")
	page := mustPage(t, srv, "/s/vanished-1")
	mustContain(t, "session page", page, "gone since 2026-12-02 09:30 UTC, last seen 2026-11-01 08:00 UTC: this session exists only in sessiondb", "<code>box-a</code>")
	mustNotContain(t, "present session", mustPage(t, srv, "/s/present-1"), "exists only in sessiondb")
	api := get(t, srv, "/api/sessions/vanished-1")
	mustContain(t, "API", api.body, `"source_gone_at": "2026-12-02T09:30:00Z"`, `"machine": "box-a"`)
}
