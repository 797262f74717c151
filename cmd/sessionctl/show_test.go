package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestShowJSONIsByteForByte(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	want := "[\n" + strings.Join(chatBodies, ",\n") + "\n]\n"
	for _, name := range []string{"chat", "aussie"} { // ID and alias
		r := sessionctl(t, db, "show", name, "--json").mustSucceed(t)
		if r.stdout != want {
			t.Errorf("show %s --json:\n%s\nwant:\n%s", name, r.stdout, want)
		}
		var elems []json.RawMessage
		r.decode(t, &elems)
		for i, e := range elems {
			if string(e) != chatBodies[i] {
				t.Errorf("element %d = %s, want %s", i, e, chatBodies[i])
			}
		}
	}
	r := sessionctl(t, db, "show", "empty", "--json").mustSucceed(t)
	if r.stdout != "[]\n" {
		t.Errorf("empty session: %q", r.stdout)
	}
}

func TestShowStateAndInterruptJSON(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	var got struct {
		Session    map[string]any    `json:"session"`
		Transcript []json.RawMessage `json:"transcript"`
		State      json.RawMessage   `json:"state"`
		Interrupt  json.RawMessage   `json:"interrupt"`
	}
	r := sessionctl(t, db, "show", "chat", "--json", "--state", "--interrupt").mustSucceed(t)
	r.decode(t, &got)
	if got.Session["id"] != "chat" || len(got.Transcript) != len(chatBodies) ||
		string(got.State) != `{"step": 2}` || string(got.Interrupt) != `{"pending":["call_9"]}` {
		t.Errorf("show --json --state --interrupt:\n%s", r.stdout)
	}
	if string(got.Transcript[0]) != chatBodies[0] {
		t.Errorf("transcript[0] = %s", got.Transcript[0])
	}
	got.State, got.Interrupt = nil, nil
	r = sessionctl(t, db, "show", "notes", "--json", "--state").mustSucceed(t)
	r.decode(t, &got)
	if string(got.State) != "null" && got.State != nil {
		t.Errorf("notes state = %s, want null", got.State)
	}
	if strings.Contains(r.stdout, `"interrupt"`) {
		t.Errorf("interrupt printed without --interrupt")
	}
}

func TestShowHuman(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	r := sessionctl(t, db, "show", "aussie", "--state", "--interrupt").mustSucceed(t)
	for _, want := range []string{
		"session  chat\n",
		"title    Capital question\n",
		"aliases  aussie\n",
		"[1] user  2026-03-20 14:30:00\n    What is the capital of Australia?\n",
		// A tool call folded to one line: what it ran.
		"    → web_search: capital of Australia\n",
		// Messages as list counts them; log entries apart.
		"messages 5   log entries 5 in the transcript, up to seq 5 in the log   revision 1\n",
		// A tool result folded to one line, newline included.
		"[3] tool  2026-03-20 14:30:02  ← [call_1] Canberra is the capital of Australia.\n",
		"    (thinking) easy\n    Canberra.\n",
		"state:\n",
		`"step": 2`,
		"interrupt:\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("show output lacks %q:\n%s", want, r.stdout)
		}
	}
	r = sessionctl(t, db, "show", "notes").mustSucceed(t)
	for _, want := range []string{"[1] (custom)", "v1.2 shipped", "[2] (model_change)", "gpt-5"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("show notes lacks %q:\n%s", want, r.stdout)
		}
	}
	r = sessionctl(t, db, "show", "empty").mustSucceed(t)
	if !strings.Contains(r.stdout, "(empty transcript)") {
		t.Errorf("show empty:\n%s", r.stdout)
	}
}

func TestShowAllEntries(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	sessionctl(t, db, "truncate", "chat", "--keep", "2").mustSucceed(t)
	var eff, all []json.RawMessage
	sessionctl(t, db, "show", "chat", "--json").mustSucceed(t).decode(t, &eff)
	sessionctl(t, db, "show", "chat", "--json", "--all-entries").mustSucceed(t).decode(t, &all)
	if len(eff) != 2 || len(all) != 5 {
		t.Fatalf("after truncate --keep 2: %d effective, %d raw entries; want 2 and 5", len(eff), len(all))
	}
	if string(eff[0]) != chatBodies[3] || string(all[0]) != chatBodies[0] {
		t.Errorf("effective %s / raw %s", eff[0], all[0])
	}
	r := sessionctl(t, db, "show", "chat", "--all-entries").mustSucceed(t)
	if !strings.Contains(r.stdout, "raw log (5 entries") || !strings.Contains(r.stdout, "[1] user") {
		t.Errorf("show --all-entries:\n%s", r.stdout)
	}
}

func TestShowUnknownSession(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	r := sessionctl(t, db, "show", "nope").mustFail(t, exitError, `no session "nope"`)
	if !strings.Contains(r.stderr, "sessionctl list") {
		t.Errorf("the message does not say how to find sessions: %q", r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout on error: %q", r.stdout)
	}
}
