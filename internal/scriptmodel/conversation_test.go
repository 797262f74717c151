package scriptmodel

import "testing"

// TestCopilotDatetimePrompt: GitHub Copilot CLI sends the user's prompt
// after a <current_datetime> block in the same text; the prompt is still
// the user's (and the block not part of it), while a text that is only
// tags stays context.
func TestCopilotDatetimePrompt(t *testing.T) {
	m := Message{Role: "user", Texts: []string{"<current_datetime>2026-12-06T18:46:42.908+00:00</current_datetime>\n\nRun the tools [[tools]]"}}
	if got, ok := m.isPrompt(); !ok || got != "Run the tools [[tools]]" {
		t.Errorf("isPrompt = %q, %v; want the text after the block", got, ok)
	}
	for _, ctx := range []string{"<current_datetime>x</current_datetime>", "<current_datetime>x</current_datetime>\n<reminder>y</reminder>", "<current_datetime>unclosed Run [[tools]]"} {
		if got, ok := (Message{Role: "user", Texts: []string{ctx}}).isPrompt(); ok {
			t.Errorf("%q read as the prompt %q", ctx, got)
		}
	}
	if got, _ := (Message{Role: "user", Texts: []string{"  plain [[hello]] "}}).isPrompt(); got != "  plain [[hello]] " {
		t.Errorf("a plain prompt changed: %q", got)
	}
}

// TestRunCommandsArgs: the Cline SDK's run_commands (a list of whole
// command lines, no command or cmd property) is the shell tool of a
// request that offers no other, called with the command as the list's
// one element.
func TestRunCommandsArgs(t *testing.T) {
	c := &Conversation{Tools: []Tool{
		{Name: "read_files", Schema: []byte(`{"type":"object","properties":{"files":{"type":"array"}},"required":["files"]}`)},
		{Name: "run_commands", Schema: []byte(`{"type":"object","properties":{"commands":{"type":"array","items":{"type":"string"}}},"required":["commands"]}`)},
	}}
	tool := c.shellTool()
	if tool == nil || tool.Name != "run_commands" {
		t.Fatalf("shell tool %v, want run_commands", tool)
	}
	if got, want := string(shellArgs(tool, "echo alpha")), `{"commands":["echo alpha"]}`; got != want {
		t.Errorf("arguments %s, want %s", got, want)
	}
}
