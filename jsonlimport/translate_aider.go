package jsonlimport

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/aider"
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

// aiderTranslated renders session sess (of another format) as an aider
// chat history: a run header at the session's start, each user message
// as a prompt ("#### " lines), each assistant message as a reply, its
// thinking between aider's thinking tags. Aider's history has no place
// for tool calls, tool results, images or instructions given as messages
// of their own: a session holding any is refused, naming them, and
// nothing is written.
func aiderTranslated(ctx context.Context, s sessiondb.Store, sess sessiondb.Session) ([]byte, error) {
	msgs, loss, err := readForeign(ctx, s, sess)
	if err != nil {
		return nil, fmt.Errorf("export %s %s: %w", FormatAider, sess.ID, err)
	}
	for _, m := range msgs {
		switch m.Role {
		case xToolResult:
			loss.add("tool result")
		case xContext:
			loss.add("instruction message")
		}
		sawText := false
		for _, b := range m.Blocks {
			switch b.Type {
			case xText:
				sawText = true
			case xCall:
				loss.add("tool call")
			case xImage:
				loss.add("image")
			case xThinking:
				if b.Signature != "" || b.Redacted {
					loss.add("signed or redacted thinking block")
				} else if sawText {
					loss.add("thinking block after the text (aider's reply opens with its thinking)")
				}
			}
		}
	}
	if !loss.empty() {
		return nil, untranslatable(FormatAider, sess, "no aider shape for "+loss.String()+"; nothing was written for this session")
	}
	start := sess.CreatedAt
	if start.IsZero() && len(msgs) > 0 {
		start = msgs[0].Time
	}
	var buf bytes.Buffer
	var want []string // what each message must read back as
	fmt.Fprintf(&buf, "\n# aider chat started at %s\n\n", start.UTC().Format("2006-01-02 15:04:05"))
	for _, m := range msgs {
		var text, thinking []string
		for _, b := range m.Blocks {
			switch b.Type {
			case xText:
				text = append(text, b.Text)
			case xThinking:
				thinking = append(thinking, b.Text)
			}
		}
		said, thought := strings.Join(text, "\n\n"), strings.Join(thinking, "\n\n")
		switch m.Role {
		case xUser:
			lines := strings.Split(said, "\n")
			buf.WriteString("\n#### " + strings.Join(lines, "  \n#### ") + "  \n")
			want = append(want, "user\x00\x00"+said)
		case xAssistant:
			reply := said
			if thought != "" {
				reply = aiderThinkingOpen + "\n\n" + thought + "\n\n" + aiderThinkingClose + "\n\n" + reply
			}
			buf.WriteString("\n" + reply + "\n\n")
			want = append(want, "assistant\x00"+thought+"\x00"+said)
		}
	}
	// Aider's history is Markdown read by line shapes: a reply line that
	// begins "> " or "#### ", blank lines around a text, reads back
	// otherwise. Such a session is refused rather than written wrong.
	back := aider.Conversation(buf.Bytes())
	bad := len(back) != len(want)
	for i := 0; !bad && i < len(back); i++ {
		bad = back[i].Role+"\x00"+back[i].Thinking+"\x00"+back[i].Text != want[i]
	}
	if bad {
		return nil, untranslatable(FormatAider, sess, "a text that aider's chat history cannot hold as written (a line it would read as a prompt or as its own output, blank lines around a message, an empty message); nothing was written for this session")
	}
	return buf.Bytes(), nil
}

// aider's reasoning tags (aider/reasoning_tags.py).
const (
	aiderThinkingOpen  = "<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>"
	aiderThinkingClose = "</thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>"
)
