package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// hostileText holds what an archive author or a tool output can put in a
// title or a message: CSI (clear screen), OSC 0 (window title), OSC 52
// (clipboard) ended by BEL, a C1 CSI, a bidi override, invalid UTF-8.
const hostileText = "evil\x1b[2J\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\u009b31m\u202egnp.exe\xff"

// rawTerminalBytes lists what must never reach a terminal from stored text.
var rawTerminalBytes = []string{"\x1b", "\x07", "\u009b", "\u202e", "\xff"}

func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, tab\tand\nnewline": "plain text, tab\tand\nnewline",
		"a\x1b[31mb":                    `a\x1b[31mb`,
		"bell\x07":                      `bell\x07`,
		"c1\u009bx":                     `c1\u009bx`,
		"rlo\u202eabc":                  `rlo\u202eabc`,
		"bad\xffutf8":                   `bad\xffutf8`,
		"del\x7f":                       `del\x7f`,
		"ünïcode ✓":                     "ünïcode ✓",
	} {
		if got := visible(in); got != want {
			t.Errorf("visible(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHumanOutputNeutralisesEscapes (issue 13 item 3): list, show, search,
// sql and checkpoint list print stored text with its terminal controls made
// visible; --json keeps it exact; rename refuses control characters.
func TestHumanOutputNeutralisesEscapes(t *testing.T) {
	db := tempDB(t)
	body, _ := json.Marshal(map[string]string{"role": "user", "content": "findme " + hostileText})
	withStore(t, db, func(st *sqlstore.Store) {
		ctx := context.Background()
		_, err := st.Commit(ctx, "h1", sessiondb.Commit{
			Create: &sessiondb.Session{Title: hostileText, Summary: hostileText},
			Append: []sessiondb.Entry{sessiondb.Message(string(body))},
			State:  mustRaw(t, map[string]string{"note": hostileText}),
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.SaveCheckpoint(ctx, sessiondb.Checkpoint{SessionID: "h1", Label: hostileText}); err != nil {
			t.Fatal(err)
		}
	})
	for _, args := range [][]string{
		{"list"},
		{"show", "h1", "--state"},
		{"search", "findme"},
		{"sql", "SELECT title, summary FROM sessions"},
		{"checkpoint", "list", "h1"},
	} {
		r := sessionctl(t, db, args...).mustSucceed(t)
		for _, b := range rawTerminalBytes {
			if strings.Contains(r.stdout, b) {
				t.Errorf("%v printed raw %q:\n%q", args, b, r.stdout)
			}
		}
		if !strings.Contains(r.stdout, `\x1b`) {
			t.Errorf("%v does not show the escape visibly:\n%q", args, r.stdout)
		}
	}
	var got []map[string]any
	sessionctl(t, db, "list", "--json").mustSucceed(t).decode(t, &got)
	if len(got) != 1 || got[0]["title"] != strings.ToValidUTF8(hostileText, "\uFFFD") && got[0]["title"] != hostileText {
		t.Errorf("--json title = %q, want the stored bytes", got[0]["title"])
	}
	sessionctl(t, db, "rename", "h1", "x\x1b]0;y\x07").mustFail(t, exitUsage, "control")
	sessionctl(t, db, "rename", "h1", "a\u202eb").mustFail(t, exitUsage, "control")
	sessionctl(t, db, "rename", "h1", "Fine title ✓").mustSucceed(t)
}

func mustRaw(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
