package jsonlimport

// The Claude Code writer of the neutral conversation (translate.go): a
// session of another format becomes a Claude Code transcript, the lines
// Claude Code 2.1 itself writes, reduced to what it reads back on
// `claude --resume`: each line {parentUuid, isSidechain, userType, cwd,
// sessionId, version, type, message, uuid, timestamp}, chained by
// parentUuid, under a session id of Claude Code's shape
// (claudecode.ForeignSessionID: the source's id when it is a UUID) in
// projects/<cwd as key>/<id>.jsonl (claudecode.ForeignPath).
//
//   - user: {"role":"user","content":[text | image{source:{base64}}]};
//   - assistant: one line per message, {"id":"msg_…","type":"message",
//     "role":"assistant","model","content":[text | thinking |
//     redacted_thinking | tool_use{id,name,input}],"stop_reason",
//     "stop_sequence":null,"usage"} (usage zero: the session's usage stays
//     in the store);
//   - tool results: the results that follow one another make one user
//     line of tool_result blocks {tool_use_id, content, is_error}, as the
//     API wants them (all of a message's results in the next message);
//     a result names its call only, so one without its call (in no
//     session an agent wrote) is read back without the tool's name.
//
// Tool calls keep the source's names and arguments: Claude Code sends
// them back to its model as they are (a call of a tool it does not have
// stays in the history; package handoff names it). Under
// LeaveOutUnsendable (a handoff), a shell call whose arguments Bash holds
// whole (ccBashArgs) is written as a call of Claude Code's Bash, counted
// in LeftOut.AsBash, and a tool call id Anthropic's API would reject is
// rewritten, for the call and its results (ccCallID, LeftOut.IDs).
// Otherwise tool calls and their ids are kept as they are.
//
// Claude Code sends every thinking block back to Anthropic's API, which
// accepts only thinking it signed itself: thinking is written only when
// the source's message came from Anthropic's API (pi's and opencode's
// anthropic provider, with its signature). Thinking of any other vendor,
// or unsigned, and context messages (the source's developer and system
// instructions: Claude Code gives the model its own) have no Claude Code
// shape: the export refuses them, unless the caller asked them left out
// with LeaveOutUnsendable (package handoff does, and names them).

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/claudecode"
)

// ccVersion is the Claude Code version the translated lines say wrote
// them: the one whose files testdata/agents/claude-code holds.
const ccVersion = "2.1.332"

// LeftOut counts what a translation left out because the target agent
// could not send it to its model (LeaveOutUnsendable).
type LeftOut struct {
	// Thinking counts thinking blocks left out, by whose API signed them
	// ("unsigned" for thinking without a signature).
	Thinking map[string]int
	// Context counts context messages left out (a source's developer or
	// system instructions), by their role.
	Context map[string]int
	// AsBash counts the shell calls written as calls of Claude Code's
	// own Bash tool, by the source's tool name.
	AsBash map[string]int
	// IDs counts the tool call ids rewritten to the shape Anthropic's API
	// accepts (ccCallID).
	IDs int
}

type leftOutKey struct{}

// LeaveOutUnsendable returns a context under which a translation into
// Claude Code leaves out what Claude Code cannot send its model (thinking
// Anthropic's API did not sign, the source's context messages) instead of
// refusing the session, and counts it in *lo. It is for handing a session
// to Claude Code, which names what was left out; without it such a
// session is refused (ErrUntranslatable).
func LeaveOutUnsendable(ctx context.Context, lo *LeftOut) context.Context {
	return context.WithValue(ctx, leftOutKey{}, lo)
}

// ccXLine is a Claude Code transcript line of the conversation, members
// in Claude Code's order.
type ccXLine struct {
	ParentUUID  *string `json:"parentUuid"`
	IsSidechain bool    `json:"isSidechain"`
	UserType    string  `json:"userType"`
	CWD         string  `json:"cwd"`
	SessionID   string  `json:"sessionId"`
	Version     string  `json:"version"`
	Type        string  `json:"type"`
	Message     any     `json:"message"`
	UUID        string  `json:"uuid"`
	Timestamp   string  `json:"timestamp"`
}

type ccUsage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

type ccAssistant struct {
	ID           string    `json:"id"`
	Type         string    `json:"type"`
	Role         string    `json:"role"`
	Model        string    `json:"model"`
	Content      []ccBlock `json:"content"`
	StopReason   string    `json:"stop_reason"`
	StopSequence *string   `json:"stop_sequence"`
	Usage        ccUsage   `json:"usage"`
}

type ccUser struct {
	Role    string    `json:"role"`
	Content []ccBlock `json:"content"`
}

type ccSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// ccBlock is an Anthropic content block.
type ccBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature *string         `json:"signature,omitempty"`
	Data      string          `json:"data,omitempty"`
	Source    *ccSource       `json:"source,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *[]ccBlock      `json:"content,omitempty"`
	IsError   *bool           `json:"is_error,omitempty"`
}

// claudeCodeTranslated renders session sess (of another format) as the
// lines of a Claude Code transcript.
func claudeCodeTranslated(ctx context.Context, s sessiondb.Store, sess sessiondb.Session) ([]byte, error) {
	msgs, loss, err := readForeign(ctx, s, sess)
	if err != nil {
		return nil, fmt.Errorf("export %s %s: %w", FormatClaudeCode, sess.ID, err)
	}
	if !loss.empty() {
		return nil, untranslatable(FormatClaudeCode, sess, "no Claude Code shape for "+loss.String()+"; nothing was written for this session")
	}
	lo, _ := ctx.Value(leftOutKey{}).(*LeftOut)
	if lo != nil {
		*lo = LeftOut{}
	}
	data, unsendable, err := ccTranscript(ctx, msgs, sess.SourceFormat, claudecode.ForeignSessionID(sess.ID), claudecode.ForeignCWD(sess), lo)
	switch {
	case err != nil:
		return nil, fmt.Errorf("export %s %s: %w", FormatClaudeCode, sess.ID, err)
	case !unsendable.empty() && lo == nil:
		return nil, untranslatable(FormatClaudeCode, sess, "Claude Code cannot send its model "+unsendable.String()+
			" (it replays thinking to Anthropic's API, which checks its own signatures, and gives its own instructions); nothing was written for this session")
	case len(data) == 0:
		// Claude Code lists no session without a message.
		return nil, untranslatable(FormatClaudeCode, sess, "the session holds no message Claude Code could resume; nothing was written for this session")
	}
	return data, nil
}

// ccTranscript renders msgs (of source format) as the lines of Claude
// Code session sid run in cwd, leaving out what Claude Code cannot send
// its model: that is counted in unsendable and, when lo is not nil, in
// *lo by vendor and role.
func ccTranscript(ctx context.Context, msgs []xMsg, format, sid, cwd string, lo *LeftOut) (data []byte, unsendable *xLoss, err error) {
	unsendable = &xLoss{}
	if lo != nil {
		lo.Thinking, lo.Context, lo.AsBash = map[string]int{}, map[string]int{}, map[string]int{}
	}
	for _, m := range msgs {
		if m.Role == xContext {
			unsendable.add(orDefault(m.Name, "context") + " message")
			if lo != nil {
				lo.Context[orDefault(m.Name, "context")]++
			}
			continue
		}
		for _, b := range m.Blocks {
			if b.Type == xThinking && !ccSendable(m, b) {
				unsendable.add("thinking block not signed by Anthropic's API")
				if lo != nil {
					lo.Thinking[orDefault(thinkingVendor(format, m, b), "unsigned")]++
				}
			}
		}
	}
	var buf bytes.Buffer
	var bad xLoss
	var parent *string
	n := 0
	emit := func(typ string, msg any, t time.Time) error {
		sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", sid, n)))
		h := hex.EncodeToString(sum[:16])
		id := h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
		n++
		buf.Write(noEscapeJSON(ccXLine{parent, false, "external", cwd, sid, ccVersion, typ, msg, id, ccTimestamp(t)}, &bad))
		buf.WriteByte('\n')
		if !bad.empty() {
			return fmt.Errorf("%s: %w", bad.String(), ErrUntranslatable)
		}
		parent = &id
		return nil
	}
	for i := 0; i < len(msgs); i++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		m := msgs[i]
		switch m.Role {
		case xContext:
			continue
		case xAssistant:
			content := make([]ccBlock, 0, len(m.Blocks))
			for _, b := range m.Blocks {
				if b.Type == xThinking && !ccSendable(m, b) {
					continue
				}
				if lo != nil && b.Type == xCall {
					if args, ok := ccBashArgs(b.Name, b.Args); ok {
						lo.AsBash[b.Name]++
						b.Name, b.Args = "Bash", args
					}
					if id, ok := ccCallID(b.ID); !ok {
						lo.IDs++
						b.ID = id
					}
				}
				content = append(content, ccBlockOf(b))
			}
			if len(content) == 0 && len(m.Blocks) > 0 {
				continue // all of it left out
			}
			stop := "end_turn"
			if k := len(content); k > 0 && content[k-1].Type == "tool_use" {
				stop = "tool_use"
			}
			sum := sha256.Sum256([]byte(fmt.Sprintf("%s/msg/%d", sid, i)))
			a := ccAssistant{ID: "msg_" + hex.EncodeToString(sum[:12]), Type: "message", Role: "assistant",
				Model: orDefault(m.Model, "<synthetic>"), Content: content, StopReason: stop}
			if err := emit("assistant", a, m.Time); err != nil {
				return nil, nil, err
			}
		case xToolResult:
			// The results that follow one another: one user line.
			var content []ccBlock
			t := m.Time
			for ; i < len(msgs) && msgs[i].Role == xToolResult; i++ {
				r := msgs[i]
				inner := make([]ccBlock, 0, len(r.Blocks))
				for _, b := range r.Blocks {
					inner = append(inner, ccBlockOf(b))
				}
				isErr := r.IsError
				id := r.CallID
				if lo != nil {
					id, _ = ccCallID(id)
				}
				content = append(content, ccBlock{Type: "tool_result", ToolUseID: id, Content: &inner, IsError: &isErr})
			}
			i--
			if err := emit("user", ccUser{"user", content}, t); err != nil {
				return nil, nil, err
			}
		default:
			content := make([]ccBlock, 0, len(m.Blocks))
			for _, b := range m.Blocks {
				content = append(content, ccBlockOf(b))
			}
			if err := emit("user", ccUser{"user", content}, m.Time); err != nil {
				return nil, nil, err
			}
		}
	}
	return buf.Bytes(), unsendable, nil
}

// ccBashArgs returns the arguments of Claude Code's Bash tool for a
// call of another agent's shell tool that carries nothing Bash has no
// place for: pi's and opencode's bash, Gemini CLI's and Qwen Code's
// run_shell_command {command, description?}, Codex's exec_command
// {cmd}. Any other call (a working directory, a timeout in other units,
// another tool) is not one.
func ccBashArgs(name string, args json.RawMessage) (json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		return nil, false
	}
	key := "command"
	switch name {
	case "bash", "run_shell_command":
	case "exec_command":
		key = "cmd"
	default:
		return nil, false
	}
	var out struct {
		Command     string `json:"command"`
		Description string `json:"description,omitempty"`
	}
	for k, v := range obj {
		switch {
		case k == key && json.Unmarshal(v, &out.Command) == nil && out.Command != "":
		case k == "description" && key == "command" && json.Unmarshal(v, &out.Description) == nil:
		default:
			return nil, false
		}
	}
	if out.Command == "" {
		return nil, false
	}
	b, err := json.Marshal(out)
	return b, err == nil
}

// ccCallID returns id, and true, when Anthropic's API accepts it as a
// tool_use id (1 to 64 ASCII letters, digits, '_' and '-'); else an id
// it accepts, made from id (the same for a call and its results), and
// false. Other agents' ids can hold other characters (pi keeps an OpenAI
// Responses call as "call_…|fc_…").
func ccCallID(id string) (string, bool) {
	ok := id != "" && len(id) <= 64
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
	}
	if ok {
		return id, true
	}
	sum := sha256.Sum256([]byte(id))
	return "toolu_sdb" + hex.EncodeToString(sum[:12]), false
}

// ccSendable reports whether thinking block b of assistant message m can
// be replayed to Anthropic's API: it came from Anthropic (the provider,
// not only its API's shape, which other providers speak too), signed.
func ccSendable(m xMsg, b xBlock) bool {
	return b.Signature != "" && m.Provider == "anthropic"
}

// thinkingVendor is whose API signed thinking block b ("" unsigned).
func thinkingVendor(format string, m xMsg, b xBlock) string {
	if b.Signature == "" {
		return ""
	}
	switch format {
	case FormatCodex:
		return "openai"
	case FormatGemini:
		return "google"
	}
	return orDefault(m.Provider, orDefault(m.API, format))
}

// ccBlockOf is the Anthropic content block of b.
func ccBlockOf(b xBlock) ccBlock {
	switch b.Type {
	case xThinking:
		if b.Redacted {
			return ccBlock{Type: "redacted_thinking", Data: b.Signature}
		}
		return ccBlock{Type: "thinking", Thinking: &b.Text, Signature: &b.Signature}
	case xImage:
		return ccBlock{Type: "image", Source: &ccSource{"base64", b.MIME, b.Data}}
	case xCall:
		return ccBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: b.Args}
	}
	return ccBlock{Type: "text", Text: &b.Text}
}

// ccTimestamp is how Claude Code writes time t: UTC, milliseconds, Z.
func ccTimestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
