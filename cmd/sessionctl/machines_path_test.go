package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMachinesSamePath: machines that import files at the same path into
// one database (two homes of one layout, or one home synced) each have
// their own import record of the path. The machines take turns on one
// folder, whose files are swapped between the imports as each machine
// would see them:
//   - the file synced to every machine (the same bytes, then grown on B)
//     stays one session with one log: no entry twice;
//   - a picoclaw file of A's session ID with other content on B and on C
//     is kept apart, once per machine, under derived IDs, and reported;
//   - a Claude Code file at the same path with other content on B (its
//     session ID is its file name) is another session: both are
//     imported, A's neither replaced nor appended to;
//   - importing everything again on each machine writes nothing.
func TestMachinesSamePath(t *testing.T) {
	forBackends(t, func(t *testing.T, db string) {
		root := t.TempDir()
		pico := filepath.Join(root, "picoclaw")
		synced := filepath.Join(pico, "agent_main_cli_direct_synced.jsonl")
		own := filepath.Join(pico, "agent_main_cli_direct_own.jsonl")
		projects := filepath.Join(root, "claude", "projects")
		const ccA = "5c2d8e41-0000-4000-8000-000000000002"
		cc := filepath.Join(projects, "-home-dev-proj", ccA+".jsonl")
		ccBytes, err := os.ReadFile(filepath.Join("..", "..", "testdata", "claudecode", "projects", "-home-dev-proj", ccA+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		// view puts the folder as machine m sees it: each file a new
		// inode (another machine's), every modification time one.
		var grown []byte // the synced file once it grew
		view := func(m string) {
			t.Helper()
			lines := func(path, tag string, n int) {
				writeLines(t, path+".tmp", tag, n)
				if err := os.Rename(path+".tmp", path); err != nil {
					t.Fatal(err)
				}
			}
			if grown != nil {
				putFile(t, synced, grown)
			} else {
				lines(synced, "synced", 6)
			}
			switch m {
			case "m-a":
				lines(own, "a", 3)
				putFile(t, cc, ccBytes)
			case "m-b":
				lines(own, "b, not a", 5)
				putFile(t, cc, []byte(strings.Replace(string(ccBytes), "Rename the package.", "Rename the module.", 1)))
			case "m-c":
				lines(own, "c, neither", 7)
				if err := os.Remove(cc); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
			for _, p := range []string{synced, own, cc} {
				if err := os.Chtimes(p, pinned, pinned); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
		}
		importOn := func(m string, wantCode int) string {
			t.Helper()
			r := sessionctl(t, db, "--machine", m, "import", pico, projects)
			if r.code != wantCode {
				t.Fatalf("import on %s: exit %d, want %d\n%s%s", m, r.code, wantCode, r.stdout, r.stderr)
			}
			return r.stdout
		}

		view("m-a")
		importOn("m-a", 0)
		view("m-b")
		out := importOn("m-b", exitProblems)
		if !strings.Contains(out, `already exists`) || !strings.Contains(out, `on machine "m-a"`) {
			t.Errorf("machine B's import does not report A's session under the same ID:\n%s", out)
		}
		view("m-c")
		importOn("m-c", exitProblems)

		type want struct {
			machine    string
			msgs, logs int64
		}
		check := func(when string, wants map[string]want) {
			t.Helper()
			got := listJSON(t, db)
			derived := map[string]want{}
			for id, s := range got {
				if w, ok := wants[id]; ok {
					if s.Machine != w.machine || s.MessageCount != w.msgs || s.LastSeq != w.logs {
						t.Errorf("%s: %s from %q with %d messages, log %d; want %q, %d, %d", when, id, s.Machine, s.MessageCount, s.LastSeq, w.machine, w.msgs, w.logs)
					}
					continue
				}
				if id == ccA || strings.HasPrefix(id, ccA+"~") {
					continue // ccSessions
				}
				if !strings.HasPrefix(id, "agent_main_cli_direct_own~") {
					t.Errorf("%s: unexpected session %s (%s, %d messages)", when, id, s.Machine, s.MessageCount)
					continue
				}
				derived[s.Machine] = want{s.Machine, s.MessageCount, s.LastSeq}
			}
			for id := range wants {
				if _, ok := got[id]; !ok {
					t.Errorf("%s: session %s missing", when, id)
				}
			}
			if derived["m-b"] != (want{"m-b", 5, 5}) || derived["m-c"] != (want{"m-c", 7, 7}) || len(derived) != 2 {
				t.Errorf("%s: A's ID with other content kept apart as %v, want once for m-b (5) and once for m-c (7)", when, derived)
			}
		}
		wants := map[string]want{
			"agent_main_cli_direct_synced": {"m-a", 6, 6},
			"agent_main_cli_direct_own":    {"m-a", 3, 3},
		}
		ccSessions := func() {
			t.Helper()
			var a, b []listed
			for id, s := range listJSON(t, db) {
				switch {
				case id == ccA:
					a = append(a, s)
				case strings.HasPrefix(id, ccA+"~"):
					b = append(b, s)
				}
			}
			if len(a) != 1 || len(b) != 1 || a[0].Machine != "m-a" || b[0].Machine != "m-b" || a[0].MessageCount == 0 ||
				a[0].MessageCount != b[0].MessageCount || a[0].LastSeq != b[0].LastSeq {
				t.Errorf("Claude Code sessions at one path: A's %+v, B's %+v; want one each, whole, each its machine's", a, b)
			}
		}
		check("after A, B and C imported", wants)
		ccSessions()

		// B's copy of the synced file grows; B imports it, then A's
		// copy gets the same lines and A imports.
		view("m-b")
		appendTo(t, synced, `{"role":"user","content":"more from b"}`+"\n"+`{"role":"assistant","content":"ok"}`+"\n")
		if grown, err = os.ReadFile(synced); err != nil {
			t.Fatal(err)
		}
		view("m-b")
		importOn("m-b", 0)
		view("m-a")
		importOn("m-a", 0)
		wants["agent_main_cli_direct_synced"] = want{"m-a", 8, 8}
		check("after the synced file grew on B, then on A", wants)

		for _, m := range []string{"m-a", "m-b", "m-c"} {
			view(m)
			r := sessionctl(t, db, "--machine", m, "import", pico, projects)
			if r.code != 0 && r.code != exitProblems {
				t.Fatalf("import again on %s: exit %d\n%s", m, r.code, r.stderr)
			}
			if !strings.Contains(r.stdout, " 0 sessions, 0 entries") {
				t.Errorf("import again on %s wrote something:\n%s", m, r.stdout)
			}
		}
		check("after importing everything again", wants)
		ccSessions()

		// doctor counts the records per machine: the synced file, the
		// picoclaw file and the Claude Code file are each recorded by
		// more than one machine.
		doc := sessionctl(t, db, "doctor").mustSucceed(t).stdout
		if !strings.Contains(doc, "from 3 machine(s); 3 path(s) recorded by more than one machine; 0 of no machine") {
			t.Errorf("doctor:\n%s", doc)
		}

		// copy carries every machine's record of a path, and a second
		// copy into the same target changes none of them.
		records := func(db string) string {
			t.Helper()
			return sessionctl(t, db, "sql", "--csv", "SELECT machine, path, session_id, sha256, byte_offset FROM source_files ORDER BY machine, path").mustSucceed(t).stdout
		}
		target := filepath.Join(t.TempDir(), "copy.db")
		for range 2 {
			sessionctl(t, "", "copy", "--from", db, "--to", target).mustSucceed(t)
			if got, want := records(target), records(db); got != want || strings.Count(want, "\n") != 8 {
				t.Errorf("records after copy:\n%s\nwant (8 rows and a header):\n%s", got, want)
			}
		}
	})
}

// pinned is the modification time of every file TestMachinesSamePath puts.
var pinned = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// putFile writes b to path as a new file (a new inode, as another
// machine's copy is).
func putFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".tmp", b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
}
