package claudecode

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
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
