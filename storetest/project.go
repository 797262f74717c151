package storetest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb"
)

// ---- Project: a session's working directory, a dimension of its own -------

func projectTests() []testCase {
	return []testCase{
		{name: "RoundTrip", fn: testProjectRoundTrip},
		{name: "List", fn: testProjectList},
		{name: "Usage", fn: testProjectUsage},
		{name: "Search", fn: testProjectSearch},
	}
}

// testProjectRoundTrip: Project is kept on create, returned by every
// read, changed by MetaPatch.Project (an equal value is no change; ""
// clears it), replaced by SaveFull and inherited by a fork.
func testProjectRoundTrip(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	const p = "/Users/me/src/OpenCore"
	got := mustCommit(t, s, "a", sessiondb.Commit{Create: &sessiondb.Session{Project: p}, Append: msgs(1, 2)})
	if got.Project != p {
		t.Errorf("Commit(create) returned project %q", got.Project)
	}
	if g := mustGet(t, s, "a"); g.Project != p {
		t.Errorf("Get: project %q", g.Project)
	}
	if l := listAll(t, s, sessiondb.ListOptions{}); len(l) != 1 || l[0].Project != p {
		t.Errorf("List: %+v", l)
	}
	full, err := s.LoadFull(ctx, "a", sessiondb.LoadOptions{})
	if err != nil || full.Session.Project != p {
		t.Errorf("LoadFull: project %q, %v", full.Session.Project, err)
	}
	if lk, ok := s.(sessiondb.SessionLookup); ok {
		if g, err := lk.Lookup(ctx, "a"); err != nil || g.Project != p {
			t.Errorf("Lookup: project %q, %v", g.Project, err)
		}
	}
	seq := mustGet(t, s, "a").Sequence
	if g, err := s.UpdateMeta(ctx, "a", sessiondb.MetaPatch{Project: ptr(p)}); err != nil || g.Sequence != seq {
		t.Errorf("an equal project patch: sequence %d -> %d, %v; want no change", seq, g.Sequence, err)
	}
	if g, err := s.UpdateMeta(ctx, "a", sessiondb.MetaPatch{Project: ptr("/srv/other")}); err != nil || g.Project != "/srv/other" || g.Sequence != seq+1 {
		t.Errorf("project patch: %q seq %d, %v", g.Project, g.Sequence, err)
	}
	if _, err := s.Fork(ctx, "a", 1, "a-fork"); err != nil {
		t.Fatal(err)
	}
	if g := mustGet(t, s, "a-fork"); g.Project != "/srv/other" {
		t.Errorf("fork: project %q, want the parent's", g.Project)
	}
	if g, err := s.UpdateMeta(ctx, "a", sessiondb.MetaPatch{Project: ptr("")}); err != nil || g.Project != "" {
		t.Errorf("clearing the project: %q, %v", g.Project, err)
	}
	if _, err := s.SaveFull(ctx, sessiondb.Session{ID: "a", Project: "/saved"}, msgs(1, 1), nil); err != nil {
		t.Fatal(err)
	}
	if g := mustGet(t, s, "a"); g.Project != "/saved" {
		t.Errorf("SaveFull: project %q", g.Project)
	}
	if g := mustSession(t, s, "none", 1); g.Project != "" {
		t.Errorf("a session without a project: %q", g.Project)
	}
}

// projectSessions creates three sessions of two projects and one without.
func projectSessions(t *testing.T, s sessiondb.Store) {
	t.Helper()
	at := base
	for _, p := range []struct{ id, project, title, text string }{
		{"oc1", "/Users/me/src/OpenCore", "first", "deploy the harbour"},
		{"oc2", "/Users/me/src/OpenCore", "second", "deploy the lighthouse"},
		{"hv", "/home/me/harvest", "OpenCore notes", "deploy the barn"},
		{"np", "", "no project", "deploy nothing"},
	} {
		at = at.Add(time.Hour)
		mustCommit(t, s, p.id, sessiondb.Commit{
			Create: &sessiondb.Session{Project: p.project, Title: p.title, CreatedAt: at, UpdatedAt: at},
			Append: []sessiondb.Entry{{Body: raw(`{"role":"user","content":"` + p.text + `"}`), CreatedAt: at}},
			Usage:  []sessiondb.Usage{{Model: "m", InputTokens: 10, OutputTokens: 1, Cost: 1, CreatedAt: at}},
			Now:    at,
		})
	}
}

// testProjectList: ListOptions.Project keeps the sessions whose project
// contains it, ignoring ASCII case; Query finds a project too.
func testProjectList(t *testing.T, s sessiondb.Store) {
	projectSessions(t, s)
	for _, tc := range []struct {
		opts sessiondb.ListOptions
		want []string
	}{
		{sessiondb.ListOptions{Project: "OpenCore"}, []string{"oc2", "oc1"}},
		{sessiondb.ListOptions{Project: "opencore"}, []string{"oc2", "oc1"}},
		{sessiondb.ListOptions{Project: "/home/me"}, []string{"hv"}},
		{sessiondb.ListOptions{Project: "%"}, nil},
		{sessiondb.ListOptions{Project: "nowhere"}, nil},
		// Query: title, alias or project.
		{sessiondb.ListOptions{Query: "OpenCore"}, []string{"hv", "oc2", "oc1"}},
		{sessiondb.ListOptions{Query: "OpenCore", Project: "OpenCore"}, []string{"oc2", "oc1"}},
		{sessiondb.ListOptions{Query: "second", Project: "OpenCore"}, []string{"oc2"}},
	} {
		if got := idsOf(listAll(t, s, tc.opts)); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("List(%+v) = %q, want %q", tc.opts, got, tc.want)
		}
	}
}

// testProjectUsage: UsageReport groups by project and filters by it.
func testProjectUsage(t *testing.T, s sessiondb.Store) {
	projectSessions(t, s)
	rows, err := s.UsageReport(bg(t), sessiondb.UsageQuery{ByProject: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, r := range rows {
		got[r.Project] += r.Calls
	}
	if want := map[string]int64{"/Users/me/src/OpenCore": 2, "/home/me/harvest": 1, "": 1}; !cmp.Equal(got, want) {
		t.Errorf("calls by project %v, want %v", got, want)
	}
	rows, err = s.UsageReport(bg(t), sessiondb.UsageQuery{BySession: true, Project: "opencore"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.SessionID)
	}
	if !cmp.Equal(ids, []string{"oc1", "oc2"}) {
		t.Errorf("sessions of project opencore with usage: %q", ids)
	}
}

// testProjectSearch: SearchOptions.Project keeps the hits of the
// sessions of that project.
func testProjectSearch(t *testing.T, s sessiondb.Store) {
	projectSessions(t, s)
	for _, tc := range []struct {
		project string
		want    string
	}{
		{"", "hv/1 np/1 oc1/1 oc2/1"},
		{"OpenCore", "oc1/1 oc2/1"},
		{"harvest", "hv/1"},
		{"_", ""},
	} {
		hits, err := s.Search(bg(t), "deploy", sessiondb.SearchOptions{Project: tc.project})
		if err != nil {
			t.Fatal(err)
		}
		ids := []string{}
		for _, h := range hits {
			ids = append(ids, h.SessionID+"/1")
		}
		slices.Sort(ids)
		if got := strings.Join(ids, " "); got != tc.want {
			t.Errorf("Search(deploy, project %q) = %q, want %q", tc.project, got, tc.want)
		}
	}
}
