package entire

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// metadataSeeds are metadata.json files in the shapes Entire writes (the
// fixture's, and the members public readers of the branch list), plus
// damaged ones.
var metadataSeeds = []string{
	`{"cli_version":"0.4.2","checkpoint_id":"3a1f00c0ffee","strategy":"manual-commit","branch":"main","checkpoints_count":1,"files_touched":["src/app.go"],"sessions":[{"metadata":"/3a/1f00c0ffee/0/metadata.json","transcript":"/3a/1f00c0ffee/0/full.jsonl","context":"/3a/1f00c0ffee/0/context.md","content_hash":"/3a/1f00c0ffee/0/content_hash.txt","prompt":"/3a/1f00c0ffee/0/prompt.txt"}],"token_usage":{"input_tokens":20,"cache_creation_tokens":6290,"cache_read_tokens":118299,"output_tokens":350,"api_call_count":4}}`,
	`{"cli_version":"0.4.2","checkpoint_id":"3a1f00c0ffee","session_id":"59486af6-41fa-4dfe-a72b-2a572819c3f0","strategy":"manual-commit","created_at":"2026-03-01T10:00:00.061134Z","branch":"main","checkpoints_count":1,"files_touched":["a.py"],"agent":"Claude Code","turn_id":"turn-0","token_usage":{"input_tokens":20,"cache_creation_tokens":6290,"cache_read_tokens":118299,"output_tokens":350,"api_call_count":4,"subagent_tokens":{"input_tokens":5,"output_tokens":80}},"session_metrics":{"turn_count":7,"duration_ms":142340},"initial_attribution":{"agent_lines":50,"agent_percentage":80}}`,
	`{"checkpoint_id":"c0ffee000001","session_id":"s","agent":"Cursor","created_at":"not a time","token_usage":[1,2],"files_touched":["",""]}`,
	`{"session_id":7}`,
	`{"checkpoint_id":"x"`,
	`[]`,
	` {"created_at":"2026-03-01T10:00:00+02:00","model":null} `,
	``,
}

// FuzzEntireMetadata fuzzes a checkpoint's and a session's metadata.json:
// reading never panics, a refusal wraps sessiondb.ErrInvalid, what is
// read keeps the file's bytes (Raw), token usage is a JSON object or
// nothing, no file name is empty, a time is in UTC, and what a session's attrs are made of is always one JSON object.
func FuzzEntireMetadata(f *testing.F) {
	for _, s := range metadataSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cm, cerr := ParseCheckpointMeta(data)
		sm, serr := ParseSessionMeta(data)
		for _, err := range []error{cerr, serr} {
			if err != nil && !errors.Is(err, sessiondb.ErrInvalid) {
				t.Fatalf("refusal %v does not wrap ErrInvalid", err)
			}
		}
		if cerr == nil {
			if string(cm.Raw) != string(data) {
				t.Fatalf("Raw %q, want the file %q", cm.Raw, data)
			}
			checkUsage(t, cm.TokenUsage)
			checkFiles(t, cm.FilesTouched)
		}
		if serr != nil {
			return
		}
		if string(sm.Raw) != string(data) {
			t.Fatalf("Raw %q, want the file %q", sm.Raw, data)
		}
		checkUsage(t, sm.TokenUsage)
		checkFiles(t, sm.FilesTouched)
		if !sm.CreatedAt.IsZero() && sm.CreatedAt.Location().String() != "UTC" {
			t.Fatalf("created_at %v not in UTC", sm.CreatedAt)
		}
		s := &session{key: "k", occ: []*occurrence{{checkpoint: "3a1f00c0ffee", meta: sm, commits: []string{"c"}}}}
		attrs, err := withEntire(json.RawMessage(`{"cwd":"/p"}`), s.attrs())
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(attrs, &m); err != nil || m["cwd"] == nil || m["entire"] == nil {
			t.Fatalf("attrs %s: %v", attrs, err)
		}
	})
}

func checkUsage(t *testing.T, u json.RawMessage) {
	t.Helper()
	if u == nil {
		return
	}
	var m map[string]any
	if err := json.Unmarshal(u, &m); err != nil {
		t.Fatalf("token usage %s is no JSON object: %v", u, err)
	}
}

func checkFiles(t *testing.T, files []string) {
	t.Helper()
	for _, f := range files {
		if f == "" {
			t.Fatal("an empty file name kept")
		}
	}
}

// TestParseTree: git ls-tree -r -l -z output is read by NUL-ended
// records, so that a path holding a tab, a newline or a quote (which
// ls-tree without -z would quote) is read as it is; trees and
// submodules are left out.
func TestParseTree(t *testing.T) {
	out := "100644 blob 1111111111111111111111111111111111111111      12\t3a/1f00c0ffee/0/full.jsonl\x00" +
		"100644 blob 2222222222222222222222222222222222222222       3\ta\tb\nc\"d\x00" +
		"160000 commit 3333333333333333333333333333333333333333       -\tsub\x00" +
		"040000 tree 4444444444444444444444444444444444444444       -\tdir\x00"
	got := parseTree([]byte(out))
	want := []treeEntry{
		{path: "3a/1f00c0ffee/0/full.jsonl", oid: "1111111111111111111111111111111111111111", size: 12},
		{path: "a\tb\nc\"d", oid: "2222222222222222222222222222222222222222", size: 3},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
