package jsonlimport

import (
	"github.com/sessiondb/sessiondb"
)

// aider reads an aider block into the neutral conversation: a prompt as
// the user's text, a reply as the assistant's thinking and text; the run
// header and aider's output lines are its own log, never sent to the
// model as such, and are left out as Claude Code's bookkeeping is.
func (r *xReader) aider(e sessiondb.Entry) {
	m := Understand(FormatAider, e)
	if m.Bookkeeping {
		return
	}
	switch m.Role {
	case "user":
		if m.Text != "" {
			r.msgs = append(r.msgs, xMsg{Role: xUser, Time: e.CreatedAt, Blocks: []xBlock{{Type: xText, Text: m.Text}}})
		}
	case "assistant":
		msg := xMsg{Role: xAssistant, Time: e.CreatedAt, Model: r.model}
		if m.Thinking != "" {
			msg.Blocks = append(msg.Blocks, xBlock{Type: xThinking, Text: m.Thinking})
		}
		if m.Text != "" {
			msg.Blocks = append(msg.Blocks, xBlock{Type: xText, Text: m.Text})
		}
		if len(msg.Blocks) > 0 {
			r.msgs = append(r.msgs, msg)
		}
	default:
		r.loss.add("aider entry")
	}
}
