package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectDimension: each imported session keeps its project (the
// agent's working directory: Claude Code's cwd, Codex's session_meta
// cwd), and list, search and usage show it, filter by it (--project, and
// list --query finds it) and report usage per project, on both backends.
func TestProjectDimension(t *testing.T) {
	forBackends(t, func(t *testing.T, db string) {
		dir := t.TempDir()
		for _, rel := range tableFixture {
			data, err := os.ReadFile(filepath.Join(testdata, "corpus", rel))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, dir, rel, string(data))
		}
		sessionctl(t, db, "import", dir).mustSucceed(t)

		var all []sessionJSON
		sessionctl(t, db, "list", "--json").mustSucceed(t).decode(t, &all)
		projects := map[string]string{}
		for _, s := range all {
			projects[s.ID] = s.Project
		}
		want := map[string]string{
			"2b06ee99-4165-4719-81dc-0bb91795fd1f": "/home/lena/yarrow-dune/home/lena/oasis-opal/topaz-desert",
			"7281b7bf-6255-40e1-9d41-24d6b0debd37": "/Users/cleo/work/src/violet-indigo.com/cleo/birch-autumn",
			"b6a167ee-d73d-4170-a2ae-1de13be39207": "/Users/bruno/crane-reed/maple-crane/.crane-reed/stone-tundra",
			"afd7a435-062b-401b-a687-7238fdfbb684": `E:\sandbox\crane-reed`,
			"019cc1e9-6537-70a3-a8cd-d2957e043dd4": `C:\Users\hana1`, // Codex: session_meta cwd
		}
		for id, p := range want {
			if projects[id] != p {
				t.Errorf("%s: project %q, want %q", id, projects[id], p)
			}
		}

		ids := func(args ...string) string {
			var got []sessionJSON
			sessionctl(t, db, append(args, "--json")...).mustSucceed(t).decode(t, &got)
			var out []string
			for _, s := range got {
				out = append(out, s.ID[:8])
			}
			return strings.Join(out, ",")
		}
		if got := ids("list", "--project", "crane-reed"); got != "b6a167ee,afd7a435" {
			t.Errorf("list --project crane-reed: %s", got)
		}
		if got := ids("list", "--query", "BIRCH-autumn"); got != "7281b7bf" {
			t.Errorf("list --query finds no project: %s", got)
		}
		if got := ids("list", "--project", "nowhere"); got != "" {
			t.Errorf("list --project nowhere: %s", got)
		}
		r := sessionctl(t, db, "list", "--project", "nowhere").mustSucceed(t)
		if !strings.HasPrefix(r.stdout, "no sessions match") {
			t.Errorf("list --project nowhere: %q", r.stdout)
		}

		var rep usageReport
		sessionctl(t, db, "usage", "project", "--tz", "UTC", "--json").mustSucceed(t).decode(t, &rep)
		if rep.Projects == nil || len(*rep.Projects) != 5 {
			t.Fatalf("usage project: %+v", rep.Projects)
		}
		var sum float64
		for _, p := range *rep.Projects {
			if want[p.Project] == "" && !inValues(want, p.Project) {
				t.Errorf("usage project: unknown project %q", p.Project)
			}
			if p.Sessions != 1 {
				t.Errorf("usage project %s: %d sessions", p.Project, p.Sessions)
			}
			sum += p.TotalCost
		}
		if d := sum - rep.Totals.TotalCost; d > 1e-9 || d < -1e-9 {
			t.Errorf("projects' costs sum to %v, the total is %v", sum, rep.Totals.TotalCost)
		}
		var one usageReport
		sessionctl(t, db, "usage", "session", "--tz", "UTC", "--project", "crane-reed", "--json").mustSucceed(t).decode(t, &one)
		if one.Sessions == nil || len(*one.Sessions) != 2 || one.Project != "crane-reed" {
			t.Errorf("usage session --project crane-reed: %+v", one.Sessions)
		}
		for _, s := range *one.Sessions {
			if !strings.Contains(s.Project, "crane-reed") {
				t.Errorf("usage session --project: session %s of project %q", s.SessionID, s.Project)
			}
		}

		var hits []hitJSON
		sessionctl(t, db, "search", "canyon", "--project", "topaz-desert", "--json").mustSucceed(t).decode(t, &hits)
		if len(hits) == 0 {
			t.Errorf("search --project topaz-desert found nothing")
		}
		for _, h := range hits {
			if h.SessionID != "2b06ee99-4165-4719-81dc-0bb91795fd1f" {
				t.Errorf("search --project topaz-desert: hit in %s", h.SessionID)
			}
		}
		show := sessionctl(t, db, "show", "afd7a435-062b-401b-a687-7238fdfbb684").mustSucceed(t).stdout
		if !strings.Contains(show, "project  E:\\sandbox\\crane-reed\n") {
			t.Errorf("show lacks the project:\n%s", show[:min(len(show), 600)])
		}
	})
}

func inValues(m map[string]string, v string) bool {
	for _, x := range m {
		if x == v {
			return true
		}
	}
	return false
}
