package jsonl

import "testing"

// TestToolCallSummary: a call's card says what it ran before it is
// opened.
func TestToolCallSummary(t *testing.T) {
	for _, tc := range []struct {
		name, args, want string
	}{
		{"Bash", `{"command":"cd web && npm test","description":"Run the tests"}`, "cd web && npm test"},
		{"Read", `{"file_path":"/src/app/main.go","limit":40}`, "/src/app/main.go"},
		{"Grep", `{"pattern":"func main","path":"/src"}`, "func main in /src"},
		{"WebFetch", `{"url":"https://example.com/x","prompt":"sum"}`, "https://example.com/x"},
		{"Task", `{"description":"Find the bug","prompt":"long…"}`, "Find the bug"},
		{"shell", `{"command":["bash","-lc","go test ./..."],"workdir":"/x"}`, "go test ./..."},
		{"shell", `{"command":["ls","-la"]}`, "ls -la"},
		{"apply_patch", "*** Begin Patch\n*** Update File: a/b.go\n@@\n-x\n+y", "Update File: a/b.go"},
		{"TodoWrite", `{"todos":[{"content":"a"},{"content":"b"}]}`, "2 todos"},
		{"mystery", `{"a":1,  "b":"two"}`, `{"a":1, "b":"two"}`},
		{"multi", "{\"command\":\"echo a\\n  echo b\"}", "echo a echo b"},
	} {
		if got := (ToolCall{Name: tc.name, Arguments: tc.args}).Summary(0); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.name, tc.args, got, tc.want)
		}
	}
	if got := (ToolCall{Arguments: `{"command":"abcdefghij"}`}).Summary(5); got != "abcd…" {
		t.Errorf("cut: %q", got)
	}
}
