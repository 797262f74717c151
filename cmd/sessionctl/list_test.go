package main

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestList(t *testing.T) {
	db := tempDB(t)
	seed(t, db)

	var got []map[string]any
	sessionctl(t, db, "list", "--json").mustSucceed(t).decode(t, &got)
	if len(got) != 3 {
		t.Fatalf("list --json: %d sessions, want 3: %v", len(got), got)
	}
	// Newest first.
	var ids []string
	for _, s := range got {
		ids = append(ids, s["id"].(string))
	}
	if strings.Join(ids, ",") != "chat,notes,empty" {
		t.Errorf("order %v, want chat,notes,empty", ids)
	}
	chat := got[0]
	for _, k := range []string{"id", "title", "created_at", "updated_at", "message_count", "summary", "source_format"} {
		if _, ok := chat[k]; !ok {
			t.Errorf("list --json lacks %q: %v", k, chat)
		}
	}
	if chat["title"] != "Capital question" || chat["message_count"] != float64(5) ||
		chat["updated_at"] != "2026-03-20T15:30:00Z" || chat["created_at"] != "2026-03-20T14:30:00Z" {
		t.Errorf("chat: %v", chat)
	}
	if a, _ := chat["aliases"].([]any); len(a) != 1 || a[0] != "aussie" {
		t.Errorf("chat aliases: %v", chat["aliases"])
	}
	if got[2]["message_count"] != float64(0) {
		t.Errorf("empty message_count: %v", got[2]["message_count"])
	}

	// --limit and --query.
	got = nil
	sessionctl(t, db, "list", "--json", "--limit", "1").mustSucceed(t).decode(t, &got)
	if len(got) != 1 || got[0]["id"] != "chat" {
		t.Errorf("--limit 1: %v", got)
	}
	got = nil
	sessionctl(t, db, "list", "--json", "--query", "release").mustSucceed(t).decode(t, &got)
	if len(got) != 1 || got[0]["id"] != "notes" {
		t.Errorf("--query release: %v", got)
	}
	got = nil
	sessionctl(t, db, "list", "--json", "--query", "nothing-like-this").mustSucceed(t).decode(t, &got)
	if got == nil || len(got) != 0 {
		t.Errorf("no match must print [], got %v", got)
	}

	// The table.
	r := sessionctl(t, db, "list").mustSucceed(t)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 {
		t.Fatalf("table has %d lines, want header + 3:\n%s", len(lines), r.stdout)
	}
	if f := strings.Fields(lines[0]); strings.Join(f, " ") != "ID UPDATED (UTC) MSGS FORMAT PROJECT TITLE" {
		t.Errorf("header %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], "chat ") || !strings.Contains(lines[1], "2026-03-20 15:30:00") ||
		!strings.Contains(lines[1], " 5 ") || !strings.Contains(lines[1], "Capital question [aussie]") {
		t.Errorf("chat row %q", lines[1])
	}
	// Columns are aligned: every row's title starts at the header's column.
	col := strings.Index(lines[0], "TITLE")
	if !strings.HasPrefix(lines[1][col:], "Capital") || !strings.HasPrefix(lines[2][col:], "Release") {
		t.Errorf("columns not aligned:\n%s", r.stdout)
	}

	// A read command does not create a missing database (issue 13 item 4).
	// Nor does a command that changes existing sessions: a typo in --db
	// must not leave an empty database behind.
	missing := missingDB(t)
	for _, args := range [][]string{{"list"}, {"rename", "x", "y"}, {"delete", "--yes", "x"}, {"prune", "--all", "--yes"},
		{"fork", "x"}, {"checkpoint", "create", "x"}, {"checkpoint", "restore", "x"}} {
		sessionctl(t, missing, args...).mustFail(t, exitError, "does not exist")
		if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%v created %s (stat: %v)", args, missing, err)
		}
	}
	empty := missingDB(t)
	// An import of an empty directory creates the database and reports
	// the directory as a problem (issue 23 item 7).
	sessionctl(t, empty, "import", t.TempDir()).mustFail(t, exitProblems, "1 problem")
	r = sessionctl(t, empty, "list").mustSucceed(t)
	if !strings.Contains(r.stdout, "no sessions") {
		t.Errorf("empty database: %q", r.stdout)
	}
}

// TestListParent: --parent lists the forks of a session, and only them.
func TestListParent(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	sessionctl(t, db, "fork", "chat", "--at", "2", "--id", "chat-f1").mustSucceed(t)
	sessionctl(t, db, "fork", "chat", "--at", "4", "--id", "chat-f2").mustSucceed(t)
	sessionctl(t, db, "fork", "chat-f1", "--at", "1", "--id", "chat-f1-f").mustSucceed(t)

	var got []map[string]any
	sessionctl(t, db, "list", "--json", "--parent", "chat").mustSucceed(t).decode(t, &got)
	var ids []string
	for _, s := range got {
		ids = append(ids, s["id"].(string))
		if s["parent_id"] != "chat" {
			t.Errorf("fork %v: parent_id %v, want chat", s["id"], s["parent_id"])
		}
	}
	if strings.Join(ids, ",") != "chat-f2,chat-f1" {
		t.Errorf("list --parent chat: %v, want chat-f2,chat-f1 (newest first, no grandchild)", ids)
	}
	if len(got) == 2 && got[1]["fork_seq"] != float64(2) {
		t.Errorf("chat-f1 fork_seq %v, want 2", got[1]["fork_seq"])
	}
	r := sessionctl(t, db, "list", "--parent", "chat-f1").mustSucceed(t)
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], "chat-f1-f ") {
		t.Errorf("list --parent chat-f1:\n%s", r.stdout)
	}
	r = sessionctl(t, db, "list", "--parent", "notes").mustSucceed(t)
	if strings.TrimSpace(r.stdout) != `no forks of "notes"` {
		t.Errorf("list --parent notes: %q", r.stdout)
	}
	sessionctl(t, db, "list", "--parent", "bad\x01id").mustFail(t, exitError, "control character")
}
