package main

import (
	"database/sql"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// listed is a session as list --json gives it.
type listed struct {
	ID           string `json:"id"`
	MessageCount int64  `json:"message_count"`
	LastSeq      int64  `json:"last_seq"`
	SourcePath   string `json:"source_path"`
	Machine      string `json:"machine"`
	SourceSeenAt string `json:"source_seen_at"`
	SourceGoneAt string `json:"source_gone_at"`
	Archived     bool   `json:"archived"`
}

func listJSON(t *testing.T, db string, args ...string) map[string]listed {
	t.Helper()
	out := sessionctl(t, db, append([]string{"list", "--limit", "0", "--json"}, args...)...).mustSucceed(t).stdout
	var list []listed
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	m := map[string]listed{}
	for _, s := range list {
		m[s.ID] = s
	}
	return m
}

// agentHome copies the picoclaw sample archive (17 sessions, every file
// clean) and makes the transcripts of three sessions 40 days old.
func agentHome(t *testing.T) (dir string, old []string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "picoclaw")
	copyTree(t, filepath.Join("..", "..", "testdata", "picoclaw"), dir)
	then := time.Now().AddDate(0, 0, -40)
	for _, base := range []string{"agent_main_cli_direct_alice", "agent_main_cli_direct_bigfile", "agent_main_feishu_group_oc_all_fields"} {
		p := filepath.Join(dir, base+".jsonl")
		if err := os.Chtimes(p, then, then); err != nil {
			t.Fatal(err)
		}
		old = append(old, p)
	}
	return dir, old
}

// cleanup does what an agent's cleanup period does (Claude Code's
// cleanupPeriodDays): it deletes the transcripts (.jsonl) not modified for
// more than days days. picoclaw's .meta.json files stay, as they do when a
// user clears the history files. It returns the paths deleted.
func cleanup(t *testing.T, dir string, days int) []string {
	t.Helper()
	limit := time.Now().AddDate(0, 0, -days)
	var gone []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.ModTime().Before(limit) {
			gone = append(gone, p)
			return os.Remove(p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return gone
}

// checkKept checks that every session of before is in after with the same
// message count, and that exactly the sessions of the files in gone are
// marked archived.
func checkKept(t *testing.T, before, after map[string]listed, gone []string) {
	t.Helper()
	isGone := map[string]bool{}
	for _, p := range gone {
		isGone[p] = true
	}
	archived := 0
	for id, b := range before {
		a, ok := after[id]
		switch {
		case !ok:
			t.Errorf("session %s is gone from the database", id)
			continue
		case a.MessageCount != b.MessageCount:
			t.Errorf("session %s: %d messages, had %d", id, a.MessageCount, b.MessageCount)
		case a.Archived != isGone[a.SourcePath]:
			t.Errorf("session %s (%s): archived %v, its file deleted %v", id, a.SourcePath, a.Archived, isGone[a.SourcePath])
		case a.Archived && (a.SourceGoneAt == "" || a.SourceSeenAt == ""):
			t.Errorf("session %s: archived without its marks (seen %q, gone %q)", id, a.SourceSeenAt, a.SourceGoneAt)
		}
		if a.Archived {
			archived++
		}
	}
	if len(after) != len(before) {
		t.Errorf("%d sessions after the cleanup, %d before", len(after), len(before))
	}
	if archived != len(gone) {
		t.Errorf("%d sessions archived, %d files deleted", archived, len(gone))
	}
}

// TestVanishedSourcesStayImport runs an agent-style cleanup (files older
// than 30 days deleted) between two imports: no session loses a message,
// the three whose transcripts went are marked as existing only here, list
// and stats say so, prune --all leaves them whole, and a file put back
// clears its mark. It holds the picoclaw case of issue 43: a .jsonl
// deleted while its .meta.json stays used to make the next import replace
// the session with an empty one, which prune then deleted.
func TestVanishedSourcesStayImport(t *testing.T) {
	forBackends(t, func(t *testing.T, db string) {
		dir, old := agentHome(t)
		sessionctl(t, db, "--machine", "box-a", "import", dir).mustSucceed(t)
		before := listJSON(t, db)
		if len(before) != 17 {
			t.Fatalf("%d sessions imported, want 17", len(before))
		}
		for id, s := range before {
			if s.Machine != "box-a" || s.Archived || s.SourceSeenAt == "" {
				t.Fatalf("session %s after the first import: machine %q, archived %v, seen %q", id, s.Machine, s.Archived, s.SourceSeenAt)
			}
		}
		saved := map[string][]byte{}
		for _, p := range old {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			saved[p] = b
		}

		gone := cleanup(t, dir, 30)
		if len(gone) != 3 {
			t.Fatalf("the cleanup deleted %v, want the 3 old transcripts", gone)
		}
		// Another machine's import of the same paths marks nothing: a file
		// missing there says nothing of box-a's.
		sessionctl(t, db, "--machine", "box-b", "import", dir).mustSucceed(t)
		if got := listJSON(t, db, "--archived"); len(got) != 0 {
			t.Errorf("box-b's import marked %d of box-a's sessions gone", len(got))
		}
		out := sessionctl(t, db, "--machine", "box-a", "import", dir).mustSucceed(t).stdout
		if !strings.Contains(out, "kept: 3 session(s) whose source is gone") {
			t.Errorf("the import does not say it kept 3 sessions:\n%s", out)
		}
		after := listJSON(t, db)
		checkKept(t, before, after, gone)

		// The marks are shown.
		table := sessionctl(t, db, "list", "--limit", "0").mustSucceed(t).stdout
		if !strings.Contains(table, "SOURCE") || strings.Count(table, "gone "+time.Now().UTC().Format("2006-01-02")) != 3 {
			t.Errorf("list does not mark the 3 sessions:\n%s", table)
		}
		if got := listJSON(t, db, "--archived"); len(got) != 3 {
			t.Errorf("list --archived: %d sessions, want 3", len(got))
		}
		var st statsReport
		if err := json.Unmarshal([]byte(sessionctl(t, db, "stats", "--json").mustSucceed(t).stdout), &st); err != nil {
			t.Fatal(err)
		}
		var wantMsgs int64
		for _, s := range after {
			if s.Archived {
				wantMsgs += s.MessageCount
			}
		}
		if len(st.Archived) != 1 || st.Archived[0].Format != "picoclaw" || st.Archived[0].Sessions != 3 || st.Archived[0].Messages != wantMsgs || wantMsgs == 0 {
			t.Errorf("stats only_in_sessiondb = %+v, want picoclaw: 3 sessions, %d messages", st.Archived, wantMsgs)
		}

		// Importing again and pruning change nothing.
		sessionctl(t, db, "--machine", "box-a", "import", dir).mustSucceed(t)
		sessionctl(t, db, "prune", "--all", "--yes").mustSucceed(t)
		checkKept(t, before, listJSON(t, db), gone)

		// A file put back is seen again.
		p := gone[0]
		if err := os.WriteFile(p, saved[p], 0o644); err != nil {
			t.Fatal(err)
		}
		sessionctl(t, db, "--machine", "box-a", "import", dir).mustSucceed(t)
		checkKept(t, before, listJSON(t, db), gone[1:])
	})
}

// TestVanishedSourcesStayWatch runs the same cleanup under a running
// watcher: it reports the files deleted, keeps every session whole and
// marks the three.
func TestVanishedSourcesStayWatch(t *testing.T) {
	forBackends(t, func(t *testing.T, db string) {
		dir, _ := agentHome(t)
		sessionctl(t, db, "import", dir).mustSucceed(t)
		before := listJSON(t, db)
		out, stop := startWatchCmd(t, db, "--json", dir)
		waitOutput(t, out, `"event":"catch-up"`)
		gone := cleanup(t, dir, 30)
		deadline := time.Now().Add(30 * time.Second)
		for len(listJSON(t, db, "--archived")) < len(gone) {
			if time.Now().After(deadline) {
				t.Fatalf("the watcher marked %d sessions, want %d; its output:\n%s", len(listJSON(t, db, "--archived")), len(gone), out.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
		// Let it see the .meta.json files left behind (each is imported
		// on its own, as a new file, once its folder has been quiet for
		// NewSettle), then stop it.
		for _, g := range gone {
			waitOutput(t, out, `"event":"import","path":"`+strings.TrimSuffix(g, ".jsonl")+`.meta.json"`)
		}
		if code := stop(); code != 0 {
			t.Fatalf("watch exited %d", code)
		}
		checkKept(t, before, listJSON(t, db), gone)
		sessionctl(t, db, "prune", "--all", "--yes").mustSucceed(t)
		checkKept(t, before, listJSON(t, db), gone)
	})
}

// TestVanishedOpencodeRow: a session removed from opencode's own database
// (opencode session delete, or its store cleaned up) stays whole in
// sessiondb and is marked; the other one is not.
func TestVanishedOpencodeRow(t *testing.T) {
	src := untarCorpus(t, filepath.Join("..", "..", "testdata", "agents", "opencode", "home.tar.gz"))
	db := filepath.Join(t.TempDir(), "s.db")
	sessionctl(t, db, "import", src).mustSucceed(t)
	before := listJSON(t, db)
	const removed = "ses_db4d609d9ffei6zjaIrZe0O5hA"
	if len(before) != 2 || before[removed].MessageCount == 0 {
		t.Fatalf("imported %+v", before)
	}
	oc, err := sql.Open("sqlite", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`PRAGMA foreign_keys = ON`, `DELETE FROM session WHERE id = '` + removed + `'`} {
		if _, err := oc.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := oc.Close(); err != nil {
		t.Fatal(err)
	}
	sessionctl(t, db, "import", src).mustSucceed(t)
	after := listJSON(t, db)
	checkKept(t, before, after, []string{before[removed].SourcePath})
}

// writeLines writes n picoclaw messages, each naming tag, to path.
func writeLines(t *testing.T, path, tag string, n int) {
	t.Helper()
	var b strings.Builder
	for i := 0; i < n; i++ {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		b.WriteString(`{"role":"` + role + `","content":"` + tag + ` message ` + strings.Repeat("x", i) + `"}` + "\n")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMachinesIntoOnePostgres: three machines import their own folder
// into one PostgreSQL database. The file synced to two of them (machine B
// cannot read A's copy) stays one session with one log; a session of the
// same ID but other content on machine C is kept apart under a derived ID
// and reported; every session records its machine; importing everything
// again adds nothing.
func TestMachinesIntoOnePostgres(t *testing.T) {
	db := pgURL(t)
	root := t.TempDir()
	dirs := map[string]string{"m-a": filepath.Join(root, "a"), "m-b": filepath.Join(root, "b"), "m-c": filepath.Join(root, "c")}
	writeLines(t, filepath.Join(dirs["m-a"], "agent_main_cli_direct_synced.jsonl"), "synced", 6)
	writeLines(t, filepath.Join(dirs["m-a"], "agent_main_cli_direct_only-a.jsonl"), "a", 3)
	writeLines(t, filepath.Join(dirs["m-b"], "agent_main_cli_direct_synced.jsonl"), "synced", 6) // the same bytes
	writeLines(t, filepath.Join(dirs["m-b"], "agent_main_cli_direct_only-b.jsonl"), "b", 4)
	writeLines(t, filepath.Join(dirs["m-c"], "agent_main_cli_direct_only-a.jsonl"), "c, not a", 5) // A's ID, other content

	sessionctl(t, db, "--machine", "m-a", "import", dirs["m-a"]).mustSucceed(t)
	// Machine B does not see machine A's files.
	hidden := dirs["m-a"] + ".elsewhere"
	if err := os.Rename(dirs["m-a"], hidden); err != nil {
		t.Fatal(err)
	}
	sessionctl(t, db, "--machine", "m-b", "import", dirs["m-b"]).mustSucceed(t)
	if err := os.Rename(hidden, dirs["m-a"]); err != nil {
		t.Fatal(err)
	}
	r := sessionctl(t, db, "--machine", "m-c", "import", dirs["m-c"])
	if r.code != exitProblems || !strings.Contains(r.stdout, "already exists") {
		t.Fatalf("machine C's import of another session under A's ID: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	check := func(when string) {
		t.Helper()
		got := listJSON(t, db)
		want := map[string]struct {
			machine string
			msgs    int64
		}{"agent_main_cli_direct_synced": {"m-a", 6}, "agent_main_cli_direct_only-a": {"m-a", 3}, "agent_main_cli_direct_only-b": {"m-b", 4}}
		if len(got) != 4 {
			t.Errorf("%s: %d sessions, want 4: %v", when, len(got), got)
		}
		other := 0
		for id, s := range got {
			if w, ok := want[id]; ok {
				if s.Machine != w.machine || s.MessageCount != w.msgs {
					t.Errorf("%s: %s from %s with %d messages, want %s with %d", when, id, s.Machine, s.MessageCount, w.machine, w.msgs)
				}
				continue
			}
			if !strings.HasPrefix(id, "agent_main_cli_direct_only-a~") || s.Machine != "m-c" || s.MessageCount != 5 {
				t.Errorf("%s: unexpected session %s (%s, %d messages)", when, id, s.Machine, s.MessageCount)
			}
			other++
		}
		if other != 1 {
			t.Errorf("%s: machine C's session under A's ID kept %d times, want once apart", when, other)
		}
	}
	check("after the three imports")
	for _, m := range []string{"m-a", "m-b", "m-c"} {
		r := sessionctl(t, db, "--machine", m, "import", dirs[m])
		if r.code != 0 && r.code != exitProblems {
			t.Fatalf("second import on %s: exit %d\n%s", m, r.code, r.stderr)
		}
		if !strings.Contains(r.stdout, " 0 sessions, 0 entries") {
			t.Errorf("second import on %s wrote something:\n%s", m, r.stdout)
		}
	}
	check("after importing everything again")
	usage := sessionctl(t, db, "--machine", "m-b", "list").mustSucceed(t).stdout
	if strings.Count(usage, "agent_main_cli_direct") != 1 || !strings.Contains(usage, "only-b") {
		t.Errorf("list --machine m-b:\n%s", usage)
	}
}
