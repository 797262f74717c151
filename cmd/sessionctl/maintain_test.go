package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

func TestTruncatePruneVacuum(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	r := sessionctl(t, db, "truncate", "aussie", "--keep", "2").mustSucceed(t)
	if !strings.Contains(r.stdout, "truncated chat: transcript now 2 messages") {
		t.Errorf("truncate: %q", r.stdout)
	}
	if got := transcriptBodies(t, db, "chat"); len(got) != 2 || got[1] != chatBodies[4] {
		t.Errorf("after truncate: %v", got)
	}
	sessionctl(t, db, "truncate", "nope", "--keep", "1").mustFail(t, exitError, `no session "nope"`)
	sessionctl(t, db, "truncate", "chat", "--keep", "-3").mustFail(t, exitUsage, "--keep must be >= 0")

	r = sessionctl(t, db, "prune", "chat").mustSucceed(t)
	if r.stdout != "pruned 3 entries from chat\n" {
		t.Errorf("prune: %q", r.stdout)
	}
	var all []json.RawMessage
	sessionctl(t, db, "show", "chat", "--json", "--all-entries").mustSucceed(t).decode(t, &all)
	if len(all) != 2 {
		t.Errorf("after prune, %d raw entries remain, want 2", len(all))
	}
	// prune --all deletes history: off a terminal it needs --yes (issue
	// 13 item 7).
	sessionctl(t, db, "prune", "--all").mustFail(t, exitUsage, "pass --yes")
	r = sessionctl(t, db, "prune", "--all", "--yes").mustSucceed(t)
	if r.stdout != "pruned 0 entries from 3 sessions\n" {
		t.Errorf("prune --all: %q", r.stdout)
	}
	sessionctl(t, db, "prune", "nope").mustFail(t, exitError, `no session "nope"`)

	r = sessionctl(t, db, "vacuum").mustSucceed(t)
	if !strings.HasPrefix(r.stdout, "vacuumed "+db+": ") {
		t.Errorf("vacuum: %q", r.stdout)
	}
	sessionctl(t, db, "doctor").mustSucceed(t)
}

func TestFork(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	r := sessionctl(t, db, "fork", "aussie", "--at", "3", "--id", "chat-retry").mustSucceed(t)
	if r.stdout != "chat-retry\n" {
		t.Errorf("fork prints %q, want the new ID", r.stdout)
	}
	if got := transcriptBodies(t, db, "chat-retry"); strings.Join(got, "\n") != strings.Join(chatBodies[:3], "\n") {
		t.Errorf("fork at 3: %v", got)
	}
	var s sessionJSON
	sessionctl(t, db, "fork", "chat", "--json").mustSucceed(t).decode(t, &s)
	if s.ParentID != "chat" || s.ID == "" || s.ID == "chat" {
		t.Errorf("fork --json: %+v", s)
	}
	if got := transcriptBodies(t, db, s.ID); len(got) != len(chatBodies) {
		t.Errorf("fork now: %d messages", len(got))
	}
	sessionctl(t, db, "fork", "chat", "--id", "chat-retry").mustFail(t, exitError, "choose another ID")
	sessionctl(t, db, "fork", "nope").mustFail(t, exitError, `no session "nope"`)
}

func TestRename(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	r := sessionctl(t, db, "rename", "aussie", "Canberra trivia").mustSucceed(t)
	if r.stdout != "renamed chat to \"Canberra trivia\"\n" {
		t.Errorf("rename: %q", r.stdout)
	}
	var got []sessionJSON
	sessionctl(t, db, "list", "--json", "--query", "trivia").mustSucceed(t).decode(t, &got)
	if len(got) != 1 || got[0].ID != "chat" {
		t.Errorf("after rename: %+v", got)
	}
	sessionctl(t, db, "rename", "nope", "x").mustFail(t, exitError, `no session "nope"`)
	sessionctl(t, db, "rename", "chat").mustFail(t, exitUsage, "expected 2 argument(s)")
}

func sessionIDs(t *testing.T, db string) string {
	t.Helper()
	var got []sessionJSON
	sessionctl(t, db, "list", "--json").mustSucceed(t).decode(t, &got)
	var ids []string
	for _, s := range got {
		ids = append(ids, s.ID)
	}
	return strings.Join(ids, ",")
}

func TestDelete(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	// Not a terminal and no --yes: refused, nothing deleted.
	sessionctl(t, db, "delete", "chat").mustFail(t, exitUsage, "pass --yes")
	// One unknown ID: nothing deleted.
	sessionctl(t, db, "delete", "--yes", "notes", "nope").mustFail(t, exitError, `no session "nope"`)
	if got := sessionIDs(t, db); got != "chat,notes,empty" {
		t.Fatalf("sessions after refused deletes: %s", got)
	}
	r := sessionctl(t, db, "delete", "--yes", "aussie", "notes", "chat").mustSucceed(t)
	if r.stdout != "deleted chat\ndeleted notes\n" {
		t.Errorf("delete: %q", r.stdout)
	}
	if got := sessionIDs(t, db); got != "empty" {
		t.Errorf("sessions after delete: %s", got)
	}
	// Everything of the session is gone, not only the session row.
	r = sessionctl(t, db, "sql", "SELECT (SELECT count(*) FROM entries) + (SELECT count(*) FROM usage) + (SELECT count(*) FROM states) + (SELECT count(*) FROM session_aliases) AS n").mustSucceed(t)
	if !strings.Contains(r.stdout, "\n0\n") {
		t.Errorf("rows left after delete:\n%s", r.stdout)
	}
}

func TestDeleteConfirmation(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	// A terminal stdin gets a prompt; only y/yes agrees.
	runTTY := func(answer string, args ...string) result {
		var out, errb strings.Builder
		a := &app{
			ctx: context.Background(), stdin: strings.NewReader(answer), stdout: &out, stderr: &errb,
			getenv: func(string) string { return "" }, stdinTTY: true,
		}
		code := a.run(append([]string{"--db", db}, args...))
		return result{code: code, stdout: out.String(), stderr: errb.String()}
	}
	r := runTTY("n\n", "delete", "chat")
	if r.code != exitError || !strings.Contains(r.stderr, "delete 1 session(s): chat? [y/N]") || !strings.Contains(r.stderr, "aborted; nothing deleted") {
		t.Errorf("answer n: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runTTY("", "delete", "chat") // EOF
	if r.code != exitError {
		t.Errorf("EOF: exit %d", r.code)
	}
	if got := sessionIDs(t, db); got != "chat,notes,empty" {
		t.Fatalf("sessions after declined deletes: %s", got)
	}
	r = runTTY("yes\n", "delete", "chat")
	if r.code != 0 || r.stdout != "deleted chat\n" {
		t.Errorf("answer yes: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if got := sessionIDs(t, db); got != "notes,empty" {
		t.Errorf("sessions after delete: %s", got)
	}
}

func TestCheckpoints(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	r := sessionctl(t, db, "checkpoint", "create", "aussie", "--label", "after answer", "--id", "cp1").mustSucceed(t)
	if r.stdout != "cp1\n" {
		t.Errorf("checkpoint create: %q", r.stdout)
	}
	// The session moves on: more messages, a new state, a truncation.
	ctx := context.Background()
	withStore(t, db, func(st *sqlstore.Store) {
		if _, err := st.Commit(ctx, "chat", sessiondb.Commit{
			Append: []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"And New Zealand?"}`)},
			State:  json.RawMessage(`{"step": 3}`),
		}); err != nil {
			t.Fatal(err)
		}
	})
	sessionctl(t, db, "truncate", "chat", "--keep", "1").mustSucceed(t)

	var cps []checkpointJSON
	sessionctl(t, db, "checkpoint", "list", "chat", "--json").mustSucceed(t).decode(t, &cps)
	if len(cps) != 1 || cps[0].ID != "cp1" || cps[0].AtSeq != 5 || cps[0].Label != "after answer" || !cps[0].HasState {
		t.Fatalf("checkpoint list: %+v", cps)
	}
	r = sessionctl(t, db, "checkpoint", "list", "chat").mustSucceed(t)
	if !strings.Contains(r.stdout, "cp1") || !strings.Contains(r.stdout, "after answer") {
		t.Errorf("checkpoint list table:\n%s", r.stdout)
	}
	r = sessionctl(t, db, "checkpoint", "list", "notes").mustSucceed(t)
	if r.stdout != "no checkpoints in notes\n" {
		t.Errorf("no checkpoints: %q", r.stdout)
	}

	// Restore as a fork: the original is untouched.
	r = sessionctl(t, db, "checkpoint", "restore", "cp1", "--id", "chat-cp1").mustSucceed(t)
	if r.stdout != "chat-cp1\n" {
		t.Errorf("restore prints %q", r.stdout)
	}
	if got := transcriptBodies(t, db, "chat-cp1"); strings.Join(got, "\n") != strings.Join(chatBodies, "\n") {
		t.Errorf("restored fork transcript: %v", got)
	}
	if got := transcriptBodies(t, db, "chat"); len(got) != 1 {
		t.Errorf("original changed by restore: %v", got)
	}
	var full struct {
		State     json.RawMessage `json:"state"`
		Interrupt json.RawMessage `json:"interrupt"`
	}
	sessionctl(t, db, "show", "chat-cp1", "--json", "--state").mustSucceed(t).decode(t, &full)
	if string(full.State) != `{"step": 2}` {
		t.Errorf("fork state = %s, want the checkpoint's", full.State)
	}

	// Rewind in place: same transcript and state as at the checkpoint,
	// the later history still in the log.
	r = sessionctl(t, db, "checkpoint", "restore", "cp1", "--in-place").mustSucceed(t)
	if !strings.Contains(r.stdout, "rewound chat to checkpoint cp1") {
		t.Errorf("restore --in-place: %q", r.stdout)
	}
	if got := transcriptBodies(t, db, "chat"); strings.Join(got, "\n") != strings.Join(chatBodies, "\n") {
		t.Errorf("rewound transcript: %v", got)
	}
	full.State, full.Interrupt = nil, nil
	sessionctl(t, db, "show", "chat", "--json", "--state", "--interrupt").mustSucceed(t).decode(t, &full)
	if string(full.State) != `{"step": 2}` {
		t.Errorf("after rewind: state %s", full.State)
	}
	var raw []json.RawMessage
	sessionctl(t, db, "show", "chat", "--json", "--all-entries").mustSucceed(t).decode(t, &raw)
	if len(raw) != 6+5 {
		t.Errorf("raw log after rewind: %d entries, want 11", len(raw))
	}

	sessionctl(t, db, "checkpoint", "restore", "nope").mustFail(t, exitError, `no checkpoint "nope"`)
	sessionctl(t, db, "checkpoint", "restore", "cp1", "--in-place", "--id", "x").mustFail(t, exitUsage, "exclude each other")
	sessionctl(t, db, "checkpoint", "list", "nope").mustFail(t, exitError, `no session "nope"`)
	sessionctl(t, db, "checkpoint", "restore", "cp1", "--id", "chat-cp1").mustFail(t, exitError, "choose another ID")
}

// TestCheckpointRewindAfterCompaction rewinds to a checkpoint taken while a
// compaction with summary messages was current.
func TestCheckpointRewindAfterCompaction(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	ctx := context.Background()
	summary := `{"role":"user","content":"Summary: asked about Australia's capital."}`
	withStore(t, db, func(st *sqlstore.Store) {
		if _, err := st.Compact(ctx, "chat", sessiondb.Compaction{KeepFromSeq: 4, Summary: []sessiondb.Entry{sessiondb.Message(summary)}}); err != nil {
			t.Fatal(err)
		}
	})
	want := append([]string{summary}, chatBodies[3:]...)
	if got := transcriptBodies(t, db, "chat"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("compacted transcript: %v", got)
	}
	sessionctl(t, db, "checkpoint", "create", "chat", "--id", "cp").mustSucceed(t)
	withStore(t, db, func(st *sqlstore.Store) {
		if _, err := st.SetHistory(ctx, "chat", []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"fresh start"}`)}); err != nil {
			t.Fatal(err)
		}
	})
	sessionctl(t, db, "checkpoint", "restore", "cp", "--in-place").mustSucceed(t)
	if got := transcriptBodies(t, db, "chat"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rewound transcript:\n%v\nwant:\n%v", got, want)
	}
}

// TestDoctorReportsPlantedTrigger (issue 13 item 10): doctor names a
// trigger planted on a sessiondb table, and writing commands refuse the
// database.
func TestDoctorReportsPlantedTrigger(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	rawExec(t, db, `CREATE TRIGGER sneaky AFTER INSERT ON entries BEGIN SELECT 1; END`)
	r := sessionctl(t, db, "doctor").mustFail(t, exitError, "check(s) failed")
	if !strings.Contains(r.stdout, "sneaky") {
		t.Errorf("doctor does not name the trigger:\n%s", r.stdout)
	}
	sessionctl(t, db, "rename", "chat", "x").mustFail(t, exitError, "sneaky")
}

// TestDoctorChecksPermissions (issue 13 item 16): doctor warns when the
// database or a backup is readable by others.
func TestDoctorChecksPermissions(t *testing.T) {
	db := missingDB(t) // created by Open here: its mode is the one checked
	seed(t, db)
	var checks []checkResult
	sessionctl(t, db, "doctor", "--json").mustSucceed(t).decode(t, &checks)
	if status := checkStatus(checks, "permissions"); status != checkOK {
		t.Errorf("permissions on a fresh database: %q", status)
	}
	if err := os.Chmod(db, 0o644); err != nil {
		t.Fatal(err)
	}
	r := sessionctl(t, db, "doctor", "--json").mustSucceed(t)
	checks = nil
	r.decode(t, &checks)
	if status := checkStatus(checks, "permissions"); status != checkWarn || !strings.Contains(r.stdout, "0644") {
		t.Errorf("permissions of a 0644 database: %q\n%s", status, r.stdout)
	}
}

func checkStatus(checks []checkResult, name string) string {
	for _, c := range checks {
		if c.Check == name {
			return c.Status
		}
	}
	return ""
}

// TestSecureDeleteAndKeepBackups (item 16): delete --secure-delete runs,
// and vacuum --keep-backups removes all but the newest backups.
func TestSecureDeleteAndKeepBackups(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	sessionctl(t, db, "delete", "--yes", "--secure-delete", "notes").mustSucceed(t)
	for range 3 {
		withStore(t, db, func(st *sqlstore.Store) {
			if _, err := st.Backup(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	}
	r := sessionctl(t, db, "vacuum", "--keep-backups", "1").mustSucceed(t)
	if strings.Count(r.stdout, "removed backup ") != 2 {
		t.Errorf("vacuum --keep-backups 1:\n%s", r.stdout)
	}
	if baks, _ := filepath.Glob(db + ".bak-v*"); len(baks) != 1 {
		t.Errorf("backups left: %v", baks)
	}
	sessionctl(t, db, "vacuum", "--keep-backups", "-2").mustFail(t, exitUsage, "0 or more")
}
