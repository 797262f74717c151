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
