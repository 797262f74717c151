package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestListOrderAndPreview: list --order id --asc lists by ID, A first, and
// --order created newest first; --json gives each session's preview (its
// first user message); a session without a title shows its preview,
// quoted, in the table; an unknown order is a usage error.
func TestListOrderAndPreview(t *testing.T) {
	db := tempDB(t)
	sessionctl(t, db, "import", "--format", "zot", "../../testdata/samples/zot").mustSucceed(t)
	ids := func(args ...string) []string {
		var out []sessionJSON
		if err := json.Unmarshal([]byte(sessionctl(t, db, append([]string{"list", "--json", "--limit", "0"}, args...)...).mustSucceed(t).stdout), &out); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range out {
			got = append(got, s.ID)
		}
		return got
	}
	byID := ids("--order", "id", "--asc")
	if len(byID) < 3 || !slices.IsSorted(byID) {
		t.Errorf("list --order id --asc = %v, not sorted", byID)
	}
	desc := ids("--order", "id")
	slices.Reverse(desc)
	if !slices.Equal(desc, byID) {
		t.Errorf("list --order id = reverse %v, want %v", desc, byID)
	}
	var out []sessionJSON
	if err := json.Unmarshal([]byte(sessionctl(t, db, "list", "--json").mustSucceed(t).stdout), &out); err != nil {
		t.Fatal(err)
	}
	previews := 0
	for _, s := range out {
		if s.Preview != "" {
			previews++
		}
	}
	if previews == 0 {
		t.Errorf("no session of the zot samples has a preview: %+v", out)
	}
	untitled := 0
	for _, s := range out {
		if s.Title == "" && s.Preview != "" {
			untitled++
		}
	}
	if table := sessionctl(t, db, "list", "--wide").mustSucceed(t).stdout; untitled == 0 || strings.Count(table, "“") != untitled {
		t.Errorf("%d untitled sessions with a preview, but the table quotes %d:\n%s", untitled, strings.Count(table, "“"), table)
	}
	r := sessionctl(t, db, "list", "--order", "sideways")
	if r.code != exitUsage || !strings.Contains(r.stderr, `unknown --order "sideways"`) {
		t.Errorf("list --order sideways: exit %d, %s", r.code, r.stderr)
	}
}
