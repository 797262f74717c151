package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb"
)

// hostileTexts are texts no column may alter: U+0000, bytes that are not
// UTF-8, and the shapes of an escape a backend might use for them (a
// leading U+FFFF, backslash escapes), which must come back as given too.
var hostileTexts = []string{
	"nul\x00inside",
	"latin1 caf\xe9 \xff\xfe",
	"surrogate \xed\xa0\x80 half",
	"\uFFFFstarts like an escape \\x00 \\\\",
	"\uFFFF",
	"\uFFFF\\xzz not an escape",
	`back\slash \x41 \\`,
	"\x00",
}

// hostileDoc is valid JSON (as encoding/json sees it) whose string holds
// bytes that are not UTF-8 and an escaped NUL.
func hostileDoc(key string) json.RawMessage {
	return json.RawMessage(`{"` + key + "\":\"caf\xe9 \xff \\u0000\"}")
}

// testAnyBytesInText: every text a caller gives (title, summary, attrs,
// scope, bodies, kinds, roles, state, interrupt, usage provider and model,
// import records, compaction details and summary messages, checkpoint
// labels, state and metadata) comes back byte for byte from every read,
// whatever bytes it holds, on every backend (issue 23: PostgreSQL refused
// them, and an import or a copy lost the whole session).
func testAnyBytesInText(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	const id = "anybytes"
	title, summary := hostileTexts[0], hostileTexts[1]
	var entries []sessiondb.Entry
	for i, h := range hostileTexts {
		// Written by hand: encoding/json would repair invalid UTF-8.
		body := []byte(`{"role":"user","content":"findme ` + stringJSONBytes(h) + `"}`)
		entries = append(entries, sessiondb.Entry{Body: body, Kind: []string{"message", "label\xff"}[i%2],
			Role: hostileTexts[(i+2)%len(hostileTexts)], CreatedAt: base.Add(time.Duration(i) * time.Second)})
	}
	src := &sessiondb.SourceFile{Path: "/archive/caf\xe9\x00.jsonl", Format: "picoclaw", Size: 10, ModTime: base,
		SHA256: "ab", Offset: 10, State: hostileDoc("resume"), ImportedAt: base}
	if _, err := s.Commit(ctx, id, sessiondb.Commit{
		Create: &sessiondb.Session{ID: id, Title: title, Summary: summary, Attrs: hostileDoc("cwd"), Scope: hostileDoc("user"), CreatedAt: base,
			SourceFormat: src.Format, SourcePath: src.Path},
		Append: entries, State: hostileDoc("state"), Interrupt: hostileDoc("interrupt"),
		Usage:  []sessiondb.Usage{{Provider: hostileTexts[0], Model: hostileTexts[1], InputTokens: 1, CreatedAt: base}},
		Source: src,
	}); err != nil {
		t.Fatalf("Commit of hostile text: %v", err)
	}
	if _, err := s.Compact(ctx, id, sessiondb.Compaction{KeepFromSeq: 2, Summary: []sessiondb.Entry{{Body: entries[1].Body, Kind: "message"}},
		Details: hostileDoc("details"), CreatedAt: base}); err != nil {
		t.Fatalf("Compact: %v", err)
	}
	cp, err := s.SaveCheckpoint(ctx, sessiondb.Checkpoint{ID: id + "-cp", SessionID: id, Label: hostileTexts[2],
		State: hostileDoc("cpstate"), Metadata: hostileDoc("meta"), CreatedAt: base})
	if err != nil {
		t.Fatalf("SaveCheckpoint: %v", err)
	}

	sess := mustGet(t, s, id)
	if sess.Title != title || sess.Summary != summary || string(sess.Attrs) != string(hostileDoc("cwd")) || string(sess.Scope) != string(hostileDoc("user")) {
		t.Errorf("Get: title %q summary %q attrs %q scope %q", sess.Title, sess.Summary, sess.Attrs, sess.Scope)
	}
	if sess.SourcePath != src.Path || sess.SourceFormat != src.Format {
		t.Errorf("Get: source %q %q, want %q %q", sess.SourceFormat, sess.SourcePath, src.Format, src.Path)
	}
	got := mustEntries(t, s, id, 0, 0)
	if len(got) != len(entries) {
		t.Fatalf("Entries: %d, want %d", len(got), len(entries))
	}
	for i, e := range got {
		w := entries[i]
		if string(e.Body) != string(w.Body) || e.Kind != w.Kind || e.Role != w.Role {
			t.Errorf("entry %d: body %q kind %q role %q, want %q %q %q", i+1, e.Body, e.Kind, e.Role, w.Body, w.Kind, w.Role)
		}
	}
	full, err := s.LoadFull(ctx, id, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if string(full.State) != string(hostileDoc("state")) || full.Session.Title != title {
		t.Errorf("LoadFull: state %q title %q", full.State, full.Session.Title)
	}
	if len(full.Transcript) == 0 || string(full.Transcript[0].Body) != string(entries[1].Body) {
		t.Errorf("LoadFull: summary message not byte for byte: %+v", full.Transcript)
	}
	if in, err := s.LoadInterrupt(ctx, id); err != nil || string(in) != string(hostileDoc("interrupt")) {
		t.Errorf("LoadInterrupt = %q, %v", in, err)
	}
	cs, err := s.Compactions(ctx, id)
	if err != nil || len(cs) != 1 || string(cs[0].Details) != string(hostileDoc("details")) {
		t.Errorf("Compactions = %+v, %v", cs, err)
	}
	if c, err := s.LoadCheckpoint(ctx, cp.ID); err != nil || c.Label != hostileTexts[2] ||
		string(c.Metadata) != string(hostileDoc("meta")) || string(c.State) != string(hostileDoc("cpstate")) {
		t.Errorf("LoadCheckpoint = %+v, %v", c, err)
	}
	rows, err := s.UsageReport(ctx, sessiondb.UsageQuery{ByModel: true})
	if err != nil || len(rows) != 1 || rows[0].Provider != hostileTexts[0] || rows[0].Model != hostileTexts[1] {
		t.Errorf("UsageReport = %+v, %v", rows, err)
	}
	if f, err := s.SourceFile(ctx, src.Path); err != nil || f.Path != src.Path || string(f.State) != string(src.State) || f.SessionID != id {
		t.Errorf("SourceFile(%q) = %+v, %v", src.Path, f, err)
	}
	hits, err := s.Search(ctx, "findme", sessiondb.SearchOptions{SessionID: id})
	if err != nil || len(hits) == 0 || hits[0].SessionTitle != title {
		t.Errorf("Search: %+v, %v; want hits titled %q", hits, err, title)
	}
	page, _, err := s.List(ctx, sessiondb.ListOptions{})
	if err != nil || len(page) != 1 || page[0].Title != title {
		t.Errorf("List = %+v, %v", page, err)
	}

	// Every hostile title and summary round-trips, and setting the same
	// one again changes nothing (the no-op check sees the stored bytes).
	for _, h := range hostileTexts {
		u, err := s.UpdateMeta(ctx, id, sessiondb.MetaPatch{Title: &h, Summary: &h})
		if err != nil {
			t.Fatalf("UpdateMeta(%q): %v", h, err)
		}
		if g := mustGet(t, s, id); g.Title != h || g.Summary != h {
			t.Errorf("title %q, summary %q: read back %q, %q", h, h, g.Title, g.Summary)
		}
		again, err := s.UpdateMeta(ctx, id, sessiondb.MetaPatch{Title: &h, Summary: &h})
		if err != nil || again.Sequence != u.Sequence {
			t.Errorf("setting title %q again: sequence %d -> %d, %v; want no change", h, u.Sequence, again.Sequence, err)
		}
	}

	// A whole-session copy carries it all.
	c, ok := s.(sessiondb.Copier)
	if !ok {
		return
	}
	d, err := c.DumpSession(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	d.Sources = nil // an import record names its path once per store
	moved := renamed(d, id+"-copy")
	if _, err := c.PutSession(ctx, moved, sessiondb.Expect(0)); err != nil {
		t.Fatalf("PutSession: %v", err)
	}
	if diff := cmp.Diff(moved, mustDump(t, c, id+"-copy"), ignoreCompactionIDs); diff != "" {
		t.Errorf("copy of hostile text differs (-put +dumped):\n%s", diff)
	}
}

// stringJSONBytes writes s as the inside of a JSON string without
// repairing bytes that are not UTF-8: quote and backslash escaped, control
// characters (NUL included) as \u00XX, every other byte as it is.
func stringJSONBytes(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, []byte(`\u00`)...)
			b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return string(b)
}
