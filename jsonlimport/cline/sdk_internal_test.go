package cline

import "testing"

// TestSDKUserInput: the SDK's normalizeUserInput and
// formatDisplayUserInput (@cline/shared prompt/format), as the reader
// reproduces them for what the SDK sends and hashes.
func TestSDKUserInput(t *testing.T) {
	for _, c := range []struct{ in, send, display string }{
		{`<user_input mode="act">Run the tools [[tools]]</user_input>`, "Run the tools [[tools]]", "Run the tools [[tools]]"},
		{"  plain text \n", "plain text", "plain text"},
		{`<user_input mode="plan">a</user_input> and <user_input>b</user_input>`, "a and b", "a and b"},
		{`<user_inputs>x`, "x", "x"},
		{`<user_input mode="act">unclosed`, "unclosed", "unclosed"},
		{`<user_input mode="act"><mode_notice>plan → act</mode_notice>Do it</user_input>`, "<mode_notice>plan → act</mode_notice>Do it", "Do it"},
		{`<user_command slash="team">spawn a team of agents for the following task: build it</user_command>`, "spawn a team of agents for the following task: build it", "/team build it"},
		{`<user_command slash="review">the diff</user_command>`, "the diff", "/review the diff"},
		{"", "", ""},
	} {
		if got := normalizeUserInput(c.in); got != c.send {
			t.Errorf("normalizeUserInput(%q) = %q, want %q", c.in, got, c.send)
		}
		if got := displayUserInput(c.in); got != c.display {
			t.Errorf("displayUserInput(%q) = %q, want %q", c.in, got, c.display)
		}
	}
	if got, want := string(jsString("a\"b\\\n\x01<>&\u2028é")), `"a\"b\\\n\u0001<>&`+"\u2028"+`é"`; got != want {
		t.Errorf("jsString = %s, want %s", got, want)
	}
}
