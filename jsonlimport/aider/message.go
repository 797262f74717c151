package aider

import (
	"regexp"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// thinkingBlock is a reasoning model's thinking as aider writes it into a
// reply: between <thinking-content-<hash>> tags (aider's REASONING_TAG),
// or the <think> tags some models send and aider keeps.
var thinkingBlock = regexp.MustCompile(`(?s)<(thinking-content-[0-9a-f]+|think)>\s*(.*?)\s*</(?:thinking-content-[0-9a-f]+|think)>`)

// Understand implements jsonl.MessageReader: a prompt is the user's text
// (without aider's "#### " and line-end spaces), a reply the assistant's
// text with its thinking apart, a run header and aider's own output
// ("> " lines: tool messages, questions, token reports) bookkeeping.
// Aider makes no tool calls: the model writes its edits into the reply
// and aider applies them, saying so in its output.
func (Format) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	typ, _ := obj["type"].(string)
	text, _ := obj["text"].(string)
	switch typ {
	case kindUser:
		return jsonl.Message{Role: "user", Text: promptText(text)}
	case kindAssistant:
		m := jsonl.Message{Role: "assistant"}
		var thoughts []string
		rest := thinkingBlock.ReplaceAllStringFunc(text, func(s string) string {
			if sub := thinkingBlock.FindStringSubmatch(s); sub != nil && strings.TrimSpace(sub[2]) != "" {
				thoughts = append(thoughts, sub[2])
			}
			return ""
		})
		m.Thinking = strings.Join(thoughts, "\n\n")
		m.Text = strings.TrimSpace(rest)
		return m
	case kindHeader:
		return jsonl.Message{Role: "aider", Text: strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "# ")), Bookkeeping: true}
	case kindOutput:
		return jsonl.Message{Role: "aider", Text: outputText(text), Bookkeeping: true}
	}
	return jsonl.Extracted(e)
}

// Conversation reads the prompts and replies of a chat history held in
// data, in order, as Understand reads them (the header and aider's output
// left out). A translation into aider checks with it that what it wrote
// reads back as written.
func Conversation(data []byte) []jsonl.Message {
	runs, _, _ := split(data)
	var out []jsonl.Message
	for _, r := range runs {
		for _, b := range r.blocks {
			if b.kind != kindUser && b.kind != kindAssistant {
				continue
			}
			obj := map[string]any{"type": b.kind, "text": string(data[b.start:b.end])}
			out = append(out, Format{}.Understand(sessiondb.Entry{}, obj))
		}
	}
	return out
}
