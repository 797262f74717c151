package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

func badInputTests() []testCase {
	return []testCase{
		{name: "InvalidIDs", fn: testInvalidIDs},
		{name: "InvalidAliases", fn: testInvalidAliases},
		{name: "NonJSONBodies", fn: testNonJSONBodies},
		{name: "OversizedBody", fn: testOversizedBody, serial: true},
		{name: "BadKinds", fn: testBadKinds},
		{name: "UnknownSession", fn: testUnknownSession},
		{name: "Closed", fn: testClosed},
	}
}

var invalidIDs = map[string]string{
	"empty":     "",
	"too long":  strings.Repeat("x", sessiondb.MaxIDLen+1),
	"NUL":       "a\x00b",
	"newline":   "a\nb",
	"bad UTF-8": "a\xffb",
}

// idMethods calls every Store method that takes a session ID with id.
func idMethods(ctx context.Context, s sessiondb.Store) map[string]func(id string) error {
	return map[string]func(id string) error{
		"Get": func(id string) error { _, err := s.Get(ctx, id); return err },
		"UpdateMeta": func(id string) error {
			_, err := s.UpdateMeta(ctx, id, sessiondb.MetaPatch{Title: ptr("x")})
			return err
		},
		"Resolve":    func(id string) error { _, err := s.Resolve(ctx, id); return err },
		"Delete":     func(id string) error { return s.Delete(ctx, id) },
		"Append":     func(id string) error { _, err := s.Append(ctx, id, msgs(1, 1)...); return err },
		"Load":       func(id string) error { _, err := s.Load(ctx, id, sessiondb.LoadOptions{}); return err },
		"Entries":    func(id string) error { _, err := s.Entries(ctx, id, 0, 0); return err },
		"SetHistory": func(id string) error { _, err := s.SetHistory(ctx, id, msgs(1, 1)); return err },
		"Truncate":   func(id string) error { _, err := s.Truncate(ctx, id, 1); return err },
		"Compact": func(id string) error {
			_, err := s.Compact(ctx, id, sessiondb.Compaction{KeepFromSeq: 1})
			return err
		},
		"Compactions":    func(id string) error { _, err := s.Compactions(ctx, id); return err },
		"Prune":          func(id string) error { _, err := s.Prune(ctx, id); return err },
		"SaveState":      func(id string) error { _, err := s.SaveState(ctx, id, raw(`{}`)); return err },
		"LoadState":      func(id string) error { _, err := s.LoadState(ctx, id); return err },
		"SaveInterrupt":  func(id string) error { _, err := s.SaveInterrupt(ctx, id, raw(`{}`)); return err },
		"LoadInterrupt":  func(id string) error { _, err := s.LoadInterrupt(ctx, id); return err },
		"ClearInterrupt": func(id string) error { _, err := s.ClearInterrupt(ctx, id); return err },
		"Commit":         func(id string) error { _, err := s.Commit(ctx, id, sessiondb.Commit{Append: msgs(1, 1)}); return err },
		"LoadFull":       func(id string) error { _, err := s.LoadFull(ctx, id, sessiondb.LoadOptions{}); return err },
		"Fork(src)":      func(id string) error { _, err := s.Fork(ctx, id, 0, "fork-target"); return err },
		"SaveCheckpoint": func(id string) error {
			_, err := s.SaveCheckpoint(ctx, sessiondb.Checkpoint{SessionID: id})
			return err
		},
		"ListCheckpoints": func(id string) error { _, err := s.ListCheckpoints(ctx, id); return err },
		"UsageTotals":     func(id string) error { _, err := s.UsageTotals(ctx, id); return err },
	}
}

func testInvalidIDs(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	mustSession(t, s, "valid", 1)
	creators := map[string]func(id string) error{
		"Create": func(id string) error { _, err := s.Create(ctx, sessiondb.Session{ID: id}); return err },
		"SaveFull": func(id string) error {
			_, err := s.SaveFull(ctx, sessiondb.Session{ID: id}, msgs(1, 1), nil)
			return err
		},
		"Commit(Create)": func(id string) error {
			_, err := s.Commit(ctx, id, sessiondb.Commit{Create: &sessiondb.Session{}})
			return err
		},
		"Fork(newID)":    func(id string) error { _, err := s.Fork(ctx, "valid", 0, id); return err },
		"LoadCheckpoint": func(id string) error { _, err := s.LoadCheckpoint(ctx, id); return err },
		"SaveCheckpoint(ID)": func(id string) error {
			if id == "" {
				return sessiondb.ErrInvalid // an empty checkpoint ID means NewID(): not invalid
			}
			_, err := s.SaveCheckpoint(ctx, sessiondb.Checkpoint{ID: id, SessionID: "valid"})
			return err
		},
	}
	for name, call := range idMethods(ctx, s) {
		creators[name] = call
	}
	// An empty ID names no existing session, but where the call creates one
	// it means "generate an ID" (Create, Fork's newID, SaveFull).
	generates := map[string]bool{"Create": true, "SaveFull": true, "Fork(newID)": true}
	for what, id := range invalidIDs {
		for name, call := range creators {
			if id == "" && generates[name] {
				continue
			}
			wantErr(t, call(id), sessiondb.ErrInvalid, fmt.Sprintf("%s with a %s ID", name, what))
		}
	}
	infos := listAll(t, s, sessiondb.ListOptions{})
	if len(infos) != 1 || infos[0].ID != "valid" {
		t.Errorf("sessions after invalid-ID calls: %v, want only [valid]", idsOf(infos))
	}
	if g := mustGet(t, s, "valid"); g.LastSeq != 1 {
		t.Errorf("valid session LastSeq = %d", g.LastSeq)
	}
}

func testInvalidAliases(t *testing.T, s sessiondb.Store) {
	for what, a := range invalidIDs {
		_, err := s.Create(bg(t), sessiondb.Session{ID: "with-alias", Aliases: []string{"fine", a}})
		wantErr(t, err, sessiondb.ErrInvalid, "Create with a "+what+" alias")
		_, err = s.SaveFull(bg(t), sessiondb.Session{ID: "with-alias", Aliases: []string{a}}, nil, nil)
		wantErr(t, err, sessiondb.ErrInvalid, "SaveFull with a "+what+" alias")
	}
	_, err := s.Get(bg(t), "with-alias")
	wantErr(t, err, sessiondb.ErrNotFound, "session created despite an invalid alias")
	_, err = s.Resolve(bg(t), "fine")
	wantErr(t, err, sessiondb.ErrNotFound, "alias recorded despite an invalid sibling")
}

var nonJSON = []string{"", "{", "hello", `{"a":1}{"b":2}`, `{"a":1,}`, `'single'`, `{"a":1} x`, "\x00", `[1,2`, `{"a":01}`}

func testNonJSONBodies(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	mustSession(t, s, "nj", 2)
	mustSaveState(t, s, "nj", `{"good":1}`)
	before := mustGet(t, s, "nj")
	for _, b := range nonJSON {
		body := json.RawMessage(b)
		calls := map[string]error{}
		_, calls["Append"] = s.Append(ctx, "nj", sessiondb.Message(msgBody(3)), sessiondb.Entry{Body: body})
		_, calls["SaveState"] = s.SaveState(ctx, "nj", body)
		_, calls["SaveInterrupt"] = s.SaveInterrupt(ctx, "nj", body)
		_, calls["SetHistory"] = s.SetHistory(ctx, "nj", []sessiondb.Entry{sessiondb.Message(msgBody(1)), {Body: body}})
		_, calls["Compact"] = s.Compact(ctx, "nj", sessiondb.Compaction{KeepFromSeq: 1, Summary: []sessiondb.Entry{{Body: body}}})
		_, calls["Commit"] = s.Commit(ctx, "nj", sessiondb.Commit{Append: []sessiondb.Entry{sessiondb.Message(msgBody(3)), {Body: body}}})
		_, calls["SaveFull(existing)"] = s.SaveFull(ctx, sessiondb.Session{ID: "nj"}, []sessiondb.Entry{{Body: body}}, raw(`{}`))
		_, calls["SaveFull(new)"] = s.SaveFull(ctx, sessiondb.Session{ID: "nj-new"}, []sessiondb.Entry{{Body: body}}, nil)
		if b != "" { // for optional documents, empty may be read as "unset"
			_, calls["SaveFull(bad state)"] = s.SaveFull(ctx, sessiondb.Session{ID: "nj"}, msgs(1, 1), body)
			_, calls["Create(scope)"] = s.Create(ctx, sessiondb.Session{ID: "nj-scope", Scope: body})
			_, calls["Create(attrs)"] = s.Create(ctx, sessiondb.Session{ID: "nj-attrs", Attrs: body})
			_, calls["SaveCheckpoint(state)"] = s.SaveCheckpoint(ctx, sessiondb.Checkpoint{SessionID: "nj", State: body})
			_, calls["SaveCheckpoint(metadata)"] = s.SaveCheckpoint(ctx, sessiondb.Checkpoint{SessionID: "nj", Metadata: body})
			_, calls["UpdateMeta(scope)"] = s.UpdateMeta(ctx, "nj", sessiondb.MetaPatch{Scope: body})
			_, calls["Commit(source state)"] = s.Commit(ctx, "nj", sessiondb.Commit{Source: &sessiondb.SourceFile{Path: "/p", Format: "zot", SessionID: "nj", State: body}})
		}
		for name, err := range calls {
			wantErr(t, err, sessiondb.ErrInvalid, fmt.Sprintf("%s with body %q", name, b))
		}
	}
	wantUnchanged(t, s, before, "calls with non-JSON bodies")
	wantLogSeqs(t, s, "nj", seqRange(1, 2))
	wantTranscript(t, s, "nj", bodies(1, 2))
	wantJSON(t, mustState(t, s, "nj"), `{"good":1}`, "state")
	if in := mustInterrupt(t, s, "nj"); in != nil {
		t.Errorf("interrupt = %q", in)
	}
	if cs := mustCompactions(t, s, "nj"); len(cs) != 0 {
		t.Errorf("compactions = %v", cs)
	}
	if cps, err := s.ListCheckpoints(ctx, "nj"); err != nil || len(cps) != 0 {
		t.Errorf("checkpoints = %v, %v", cps, err)
	}
	if ids := idsOf(listAll(t, s, sessiondb.ListOptions{})); len(ids) != 1 {
		t.Errorf("sessions after invalid creates: %v", ids)
	}
}

func testOversizedBody(t *testing.T, s sessiondb.Store) {
	before := mustSession(t, s, "big", 1)
	// A valid JSON string one byte over the limit.
	b := bytes.Repeat([]byte{'a'}, sessiondb.MaxBodySize+1)
	b[0], b[len(b)-1] = '"', '"'
	_, err := s.Append(bg(t), "big", sessiondb.Entry{Body: b})
	wantErr(t, err, sessiondb.ErrInvalid, "Append of a body over MaxBodySize")
	_, err = s.SaveState(bg(t), "big", b)
	wantErr(t, err, sessiondb.ErrInvalid, "SaveState of a document over MaxBodySize")
	wantUnchanged(t, s, before, "oversized writes")
	wantTranscript(t, s, "big", bodies(1, 1))
}

func testBadKinds(t *testing.T, s sessiondb.Store) {
	before := mustSession(t, s, "k", 1)
	for _, kind := range []string{strings.Repeat("k", sessiondb.MaxKindLen+1), "bad\nkind", "nul\x00"} {
		_, err := s.Append(bg(t), "k", sessiondb.Entry{Kind: kind, Body: raw(`{}`)})
		wantErr(t, err, sessiondb.ErrInvalid, fmt.Sprintf("Append with kind %q", kind))
	}
	wantUnchanged(t, s, before, "Append with bad kinds")
	long := strings.Repeat("k", sessiondb.MaxKindLen)
	mustAppend(t, s, "k", sessiondb.Entry{Kind: long, Body: raw(`{}`)})
	if got := mustLoad(t, s, "k", sessiondb.LoadOptions{Kinds: []string{long}}); len(got) != 1 || got[0].Kind != long {
		t.Errorf("entry with a %d-byte kind not loaded back", len(long))
	}
}

func testUnknownSession(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	mustSession(t, s, "exists", 1)
	for name, call := range idMethods(ctx, s) {
		wantErr(t, call("no-such-session"), sessiondb.ErrNotFound, name+"(unknown session)")
	}
	_, err := s.LoadCheckpoint(ctx, "no-such-checkpoint")
	wantErr(t, err, sessiondb.ErrNotFound, "LoadCheckpoint(unknown)")
	wantErr(t, s.DeleteCheckpoint(ctx, "no-such-checkpoint"), sessiondb.ErrNotFound, "DeleteCheckpoint(unknown)")
	_, err = s.SourceFile(ctx, "/no/such/file.jsonl")
	wantErr(t, err, sessiondb.ErrNotFound, "SourceFile(unknown)")
	if ids := idsOf(listAll(t, s, sessiondb.ListOptions{})); len(ids) != 1 {
		t.Errorf("calls on an unknown session created sessions: %v", ids)
	}
	_, err = s.Get(ctx, "fork-target")
	wantErr(t, err, sessiondb.ErrNotFound, "fork target of a failed Fork")
}

func testClosed(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	mustSession(t, s, "c", 1)
	cp := mustSaveCheckpoint(t, s, sessiondb.Checkpoint{SessionID: "c"})
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	calls := map[string]func() error{
		"Create": func() error { _, err := s.Create(ctx, sessiondb.Session{ID: "new"}); return err },
		"List": func() error {
			_, _, err := s.List(ctx, sessiondb.ListOptions{})
			return err
		},
		"SaveFull":         func() error { _, err := s.SaveFull(ctx, sessiondb.Session{ID: "c"}, msgs(1, 1), nil); return err },
		"LoadCheckpoint":   func() error { _, err := s.LoadCheckpoint(ctx, cp.ID); return err },
		"DeleteCheckpoint": func() error { return s.DeleteCheckpoint(ctx, cp.ID) },
		"SourceFile":       func() error { _, err := s.SourceFile(ctx, "/x"); return err },
	}
	for name, call := range idMethods(ctx, s) {
		calls[name] = func() error { return call("c") }
	}
	for name, call := range calls {
		err := safeCall(call)
		wantErr(t, err, sessiondb.ErrClosed, name+" after Close")
	}
	if err := s.Close(); err != nil && !errors.Is(err, sessiondb.ErrClosed) {
		t.Errorf("second Close = %v, want nil or ErrClosed", err)
	}
}

// safeCall turns a panic into an error so that one misbehaving method does
// not hide the others.
func safeCall(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}
