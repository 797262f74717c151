package jsonlimport

// Translation between formats, for exports of a session into a format
// other than the one it was imported from.
//
// A session's effective transcript is read into a neutral conversation
// (xMsg: user, assistant, tool result and context messages whose blocks
// are text, thinking, images and tool calls), which a target's writer
// renders in its own shapes. Whatever the reader meets that the neutral
// conversation cannot hold is counted (xLoss) and the export is refused
// with ErrUntranslatable, naming each kind of content and how often it
// occurs; nothing is dropped silently.
//
// This file holds the whole understanding of other formats' bodies that
// exports need; it reads what mcpserver/message.go's Understand reads
// (issue 22 gives every format one shared understanding, and this reader
// is then to be switched onto it, keeping the loss accounting).
//
// What each source gives the neutral conversation:
//
//   - Claude Code: the user and assistant lines of the resume path; the
//     lines of one API response (the same message.id) become one assistant
//     message, followed by the results of its calls (Claude Code 2.1
//     writes a response's later blocks after results of its earlier
//     calls; pi, like the API, wants a message's results after it);
//     thinking keeps its signature, redacted_thinking becomes a
//     redacted thinking block holding its data; tool_use becomes a tool
//     call; each tool_result block a tool result (named after its call);
//     base64 images are kept. Left out, by design: the tool's bookkeeping
//     lines (system, summary, progress, file-history-snapshot, …) and the
//     tool-results files (the full output of which the tool_result line
//     holds what the model was shown). Refused: attachment lines (context
//     Claude Code adds to the prompt; left out and counted instead under
//     LeaveOutAttachments, which package handoff uses: the receiving agent
//     adds its own), server_tool_use and other block types with no
//     neutral shape, images given by URL.
//   - Codex: the response items of the transcript; consecutive assistant
//     items (reasoning, assistant messages, tool calls) form one assistant
//     message; reasoning becomes thinking whose text is its summary (and
//     content) and whose signature is the reasoning item's JSON, which is
//     how pi's own openai-responses provider keeps a reasoning item to
//     replay it; function_call a tool call with its parsed arguments;
//     custom_tool_call (freeform tools such as apply_patch) a tool call
//     whose arguments are {"input": text}; local_shell_call a tool call
//     "local_shell" whose arguments are its action; *_output items tool
//     results; developer and system messages context messages. Left out,
//     by design: event_msg, turn_context and session_meta lines (echoes
//     and settings) and ghost_snapshot items (Codex's undo bookkeeping,
//     never sent to the model). Refused: web_search_call, tool_search
//     items and any other item type, images given by URL.
//   - pi: user, assistant and toolResult messages (pi's blocks text,
//     thinking with thinkingSignature and redacted, image, toolCall) and
//     custom_message entries (context messages named by customType).
//     Left out: model and thinking-level changes, labels, session info.
//     Refused: compaction and branch_summary entries, bashExecution and
//     extension messages.
//   - Gemini CLI: the user's and the model's records of the transcript,
//     read as Gemini CLI resumes them: a model record's parts (thought
//     parts are thinking with their thoughtSignature, function calls tool
//     calls), else its text after its recorded thoughts ("**subject**
//     description") and its toolCalls as tool calls; then the results its
//     toolCalls hold; a user record's function responses are tool results
//     (output, else error as an error result), its other parts a user
//     message; inline images are kept. Gemini CLI keeps each result twice
//     (in the call's record and in the record of the responses it sent,
//     and sends both on resume): the second, identical copy is left out.
//     Left out, by design: headers, $set and $rewindTo lines, info, error
//     and warning records (shown, never sent). Refused: function calls or
//     responses without an id, inline data that is not an image, file
//     references, code execution parts, function responses with parts.
//   - Qwen Code: user, tool_result and assistant records' parts, read as
//     Gemini CLI's (the records of one uuid, message-part entries, make one
//     message, as Qwen Code merges them); an old whole-JSON chat's records
//     as Gemini CLI's. Left out: system records (telemetry, titles,
//     snapshots, compressions, whose compressed history the transcript
//     holds as messages).
//   - opencode: the messages opencode sends back (translate_opencode.go
//     says which parts are read and which refused).
//   - crush and the Go opencode: their message rows (translate_crush.go).
//   - goose: its messages (translate_goose.go).
//   - Cursor: its bubbles (translate_cursor.go).
//   - The Cursor agent: its transcripts' message lines
//     (translate_cursoragent.go).
//   - Cline and Roo Code: a task's API history, Anthropic messages
//     (translate_cline.go).
//   - picoclaw, zot, swink and sessions an application wrote: message
//     objects with a role, in the OpenAI shape (content, tool_calls,
//     tool_call_id, reasoning_content), zot's untyped blocks (a "tool"
//     message's {call_id, content, is_error} results; a reasoning block
//     with a summary alone is thinking, although zot's own loader reads it
//     as an empty text) or swink's typed blocks. Refused: a body without a
//     role, entries of other kinds (swink's custom entries, compactions),
//     picoclaw's media references, attachments and system parts.
//
// Targets:
//
//   - pi writes the neutral conversation (translate_pi.go), and so does
//     opencode, as the JSON `opencode import` loads (translate_opencode.go).
//   - picoclaw, zot and swink write it as message bodies of their own
//     shapes, which their exporters then write (translate_bodies.go says
//     what each cannot hold). A session of their own format, or one an
//     application wrote, is written as stored, as before.
//   - Codex writes it as a rollout (translate_codex.go): a session_meta
//     line and response items; thinking and error flags are refused, or
//     left out and named under LeaveOutUncarried.
//   - Claude Code writes it as the transcript it resumes, leaving out
//     (under LeaveOutUnsendable) or refusing the thinking Anthropic's API
//     did not sign and context messages (translate_claudecode.go).
//   - Gemini CLI and Qwen Code write it as a chat file gemini --resume
//     and qwen --resume take (translate_gemini.go, translate_qwen.go: what
//     they carry of thinking signed by another vendor).
//
// TestExportCorpusCrossFormat exports every fixture and corpus session into
// every other format: each export is refused with ErrUntranslatable (or
// ErrInvalid: an ID the target cannot name), or imports back, with our
// readers, to the same conversation (every text, thinking block with its
// signature, image, tool call and result, calls still paired).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/claudecode"
	"github.com/sessiondb/sessiondb/jsonlimport/codex"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// ErrUntranslatable is returned (wrapped, with the counts of what cannot
// be carried) by an export of a session into a format that has no shape
// for some of its content. It wraps sessiondb.ErrInvalid.
var ErrUntranslatable = fmt.Errorf("content the target format cannot hold: %w", sessiondb.ErrInvalid)

// Roles of the neutral conversation.
const (
	xUser       = "user"
	xAssistant  = "assistant"
	xToolResult = "toolResult"
	// xContext is an instruction the source gave the model as a message
	// of its own (Codex developer and system messages); Name says which.
	xContext = "context"
)

// Block types of the neutral conversation.
const (
	xText     = "text"
	xThinking = "thinking"
	xImage    = "image"
	xCall     = "toolCall"
)

// xMsg is one message of the neutral conversation.
type xMsg struct {
	Role   string
	Name   string // xContext: the source's role (developer, system)
	Time   time.Time
	Blocks []xBlock
	// Assistant messages: where the response came from, and the source's
	// response id (lines of one response share it).
	Provider, API, Model, RespID string
	// Tool results.
	CallID, ToolName string
	IsError          bool
}

// xBlock is one content block of the neutral conversation.
type xBlock struct {
	Type string
	Text string // text, thinking
	// Thinking: the provider's opaque replay data, and whether the
	// thinking was redacted (its text then empty).
	Signature string
	Redacted  bool
	// Tool calls: Args is a JSON object.
	ID, Name string
	Args     json.RawMessage
	// Images: base64 data and media type.
	Data, MIME string
}

// xLoss counts what a reader could not carry, by description.
type xLoss struct {
	n map[string]int
}

func (l *xLoss) add(what string) {
	if l.n == nil {
		l.n = map[string]int{}
	}
	l.n[what]++
}

func (l *xLoss) empty() bool { return len(l.n) == 0 }

// String names each kind of content and its count, most frequent first:
// "3 web_search_call items, 1 attachment line".
func (l *xLoss) String() string {
	kinds := make([]string, 0, len(l.n))
	for k := range l.n {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if l.n[kinds[i]] != l.n[kinds[j]] {
			return l.n[kinds[i]] > l.n[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", l.n[k], plural(k, l.n[k]))
	}
	return strings.Join(parts, ", ")
}

// plural makes what plural for n != 1: its noun, the words before a
// qualifier (" in", " of", " whose", " with", " without", " (")
// ("tool result inside an assistant's content" → "tool results inside
// an assistant's content", "entry" → "entries").
func plural(what string, n int) string {
	if n == 1 {
		return what
	}
	head, rest := what, ""
	cut := len(what)
	for _, q := range []string{" in", " of", " whose", " with", " (", " that", " not"} {
		if i := strings.Index(what, q); i > 0 && i < cut {
			cut = i
		}
	}
	head, rest = what[:cut], what[cut:]
	switch {
	case strings.HasSuffix(head, "s"):
		head += "es"
	case strings.HasSuffix(head, "y") && !strings.HasSuffix(head, "ey"):
		head = head[:len(head)-1] + "ies"
	default:
		head += "s"
	}
	return head + rest
}

// xReader turns transcript entries of one source format into the neutral
// conversation.
type xReader struct {
	format string
	msgs   []xMsg
	loss   xLoss
	names  map[string]string // tool call id → tool name
	model  string            // the session's model (Codex turn_context, Attrs)
	// results holds the tool results read, by call id and text, to leave
	// out the second copy Gemini CLI keeps of a result.
	results map[string]string
	// leaveOut, under LeaveOutAttachments, is where the number of Claude
	// Code attachment lines left out is told; left is that number.
	leaveOut *int
	left     int
}

type leaveOutKey struct{}

// LeaveOutAttachments returns a context under which a translation of a
// Claude Code session into another format leaves out its attachment
// lines (the context Claude Code adds to a prompt: environment, date,
// tool and skill listings, reminders) instead of refusing the session,
// and sets *n to how many it left out (of the last session read). It is
// for handing a session to another agent, which adds its own context to
// the prompts; the caller names what was left out. Without it such a
// session is refused (ErrUntranslatable), as always.
func LeaveOutAttachments(ctx context.Context, n *int) context.Context {
	return context.WithValue(ctx, leaveOutKey{}, n)
}

// readForeign reads the effective transcript of session sess into the
// neutral conversation.
func readForeign(ctx context.Context, s sessiondb.Store, sess sessiondb.Session) ([]xMsg, *xLoss, error) {
	full, err := s.LoadFull(ctx, sess.ID, sessiondb.LoadOptions{})
	if err != nil {
		return nil, nil, err
	}
	r := &xReader{format: sess.SourceFormat, names: map[string]string{}}
	r.leaveOut, _ = ctx.Value(leaveOutKey{}).(*int)
	var attrs struct {
		Model string `json:"model"`
	}
	if len(sess.Attrs) > 0 {
		_ = json.Unmarshal(sess.Attrs, &attrs)
	}
	r.model = attrs.Model
	for _, e := range full.Transcript {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		r.entry(e)
	}
	if r.leaveOut != nil {
		*r.leaveOut = r.left
	}
	return r.msgs, &r.loss, nil
}

func (r *xReader) entry(e sessiondb.Entry) {
	switch r.format {
	case FormatClaudeCode:
		r.claudeCode(e)
	case FormatCodex:
		r.codex(e)
	case FormatPi:
		r.pi(e)
	case FormatGemini:
		r.gemini(e)
	case FormatQwen:
		r.qwen(e)
	case FormatOpencode:
		r.opencode(e)
	case FormatAider:
		r.aider(e)
	case FormatCrush, FormatOpencodeGo:
		r.crush(e)
	case FormatGoose:
		r.goose(e)
	case FormatCursor:
		r.cursor(e)
	case FormatCursorAgent:
		r.cursorAgent(e)
	case FormatCopilot:
		r.copilot(e)
	case FormatCline:
		r.cline(e)
	default:
		var obj map[string]json.RawMessage
		if json.Unmarshal(e.Body, &obj) != nil || jsonl.RawString(obj, "role") == "" {
			if e.Kind == "" || e.Kind == sessiondb.KindMessage {
				r.loss.add("entry without a role")
			} else {
				r.loss.add(e.Kind + " entry")
			}
			return
		}
		r.object(obj, e.CreatedAt)
	}
}

// ---- Claude Code ----

// ccTranslatedLosses are the Claude Code bookkeeping line types a
// translation has no place for and so reports as losses: attachment
// lines (system reminders sent to the model), pr-link and tag.
var ccTranslatedLosses = map[string]bool{"attachment": true, "pr-link": true, "tag": true}

// ccUntranslated reports whether a translation leaves out Claude Code line
// type typ without a loss: the tool's own state, never sent to the model
// (what readers hide, claudecode.BookkeepingType, less ccTranslatedLosses).
func ccUntranslated(typ string) bool {
	return claudecode.BookkeepingType(typ, true) && !ccTranslatedLosses[typ]
}

func (r *xReader) claudeCode(e sessiondb.Entry) {
	var line struct {
		Type    string `json:"type"`
		Message *struct {
			ID      string          `json:"id"`
			Role    string          `json:"role"`
			Model   string          `json:"model"`
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal(e.Body, &line); err != nil {
		r.loss.add("unreadable line")
		return
	}
	if line.Message == nil || (line.Type != "user" && line.Type != "assistant") {
		if ccUntranslated(line.Type) || ccUntranslated(e.Kind) {
			return
		}
		if line.Type == "attachment" && r.leaveOut != nil {
			r.left++
			return
		}
		r.loss.add(orDefault(line.Type, e.Kind) + " line")
		return
	}
	m := line.Message
	role := orDefault(m.Role, line.Type)
	if role == xAssistant {
		if m.Model == "<synthetic>" {
			// A stop the CLI inserted (an interrupted or failed request),
			// not a model response; its text is carried like any other.
			m.Model = ""
		}
		msg := xMsg{Role: xAssistant, Time: e.CreatedAt, Provider: "anthropic", API: "anthropic-messages", Model: m.Model, RespID: m.ID}
		// A line of a response already begun joins its message, also
		// after result lines of its earlier calls (Claude Code 2.1 hangs
		// the next block of a response off a result): the model made one
		// message, and its results follow it.
		for k := len(r.msgs) - 1; k >= 0 && m.ID != ""; k-- {
			if r.msgs[k].Role == xToolResult {
				continue
			}
			if r.msgs[k].Role == xAssistant && r.msgs[k].RespID == m.ID {
				r.msgs[k].Blocks = append(r.msgs[k].Blocks, r.blocks(m.Content)...)
				return
			}
			break
		}
		msg.Blocks = r.blocks(m.Content)
		r.msgs = append(r.msgs, msg)
		return
	}
	r.userContent(m.Content, e.CreatedAt)
}

// ---- Codex ----

func (r *xReader) codex(e sessiondb.Entry) {
	var env struct {
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(e.Body, &env); err != nil {
		r.loss.add("unreadable line")
		return
	}
	item := env.Payload
	switch {
	case env.Type == "response_item":
	case len(env.Payload) == 0 && codex.ItemType(env.Type):
		item = e.Body // a legacy file's bare item
	case env.Type == "turn_context":
		var tc struct {
			Model string `json:"model"`
		}
		if json.Unmarshal(env.Payload, &tc) == nil && tc.Model != "" {
			r.model = tc.Model
		}
		return
	default:
		// session_meta, event_msg, compacted (its replacement history is
		// in the transcript as items), record filler lines.
		return
	}
	var it struct {
		Type      string          `json:"type"`
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		Summary   json.RawMessage `json:"summary"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Input     json.RawMessage `json:"input"`
		Action    json.RawMessage `json:"action"`
		CallID    string          `json:"call_id"`
		Output    json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal(item, &it); err != nil {
		r.loss.add("unreadable response item")
		return
	}
	switch it.Type {
	case "message":
		switch it.Role {
		case "assistant":
			r.assistantBlocks(e.CreatedAt, r.blocks(it.Content)...)
		case "user":
			r.userContent(it.Content, e.CreatedAt)
		case "developer", "system":
			r.msgs = append(r.msgs, xMsg{Role: xContext, Name: it.Role, Time: e.CreatedAt, Blocks: r.blocks(it.Content)})
		default:
			r.loss.add(fmt.Sprintf("message item of role %q", it.Role))
		}
	case "reasoning":
		var parts []string
		for _, raw := range []json.RawMessage{it.Summary, it.Content} {
			var blocks []struct {
				Text string `json:"text"`
			}
			if json.Unmarshal(raw, &blocks) == nil {
				for _, b := range blocks {
					if b.Text != "" {
						parts = append(parts, b.Text)
					}
				}
			}
		}
		r.assistantBlocks(e.CreatedAt, xBlock{Type: xThinking, Text: strings.Join(parts, "\n\n"), Signature: string(compactRaw(item))})
	case "function_call":
		var args string
		if json.Unmarshal(it.Arguments, &args) != nil {
			args = string(it.Arguments)
		}
		obj, ok := jsonObject([]byte(args))
		if !ok {
			r.loss.add("function_call whose arguments are not a JSON object")
			return
		}
		r.call(e.CreatedAt, it.CallID, it.Name, obj)
	case "custom_tool_call":
		var input string
		if json.Unmarshal(it.Input, &input) != nil {
			r.loss.add("custom_tool_call whose input is not text")
			return
		}
		r.call(e.CreatedAt, it.CallID, it.Name, jsonl.MustJSON(map[string]string{"input": input}))
	case "local_shell_call":
		obj, ok := jsonObject(it.Action)
		if !ok {
			r.loss.add("local_shell_call without an action")
			return
		}
		r.call(e.CreatedAt, it.CallID, "local_shell", obj)
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		r.result(e.CreatedAt, it.CallID, it.Output, false)
	case "ghost_snapshot":
		// Codex's undo bookkeeping (a git commit id); never sent to the model.
	default:
		r.loss.add(orDefault(it.Type, "untyped") + " item")
	}
}

// ---- pi ----

func (r *xReader) pi(e sessiondb.Entry) {
	var line struct {
		Type       string          `json:"type"`
		CustomType string          `json:"customType"`
		Content    json.RawMessage `json:"content"`
		Message    *struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			Provider   string          `json:"provider"`
			API        string          `json:"api"`
			Model      string          `json:"model"`
			ToolCallID string          `json:"toolCallId"`
			ToolName   string          `json:"toolName"`
			IsError    bool            `json:"isError"`
		} `json:"message"`
	}
	if err := json.Unmarshal(e.Body, &line); err != nil {
		r.loss.add("unreadable line")
		return
	}
	switch {
	case line.Type == "custom_message":
		r.msgs = append(r.msgs, xMsg{Role: xContext, Name: line.CustomType, Time: e.CreatedAt, Blocks: r.blocks(line.Content)})
		return
	case line.Type != "message" || line.Message == nil:
		if e.Kind == sessiondb.KindMessage || e.Kind == "compaction" || e.Kind == "branch_summary" {
			r.loss.add(orDefault(line.Type, e.Kind) + " entry")
		}
		return // model, thinking-level, label and session-info changes
	}
	m := line.Message
	switch m.Role {
	case xUser:
		if b := r.blocks(m.Content); len(b) > 0 {
			r.msgs = append(r.msgs, xMsg{Role: xUser, Time: e.CreatedAt, Blocks: b})
		}
	case xAssistant:
		r.msgs = append(r.msgs, xMsg{Role: xAssistant, Time: e.CreatedAt, Provider: m.Provider, API: m.API, Model: m.Model, Blocks: r.blocks(m.Content)})
	case xToolResult:
		r.names[m.ToolCallID] = m.ToolName
		r.result(e.CreatedAt, m.ToolCallID, m.Content, m.IsError)
	default:
		r.loss.add(fmt.Sprintf("%s message", m.Role))
	}
}

// ---- Gemini CLI and Qwen Code ----

// gemini reads a Gemini CLI chat entry: its user and model records (an
// entry of another kind, or an info, error or warning record, is left
// out: Gemini CLI never sends them to the model).
func (r *xReader) gemini(e sessiondb.Entry) { r.geminiRecord(e, "gemini") }

// geminiRecord reads a Gemini CLI message record (Qwen Code's old chats
// hold the same records, the model's typed "qwen").
func (r *xReader) geminiRecord(e sessiondb.Entry, assistant string) {
	var rec struct {
		ID        string           `json:"id"`
		Type      string           `json:"type"`
		Content   json.RawMessage  `json:"content"`
		Model     string           `json:"model"`
		Context   string           `json:"sessiondbContext"` // translate_gemini.go
		Thoughts  []map[string]any `json:"thoughts"`
		ToolCalls []struct {
			ID     string          `json:"id"`
			Name   string          `json:"name"`
			Args   json.RawMessage `json:"args"`
			Result json.RawMessage `json:"result"`
			Status string          `json:"status"`
		} `json:"toolCalls"`
	}
	if err := json.Unmarshal(e.Body, &rec); err != nil {
		r.loss.add("unreadable record")
		return
	}
	if rec.ID == "" {
		return // a header, a $set or $rewindTo line
	}
	parts := genaiParts(rec.Content)
	switch rec.Type {
	case "user":
		if rec.Context != "" {
			r.msgs = append(r.msgs, xMsg{Role: xContext, Name: rec.Context, Time: e.CreatedAt, Blocks: r.genaiBlocks(parts)})
			return
		}
		r.genaiUser(parts, e.CreatedAt)
	case assistant:
		msg := xMsg{Role: xAssistant, Time: e.CreatedAt, Model: orDefault(rec.Model, r.model)}
		msg.Blocks = r.genaiBlocks(parts)
		hasCalls, hasThought := false, false
		for _, b := range msg.Blocks {
			hasCalls = hasCalls || b.Type == xCall
			hasThought = hasThought || b.Type == xThinking
		}
		if !hasThought {
			var th []xBlock
			for _, t := range rec.Thoughts {
				if s := geminiThought(t); s != "" {
					th = append(th, xBlock{Type: xThinking, Text: s})
				}
			}
			msg.Blocks = append(th, msg.Blocks...)
		}
		if !hasCalls {
			for _, tc := range rec.ToolCalls {
				args, ok := jsonObject(tc.Args)
				if len(bytes.TrimSpace(tc.Args)) == 0 || string(tc.Args) == "null" {
					args, ok = []byte("{}"), true
				}
				if !ok {
					r.loss.add("tool call whose args are not a JSON object")
					continue
				}
				if tc.ID == "" {
					r.loss.add("tool call without an id")
					continue
				}
				r.names[tc.ID] = tc.Name
				msg.Blocks = append(msg.Blocks, xBlock{Type: xCall, ID: tc.ID, Name: tc.Name, Args: args})
			}
		}
		if len(msg.Blocks) > 0 {
			r.msgs = append(r.msgs, msg)
		}
		// The results Gemini CLI sends back after the message on resume.
		for _, tc := range rec.ToolCalls {
			isErr := tc.Status == "error" || tc.Status == "cancelled"
			var s string
			switch {
			case len(tc.Result) == 0 || string(tc.Result) == "null":
			case json.Unmarshal(tc.Result, &s) == nil:
				r.genaiResult(tc.ID, tc.Name, s, isErr, e.CreatedAt)
			default:
				for _, p := range genaiParts(tc.Result) {
					if fr, ok := p["functionResponse"]; ok {
						r.genaiResponse(fr, isErr, e.CreatedAt)
					} else {
						r.loss.add("tool result part that is not a function response")
					}
				}
			}
		}
	}
}

// qwen reads a Qwen Code chat entry: user, tool_result and assistant
// records ({message: {role, parts}}); system records (telemetry, titles,
// snapshots) are left out, never sent to the model; an old whole-JSON
// chat's entries are Gemini CLI's records.
func (r *xReader) qwen(e sessiondb.Entry) {
	var rec struct {
		Type    string `json:"type"`
		Model   string `json:"model"`
		Message *struct {
			Parts json.RawMessage `json:"parts"`
		} `json:"message"`
		ID      string `json:"id"`
		Context string `json:"sessiondbContext"` // translate_qwen.go
	}
	if err := json.Unmarshal(e.Body, &rec); err != nil {
		r.loss.add("unreadable record")
		return
	}
	switch {
	case rec.Message != nil && rec.Type == "assistant":
		if b := r.genaiBlocks(genaiParts(rec.Message.Parts)); len(b) > 0 {
			// Later records of one uuid (message-part entries) continue
			// the message, as Qwen Code merges them.
			if n := len(r.msgs); e.Kind == sessiondb.KindMessagePart && n > 0 && r.msgs[n-1].Role == xAssistant {
				r.msgs[n-1].Blocks = append(r.msgs[n-1].Blocks, b...)
				return
			}
			r.msgs = append(r.msgs, xMsg{Role: xAssistant, Time: e.CreatedAt, Model: orDefault(rec.Model, r.model), Blocks: b})
		}
	case rec.Message != nil && rec.Type == "user" && rec.Context != "":
		r.msgs = append(r.msgs, xMsg{Role: xContext, Name: rec.Context, Time: e.CreatedAt, Blocks: r.genaiBlocks(genaiParts(rec.Message.Parts))})
	case rec.Message != nil && (rec.Type == "user" || rec.Type == "tool_result"):
		r.genaiUser(genaiParts(rec.Message.Parts), e.CreatedAt)
	case rec.ID != "":
		r.geminiRecord(e, "qwen")
	}
}

// genaiParts reads a PartListUnion: a string (one text part), a part, or
// a list of parts and strings.
func genaiParts(raw json.RawMessage) []map[string]json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []map[string]json.RawMessage{{"text": jsonl.MustJSON(s)}}
	}
	var one map[string]json.RawMessage
	if json.Unmarshal(raw, &one) == nil && one != nil {
		return []map[string]json.RawMessage{one}
	}
	var list []json.RawMessage
	_ = json.Unmarshal(raw, &list)
	var out []map[string]json.RawMessage
	for _, it := range list {
		if json.Unmarshal(it, &s) == nil {
			out = append(out, map[string]json.RawMessage{"text": jsonl.MustJSON(s)})
			continue
		}
		var p map[string]json.RawMessage
		if json.Unmarshal(it, &p) == nil && p != nil {
			out = append(out, p)
		}
	}
	return out
}

// genaiUser reads the parts of a user turn: function responses become
// tool results, the rest one user message after them.
func (r *xReader) genaiUser(parts []map[string]json.RawMessage, t time.Time) {
	var rest []map[string]json.RawMessage
	for _, p := range parts {
		if fr, ok := p["functionResponse"]; ok {
			r.genaiResponse(fr, false, t)
			continue
		}
		rest = append(rest, p)
	}
	if b := r.genaiBlocks(rest); len(b) > 0 {
		r.msgs = append(r.msgs, xMsg{Role: xUser, Time: t, Blocks: b})
	}
}

// genaiBlocks reads parts other than function responses: text, thought
// text (thinking, with its thoughtSignature), function calls, images.
func (r *xReader) genaiBlocks(parts []map[string]json.RawMessage) []xBlock {
	var out []xBlock
	for _, p := range parts {
		switch {
		case p["functionCall"] != nil:
			var fc struct {
				ID   string          `json:"id"`
				Name string          `json:"name"`
				Args json.RawMessage `json:"args"`
			}
			if json.Unmarshal(p["functionCall"], &fc) != nil || fc.ID == "" {
				r.loss.add("function call without an id")
				continue
			}
			args, ok := jsonObject(fc.Args)
			if len(bytes.TrimSpace(fc.Args)) == 0 || string(fc.Args) == "null" {
				args, ok = []byte("{}"), true
			}
			if !ok {
				r.loss.add("function call whose args are not a JSON object")
				continue
			}
			r.names[fc.ID] = fc.Name
			out = append(out, xBlock{Type: xCall, ID: fc.ID, Name: fc.Name, Args: args})
		case p["text"] != nil:
			var text string
			var thought bool
			_ = json.Unmarshal(p["text"], &text)
			_ = json.Unmarshal(p["thought"], &thought)
			if thought {
				var sig string
				_ = json.Unmarshal(p["thoughtSignature"], &sig)
				out = append(out, xBlock{Type: xThinking, Text: text, Signature: sig})
			} else if text != "" {
				out = append(out, xBlock{Type: xText, Text: text})
			}
		case p["inlineData"] != nil:
			var d struct {
				MimeType string `json:"mimeType"`
				Data     string `json:"data"`
			}
			if json.Unmarshal(p["inlineData"], &d) == nil && strings.HasPrefix(d.MimeType, "image/") && d.Data != "" {
				out = append(out, xBlock{Type: xImage, Data: d.Data, MIME: d.MimeType})
			} else {
				r.loss.add("inline data that is not an image")
			}
		case p["functionResponse"] != nil:
			r.loss.add("function response inside a model turn")
		default:
			for k := range p {
				if k != "thoughtSignature" && k != "thought" {
					r.loss.add(k + " part")
					break
				}
			}
		}
	}
	return out
}

// genaiResponse reads a functionResponse {id, name, response}: a tool
// result whose text is the response's output, or error, else its JSON.
func (r *xReader) genaiResponse(raw json.RawMessage, isErr bool, t time.Time) {
	var fr struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
		Parts    json.RawMessage `json:"parts"`
	}
	if json.Unmarshal(raw, &fr) != nil || fr.ID == "" {
		r.loss.add("function response without an id")
		return
	}
	if len(bytes.TrimSpace(fr.Parts)) > 0 && string(fr.Parts) != "null" && string(fr.Parts) != "[]" {
		r.loss.add("function response with parts")
		return
	}
	var resp struct {
		Output *string         `json:"output"`
		Error  json.RawMessage `json:"error"`
	}
	_ = json.Unmarshal(fr.Response, &resp)
	text := string(compactRaw(fr.Response))
	switch {
	case resp.Output != nil:
		text = *resp.Output
	case len(resp.Error) > 0 && string(resp.Error) != "null":
		isErr = true
		var s string
		if json.Unmarshal(resp.Error, &s) == nil {
			text = s
		} else {
			text = string(compactRaw(resp.Error))
		}
	}
	r.genaiResult(fr.ID, fr.Name, text, isErr, t)
}

// genaiResult adds a tool result, unless the same call already has this
// very result: Gemini CLI keeps a call's result in its tool call record
// and writes the response it sent as a record of its own, and sends both
// on resume; the copy carries nothing more.
func (r *xReader) genaiResult(id, name, text string, isErr bool, t time.Time) {
	if r.results == nil {
		r.results = map[string]string{}
	}
	key := id + "\x00" + text
	if _, dup := r.results[key]; dup {
		return
	}
	r.results[key] = ""
	if name != "" && r.names[id] == "" {
		r.names[id] = name
	}
	r.result(t, id, jsonl.MustJSON(text), isErr)
}

// geminiThought is a recorded thought as Gemini CLI rebuilds it:
// "**subject** description".
func geminiThought(t map[string]any) string {
	subject, _ := t["subject"].(string)
	desc, _ := t["description"].(string)
	if subject != "" {
		return "**" + subject + "** " + desc
	}
	return desc
}

// ---- message objects (picoclaw, zot, swink, applications) ----

func (r *xReader) object(obj map[string]json.RawMessage, t time.Time) {
	role := jsonl.RawString(obj, "role")
	for _, k := range []string{"media", "attachments", "system_parts"} {
		// picoclaw's media references, attachments and system prompt parts.
		if v := bytes.TrimSpace(obj[k]); len(v) > 0 && string(v) != "null" && string(v) != "[]" {
			r.loss.add("picoclaw " + strings.ReplaceAll(k, "_", " ") + " member")
		}
	}
	switch role {
	case "user":
		r.userContent(obj["content"], t)
	case "assistant":
		var blocks []xBlock
		var rc string
		if json.Unmarshal(obj["reasoning_content"], &rc) == nil && rc != "" {
			blocks = append(blocks, xBlock{Type: xThinking, Text: rc})
		}
		blocks = append(blocks, r.blocks(obj["content"])...)
		var calls []struct {
			ID       string `json:"id"`
			Name     string `json:"name"`
			Function *struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if raw, ok := obj["tool_calls"]; ok && string(raw) != "null" {
			if json.Unmarshal(raw, &calls) != nil {
				r.loss.add("tool_calls member that is not a list")
			}
		}
		for _, c := range calls {
			name, args := c.Name, c.Arguments
			if c.Function != nil {
				name, args = c.Function.Name, c.Function.Arguments
			}
			var s string
			if json.Unmarshal(args, &s) == nil {
				args = []byte(s)
			}
			if len(bytes.TrimSpace(args)) == 0 {
				args = []byte("{}")
			}
			o, ok := jsonObject(args)
			if !ok {
				r.loss.add("tool call whose arguments are not a JSON object")
				continue
			}
			r.names[c.ID] = name
			blocks = append(blocks, xBlock{Type: xCall, ID: c.ID, Name: name, Args: o})
		}
		msg := xMsg{Role: xAssistant, Time: t, Blocks: blocks}
		_ = json.Unmarshal(obj["model"], &msg.Model)
		if msg.Model == "" {
			_ = json.Unmarshal(obj["model_id"], &msg.Model)
		}
		_ = json.Unmarshal(obj["provider"], &msg.Provider)
		r.msgs = append(r.msgs, msg)
	case "tool", "tool_result", "function":
		var isErr bool
		_ = json.Unmarshal(obj["is_error"], &isErr)
		id := jsonl.RawString(obj, "tool_call_id")
		var list []struct {
			CallID  string          `json:"call_id"`
			Content json.RawMessage `json:"content"`
			IsError bool            `json:"is_error"`
		}
		if id == "" && json.Unmarshal(obj["content"], &list) == nil && len(list) > 0 && list[0].CallID != "" {
			// zot: {"role":"tool","content":[{call_id, content, is_error}]}
			for _, b := range list {
				if b.CallID == "" {
					r.loss.add("tool message block without a call_id")
					continue
				}
				r.result(t, b.CallID, b.Content, b.IsError)
			}
			return
		}
		r.result(t, id, obj["content"], isErr)
	case "system", "developer":
		r.msgs = append(r.msgs, xMsg{Role: xContext, Name: role, Time: t, Blocks: r.blocks(obj["content"])})
	default:
		r.loss.add(fmt.Sprintf("message of role %q", role))
	}
}

// ---- shared pieces ----

// userContent reads a user message's content: tool_result blocks become
// tool results, the rest one user message after them.
func (r *xReader) userContent(raw json.RawMessage, t time.Time) {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		if b := r.blocks(raw); len(b) > 0 {
			r.msgs = append(r.msgs, xMsg{Role: xUser, Time: t, Blocks: b})
		}
		return
	}
	var rest []json.RawMessage
	for _, b := range list {
		var tr struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			IsError   bool            `json:"is_error"`
		}
		if json.Unmarshal(b, &tr) == nil && tr.Type == "tool_result" {
			r.result(t, tr.ToolUseID, tr.Content, tr.IsError)
			continue
		}
		rest = append(rest, b)
	}
	// As above: blocks that carry nothing (an empty thinking block) make
	// no message, which a writer would drop and a reader never see.
	if b := r.blockList(rest); len(b) > 0 {
		r.msgs = append(r.msgs, xMsg{Role: xUser, Time: t, Blocks: b})
	}
}

// assistantBlocks adds blocks to the assistant message in progress (the
// last message, when it is an assistant's), else to a new one.
func (r *xReader) assistantBlocks(t time.Time, blocks ...xBlock) {
	if n := len(r.msgs); n > 0 && r.msgs[n-1].Role == xAssistant {
		r.msgs[n-1].Blocks = append(r.msgs[n-1].Blocks, blocks...)
		return
	}
	provider, api := "", ""
	if r.format == FormatCodex {
		provider, api = "openai", "openai-responses"
	}
	r.msgs = append(r.msgs, xMsg{Role: xAssistant, Time: t, Provider: provider, API: api, Model: r.model, Blocks: blocks})
}

func (r *xReader) call(t time.Time, id, name string, args json.RawMessage) {
	r.names[id] = name
	r.assistantBlocks(t, xBlock{Type: xCall, ID: id, Name: name, Args: args})
}

// result adds the tool result of call id; content is a string (Codex's
// output string is kept as the model saw it) or blocks.
func (r *xReader) result(t time.Time, id string, content json.RawMessage, isErr bool) {
	m := xMsg{Role: xToolResult, Time: t, CallID: id, ToolName: r.names[id], IsError: isErr}
	if len(bytes.TrimSpace(content)) > 0 && string(content) != "null" {
		m.Blocks = r.blocks(content)
	}
	r.msgs = append(r.msgs, m)
}

// blocks reads a content value: a string (one text block) or a list of
// blocks.
func (r *xReader) blocks(raw json.RawMessage) []xBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return nil
		}
		return []xBlock{{Type: xText, Text: s}}
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		if len(bytes.TrimSpace(raw)) > 0 && string(raw) != "null" {
			r.loss.add("content that is neither text nor a list of blocks")
		}
		return nil
	}
	return r.blockList(list)
}

func (r *xReader) blockList(list []json.RawMessage) []xBlock {
	var out []xBlock
	for _, raw := range list {
		var b struct {
			Type      string          `json:"type"`
			Text      *string         `json:"text"`
			Thinking  *string         `json:"thinking"`
			Signature string          `json:"signature"`
			ThinkSig  string          `json:"thinkingSignature"`
			Redacted  bool            `json:"redacted"`
			Data      json.RawMessage `json:"data"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			Arguments json.RawMessage `json:"arguments"`
			MimeType  string          `json:"mimeType"`
			MimeType2 string          `json:"mime_type"`
			ImageURL  json.RawMessage `json:"image_url"`
			Source    *struct {
				Type      string `json:"type"`
				MediaType string `json:"media_type"`
				Data      string `json:"data"`
			} `json:"source"`
			CallID      string `json:"call_id"`
			ReasoningID string `json:"reasoning_id"`
			Summary     string `json:"summary"`
			Encrypted   string `json:"encrypted_content"`
		}
		var str string
		if json.Unmarshal(raw, &str) == nil {
			out = append(out, xBlock{Type: xText, Text: str})
			continue
		}
		if err := json.Unmarshal(raw, &b); err != nil {
			r.loss.add("unreadable content block")
			continue
		}
		var data string
		_ = json.Unmarshal(b.Data, &data)
		switch b.Type {
		case "text", "input_text", "output_text":
			if b.Text != nil {
				out = append(out, xBlock{Type: xText, Text: *b.Text})
			}
		case "thinking":
			if b.Thinking != nil {
				out = append(out, xBlock{Type: xThinking, Text: *b.Thinking, Signature: orDefault(b.Signature, b.ThinkSig), Redacted: b.Redacted})
			}
		case "redacted_thinking":
			out = append(out, xBlock{Type: xThinking, Signature: data, Redacted: true})
		case "tool_use", "tool_call", "toolCall":
			args := b.Input
			if len(args) == 0 {
				args = b.Arguments
			}
			if len(bytes.TrimSpace(args)) == 0 || string(args) == "null" {
				args = []byte("{}")
			}
			o, ok := jsonObject(args)
			if !ok {
				r.loss.add(b.Type + " block whose input is not a JSON object")
				continue
			}
			r.names[b.ID] = b.Name
			out = append(out, xBlock{Type: xCall, ID: b.ID, Name: b.Name, Args: o})
		case "image":
			switch {
			case b.Source != nil && b.Source.Type == "base64" && b.Source.Data != "" && b.Source.MediaType != "":
				// (Without data or a media type no target can carry
				// it: a loss, not an empty image.)
				out = append(out, xBlock{Type: xImage, Data: b.Source.Data, MIME: b.Source.MediaType})
			case b.Source == nil && data != "" && b.MimeType != "":
				out = append(out, xBlock{Type: xImage, Data: data, MIME: b.MimeType})
			default:
				r.loss.add("image not given as base64 data")
			}
		case "input_image":
			var url string
			_ = json.Unmarshal(b.ImageURL, &url)
			if mime, d, ok := dataURL(url); ok {
				out = append(out, xBlock{Type: xImage, Data: d, MIME: mime})
			} else {
				r.loss.add("image not given as base64 data")
			}
		case "":
			// zot's untyped blocks.
			switch {
			case b.ReasoningID != "" || b.Encrypted != "" || b.Summary != "" && b.Text == nil:
				// A reasoning block (zot also writes one with a summary
				// alone, which its loader reads as an empty text).
				out = append(out, xBlock{Type: xThinking, Text: b.Summary, Signature: b.Encrypted})
			case b.Name != "" && b.ID != "":
				o, ok := jsonObject(b.Arguments)
				if !ok {
					o = []byte("{}")
					if len(bytes.TrimSpace(b.Arguments)) > 0 && string(b.Arguments) != "null" {
						r.loss.add("tool call whose arguments are not a JSON object")
						continue
					}
				}
				r.names[b.ID] = b.Name
				out = append(out, xBlock{Type: xCall, ID: b.ID, Name: b.Name, Args: o})
			case b.MimeType2 != "":
				out = append(out, xBlock{Type: xImage, Data: data, MIME: b.MimeType2})
			case b.CallID != "":
				r.loss.add("tool result inside an assistant's content")
			case b.Text != nil:
				out = append(out, xBlock{Type: xText, Text: *b.Text})
			default:
				r.loss.add("untyped content block")
			}
		default:
			r.loss.add(b.Type + " block")
		}
	}
	return out
}

// dataURL splits "data:<mime>;base64,<data>".
func dataURL(u string) (mime, data string, ok bool) {
	rest, found := strings.CutPrefix(u, "data:")
	if !found {
		return "", "", false
	}
	head, data, found := strings.Cut(rest, ",")
	mime, isB64 := strings.CutSuffix(head, ";base64")
	return mime, data, found && isB64 && mime != ""
}

// jsonObject returns raw compacted when it is a JSON object.
func jsonObject(raw []byte) (json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return nil, false
	}
	return compactRaw(raw), true
}

// compactRaw returns raw without insignificant white space (raw when it
// is not valid JSON).
func compactRaw(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

func orDefault(s, alt string) string {
	if s != "" {
		return s
	}
	return alt
}

// untranslatable is the error of a session whose content target cannot
// hold.
func untranslatable(target string, sess sessiondb.Session, what string) error {
	return fmt.Errorf("export %s: session %s (from %s): %s: %w", target, sess.ID, orDefault(sess.SourceFormat, "an application"), what, ErrUntranslatable)
}

// describe says what a neutral conversation holds, and what could not
// be read into it: "12 messages, 3 tool calls, 3 tool results and 2
// thinking blocks (and 1 web_search_call item with no neutral shape)".
func describe(msgs []xMsg, loss *xLoss) string {
	var calls, results, thinking int
	for _, m := range msgs {
		if m.Role == xToolResult {
			results++
		}
		for _, b := range m.Blocks {
			switch b.Type {
			case xCall:
				calls++
			case xThinking:
				thinking++
			}
		}
	}
	what := fmt.Sprintf("%d %s, %d tool %s, %d tool %s and %d thinking %s",
		len(msgs), plural("message", len(msgs)), calls, plural("call", calls), results, plural("result", results), thinking, plural("block", thinking))
	if !loss.empty() {
		what += " (and " + loss.String() + " with no neutral shape)"
	}
	return what
}

// foreignFile is the jsonl.ForeignWriter, the file Claude Code, Codex, pi
// and opencode write for a session of another format: pi's translation
// (translate_pi.go), opencode's export JSON (translate_opencode.go),
// Codex's rollout (translate_codex.go), Claude Code's transcript
// (translate_claudecode.go); the others refuse, naming what the session
// holds.
func foreignFile(ctx context.Context, s sessiondb.Store, sess sessiondb.Session, target string) ([]byte, error) {
	if target == FormatOpencode {
		return opencodeTranslated(ctx, s, sess)
	}
	if target == FormatAider {
		return aiderTranslated(ctx, s, sess)
	}
	if target == FormatCodex {
		return codexTranslated(ctx, s, sess)
	}
	if target == FormatClaudeCode {
		return claudeCodeTranslated(ctx, s, sess)
	}
	if target == FormatPi || target == FormatGemini || target == FormatQwen || target == FormatCopilot {
		var attrs struct {
			CWD string `json:"cwd"`
		}
		if len(sess.Attrs) > 0 {
			_ = json.Unmarshal(sess.Attrs, &attrs)
		}
		if target == FormatGemini {
			return geminiTranslated(ctx, s, sess, attrs.CWD)
		}
		if target == FormatQwen {
			return qwenTranslated(ctx, s, sess, attrs.CWD)
		}
		if target == FormatCopilot {
			return copilotTranslated(ctx, s, sess, attrs.CWD)
		}
		return piTranslated(ctx, s, sess, attrs.CWD)
	}
	msgs, loss, err := readForeign(ctx, s, sess)
	if err != nil {
		return nil, fmt.Errorf("export %s %s: %w", target, sess.ID, err)
	}
	return nil, untranslatable(target, sess, describe(msgs, loss)+
		" cannot be written as a "+target+" file: only a session imported from "+target+" is written back (a file "+target+
		" resumes needs ids, request metadata and settings lines this session does not have, and "+target+" cannot be run here to check one)")
}
