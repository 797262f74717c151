package claudecode

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// TestProjectIndexesBounded: a process keeps the response indexes of at
// most ccProjectsMax project folders (an import of an archive of many
// folders held them all), and a folder evicted is indexed again when one
// of its transcripts is read: a response copied into two transcripts is
// still found in the other one.
func TestProjectIndexesBounded(t *testing.T) {
	root := t.TempDir()
	line := func(sid string) string {
		return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"sessionId":%q,"type":"assistant","requestId":"req_1","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5}},"uuid":"u-%s","timestamp":"2026-01-12T10:00:02.000Z"}`+"\n", sid, sid)
	}
	write := func(dir, sid string) string {
		p := filepath.Join(dir, sid+".jsonl")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(line(sid)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := filepath.Join(root, "-p0")
	a := write(first, "a0000000-0000-4000-8000-000000000000")
	write(first, "b0000000-0000-4000-8000-000000000000")
	if _, ok := ccCopies(a, 0)("msg_1|req_1"); !ok {
		t.Fatal("the response the other transcript of the folder holds is not found")
	}
	for i := 1; i <= 2*ccProjectsMax; i++ {
		dir := filepath.Join(root, fmt.Sprintf("-p%d", i))
		ccCopies(write(dir, fmt.Sprintf("c%07d-0000-4000-8000-000000000000", i)), 0)
	}
	ccProjects.Lock()
	kept, firstKept := len(ccProjects.dirs), ccProjects.dirs[first] != nil
	ccProjects.Unlock()
	if kept > ccProjectsMax || firstKept {
		t.Errorf("%d folder indexes kept (at most %d), the first one still: %v", kept, ccProjectsMax, firstKept)
	}
	if _, ok := ccCopies(a, 0)("msg_1|req_1"); !ok {
		t.Error("after its eviction, the folder's index no longer finds the copied response")
	}
}

// TestRereadOpensNoSibling: a transcript that grew, read whole by an
// import without its parse state (sessionctl import, a new process with
// no folder index), reads no other transcript of its folder when its new
// lines hold no response, and only lines that may hold them otherwise:
// the folder's index used to be built, reading every transcript of the
// folder for each grown one. The same read without Resume.Reread (a
// replacement) still indexes the folder.
func TestRereadOpensNoSibling(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "-home-p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	asst := func(sid, uuid, parent, msg string) string {
		return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"sessionId":%q,"type":"assistant","requestId":"req_%s","message":{"id":%q,"type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5}},"uuid":%q,"timestamp":"2026-01-12T10:00:02.000Z"}`+"\n", parent, sid, msg, msg, uuid)
	}
	user := func(sid, uuid, parent string) string {
		return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"sessionId":%q,"type":"user","message":{"role":"user","content":"go on"},"uuid":%q,"timestamp":"2026-01-12T10:00:01.000Z"}`+"\n", parent, sid, uuid)
	}
	var grown string
	for i := range 5 {
		sid := fmt.Sprintf("%08d-0000-4000-8000-000000000000", i)
		body := user(sid, sid+"-u1", "null") + asst(sid, sid+"-a1", `"`+sid+`-u1"`, fmt.Sprintf("msg_%d", i))
		p := filepath.Join(dir, sid+".jsonl")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		grown = p
	}
	ctx := t.Context()
	u := jsonl.Unit{Path: grown}
	first, err := Format{}.Parse(ctx, u, jsonl.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	sid := filepath.Base(grown[:len(grown)-len(".jsonl")])
	appendLine := func(line string) {
		f, err := os.OpenFile(grown, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(line); err != nil {
			t.Fatal(err)
		}
	}
	reread := func(r jsonl.Resume) (int64, *jsonl.Parsed) {
		t.Helper()
		ccProjects.Lock()
		ccProjects.dirs, ccProjects.order = map[string]*ccProject{}, nil // a new process
		ccProjects.Unlock()
		n := ccFileScans.Load()
		pd, err := Format{}.Parse(ctx, u, r)
		if err != nil {
			t.Fatal(err)
		}
		return ccFileScans.Load() - n, pd
	}
	appendLine(user(sid, sid+"-u2", `"`+sid+`-a1"`))
	if n, pd := reread(jsonl.Resume{State: first.ResumeState, Reread: len(first.Entries)}); n != 0 || len(pd.Entries) != len(first.Entries)+1 {
		t.Errorf("a grown file whose new line holds no response: %d transcripts scanned (want 0), %d entries", n, len(pd.Entries))
	}
	if n, _ := reread(jsonl.Resume{State: first.ResumeState}); n < 5 {
		t.Errorf("a whole read without Reread scanned %d transcripts; want the folder's 5 (the index)", n)
	}
	// A new response, also in a sibling dated earlier: the sibling's copy
	// counts, and the grown file's row is left out.
	other := fmt.Sprintf("%08d-0000-4000-8000-000000000000", 0)
	appendLine(asst(sid, sid+"-a2", `"`+sid+`-u2"`, "msg_0"))
	n, pd := reread(jsonl.Resume{State: first.ResumeState, Reread: len(first.Entries)})
	if n != 4 || len(pd.Usage) != 0 {
		t.Errorf("a new response copied from %s: %d siblings scanned (want 4), usage %+v (want none: the sibling counts it)", other, n, pd.Usage)
	}
}

// TestMentions: the line filter of ccCopiesOf leaves out a line only
// when it cannot hold one of the ids: the id written as it is or with an
// escaped character passes, another id does not, and an id that a
// decoder may have changed (U+FFFD) or that must be escaped passes every
// line.
func TestMentions(t *testing.T) {
	only := ccMentions(map[string]bool{"msg_1": true, "msg_2": true})
	for line, want := range map[string]bool{
		`{"message":{"id":"msg_1","usage":{}}}`:      true,
		`{"message":{"id":"msg_2","usage":{}}}`:      true,
		`{"message":{"id":"msg\u005f1","usage":{}}}`: true,
		`{"message":{"id":"msg_3","usage":{}}}`:      false,
	} {
		if got := only([]byte(line)); got != want {
			t.Errorf("%s: %v, want %v", line, got, want)
		}
	}
	for _, id := range []string{"msg_\uFFFD", `msg"1`, "msg\n1"} {
		if ccMentions(map[string]bool{id: true}) != nil {
			t.Errorf("id %q: a filter; want every line decoded", id)
		}
	}
}
