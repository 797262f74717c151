package jsonlimport

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

// TestGrowthReadsSiblingResponses: growth equality for a Claude Code
// project folder of several transcripts, one of which grows under
// imports without a Follow (sessionctl import: each growth read whole,
// the folder's index not kept), its new lines holding a response that a
// sibling transcript also holds (dated earlier: the sibling counts it),
// a new response of its own and a user line. The store ends as one
// import of the final folder leaves it, usage included: the grown file's
// new responses are looked up in the siblings by themselves
// (claudecode's ccCopiesOf) instead of through a folder index.
func TestGrowthReadsSiblingResponses(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "projects", "-home-dev-p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	line := func(sid, typ, uuid, parent, msg string, sec int) string {
		p := "null"
		if parent != "" {
			p = fmt.Sprintf("%q", parent)
		}
		ts := time.Date(2026, 1, 12, 10, 0, sec, 0, time.UTC).Format("2006-01-02T15:04:05.000Z")
		if typ == "user" {
			return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"sessionId":%q,"cwd":"/home/dev/p","type":"user","message":{"role":"user","content":"question %s"},"uuid":%q,"timestamp":%q}`+"\n", p, sid, uuid, uuid, ts)
		}
		return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"sessionId":%q,"cwd":"/home/dev/p","type":"assistant","requestId":"req_%s","message":{"id":%q,"type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"answer"}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5}},"uuid":%q,"timestamp":%q}`+"\n", p, sid, msg, msg, 10+sec, uuid, ts)
	}
	sid := func(i int) string { return fmt.Sprintf("%08d-0000-4000-8000-000000000000", i) }
	write := func(i int, body string) {
		if err := os.WriteFile(filepath.Join(dir, sid(i)+".jsonl"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Siblings 0 and 2, each with a response of its own; 0's is copied
	// into the grown file 1 later.
	for _, i := range []int{0, 2} {
		write(i, line(sid(i), "user", sid(i)+"-u1", "", "", 1)+line(sid(i), "assistant", sid(i)+"-a1", sid(i)+"-u1", fmt.Sprintf("msg_%d", i), 2))
	}
	s1 := sid(1)
	steps := []string{
		line(s1, "user", s1+"-u1", "", "", 3) + line(s1, "assistant", s1+"-a1", s1+"-u1", "msg_1", 4),
		line(s1, "user", s1+"-u2", s1+"-a1", "", 5),
		line(s1, "assistant", s1+"-a2", s1+"-u2", "msg_0", 6) + line(s1, "assistant", s1+"-a3", s1+"-a2", "msg_new", 7),
		line(s1, "user", s1+"-u3", s1+"-a3", "", 8),
	}
	since := time.Now().Add(-time.Second)
	grown := openStore(t)
	body := ""
	for i, st := range steps {
		body += st
		write(1, body)
		rep, err := Import(ctx, grown, []string{dir}, Options{Jobs: 1})
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		for _, p := range rep.Problems {
			t.Errorf("step %d: %v", i, p)
		}
	}
	once := openStore(t)
	rep, err := Import(ctx, once, []string{dir}, Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	counted := false
	for _, n := range rep.Notes {
		counted = counted || strings.Contains(n.Reason, "counted there")
	}
	if !counted {
		t.Fatalf("the one import notes no response counted in another transcript: the case is not built (%v)", rep.Notes)
	}
	if d := cmp.Diff(jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, grown, since)); d != "" {
		t.Errorf("growth differs from one import (-once +grown):\n%s", d)
	}
}
