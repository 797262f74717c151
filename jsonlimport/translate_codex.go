package jsonlimport

// The Codex writer of the neutral conversation (translate.go): a session
// of another format becomes a Codex rollout that `codex resume ID` lists
// and replays, in the shapes Codex itself writes (testdata/agents/codex):
//
//   - a session_meta line first: {id, timestamp, cwd, originator,
//     cli_version, source}; id is the session's ID when it is a UUID,
//     else a UUIDv7 made from the session's creation time and its ID
//     (Codex names a thread by a UUID; an opencode ses_… ID is not one),
//     cwd the session's working directory (its project, else its cwd
//     attribute);
//   - then one response_item line per item, as Codex replays them to the
//     Responses API: a user message {type: message, role: user, content:
//     [input_text | input_image with a data: URL]}; an assistant message's
//     texts as {type: message, role: assistant, content: [output_text]}
//     and its tool calls as function_call {name, arguments (the JSON
//     text), call_id}, in the message's order; a tool result as
//     function_call_output {call_id, output: its text}; a context message
//     (Codex developer or system instructions) as a message of its role.
//
// Tool calls keep their source's names and arguments: Codex replays a
// call of a tool it does not have as history (Codex 0.171 resumes such a
// session, and the Responses API takes any function name in the input)
// but cannot run it again; package handoff names such calls. Under
// LeaveOutUncarried the other agents' shell calls become calls of Codex's
// own exec_command (CodexCall), named in the lines the caller is given
// with the arguments exec_command has no place for. No turn_context, event_msg or token lines are
// written: Codex rebuilds the history from the response items alone and
// takes its model and settings from its own configuration on resume.
//
// What a Codex rollout cannot hold is refused with ErrUntranslatable,
// naming it, and nothing is written: thinking (Codex replays only
// reasoning items its own API encrypted; another vendor's signature, or
// none, is no reasoning item), the error flag of a tool result (Codex
// keeps a result's output text only), images inside tool results or
// assistant messages or of a media type no data: URL holds, tool calls
// outside an assistant message, context
// messages of another kind than developer or system, an assistant message
// right after another (Codex reads consecutive assistant items as one
// message), and whatever the neutral reader could not read. Under
// LeaveOutUncarried (package handoff uses it) thinking is left out, error
// results keep their text, other context messages become developer
// messages and consecutive assistant messages are written one after the
// other (Codex joins them), each kind counted in the lines the caller is
// given; the rest is still refused.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/sessiondb/sessiondb"
)

// codexShellTools are the other agents' shell tools (Claude Code's Bash,
// pi's and opencode's bash, Gemini CLI's and Qwen Code's
// run_shell_command), whose calls a handoff writes as calls of Codex's
// own exec_command.
var codexShellTools = map[string]bool{"Bash": true, "bash": true, "run_shell_command": true}

// CodexCall is the call of Codex's own tool that a call of another
// agent's tool name with arguments args becomes in a handoff to Codex
// (under LeaveOutUncarried): a shell call whose arguments hold a command
// string becomes exec_command {"cmd", "workdir" (from directory, workdir
// or cwd)}; dropped names the other members, which exec_command has no
// place for. ok is false for any other call, which keeps its name and
// arguments.
func CodexCall(name string, args []byte) (codexName string, codexArgs json.RawMessage, dropped []string, ok bool) {
	if !codexShellTools[name] {
		return "", nil, nil, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		return "", nil, nil, false
	}
	var cmd string
	if json.Unmarshal(obj["command"], &cmd) != nil || cmd == "" {
		return "", nil, nil, false
	}
	out := struct {
		Cmd     string `json:"cmd"`
		Workdir string `json:"workdir,omitempty"`
	}{Cmd: cmd}
	for k := range obj {
		switch k {
		case "command":
		case "directory", "workdir", "cwd":
			if json.Unmarshal(obj[k], &out.Workdir) == nil && out.Workdir != "" {
				continue
			}
			dropped = append(dropped, k)
		default:
			dropped = append(dropped, k)
		}
	}
	sort.Strings(dropped)
	return "exec_command", noEscapeJSON(out, &xLoss{}), dropped, true
}

type leaveOutUncarriedKey struct{}

// LeaveOutUncarried returns a context under which a translation into a
// format that cannot hold some content leaves it out instead of refusing
// the session, and appends to *lost one line per kind of content left
// out, naming its count (of the last session written). Today the Codex
// writer honours it: thinking, tool results' error flags, context
// messages of other kinds. It is for handing a session to another agent,
// where the caller shows the lines; without it such a session is refused
// (ErrUntranslatable), as always.
func LeaveOutUncarried(ctx context.Context, lost *[]string) context.Context {
	return context.WithValue(ctx, leaveOutUncarriedKey{}, lost)
}

// codexCLIVersion is the Codex version whose rollouts the writer imitates
// (testdata/agents/codex/manifest.json).
const codexCLIVersion = "0.171.0"

// codexUncarried counts what a rollout cannot hold of msgs: hard, what
// is always refused; soft, what LeaveOutUncarried leaves out.
func codexUncarried(msgs []xMsg) (hard, soft xLoss) {
	for i, m := range msgs {
		if i > 0 && m.Role == xAssistant && msgs[i-1].Role == xAssistant {
			soft.add("assistant message right after another (Codex reads consecutive assistant items as one message)")
		}
		for _, b := range m.Blocks {
			switch {
			case b.Type == xThinking:
				soft.add("thinking block (Codex replays only reasoning its own API encrypted)")
			case b.Type == xImage && strings.ContainsAny(b.MIME, ",;"):
				hard.add("image whose media type cannot be written in a data: URL")
			case b.Type == xImage && m.Role == xToolResult:
				hard.add("image in a tool result")
			case b.Type == xImage && m.Role != xUser && m.Role != xContext:
				hard.add("image outside a user message")
			case b.Type == xCall && m.Role != xAssistant:
				hard.add("tool call outside an assistant message")
			}
		}
		switch {
		case m.Role == xToolResult && m.IsError:
			soft.add("error flag of a tool result (Codex keeps the output text only)")
		case m.Role == xContext && m.Name != "developer" && m.Name != "system":
			soft.add(fmt.Sprintf("context message %q (Codex has developer and system messages)", m.Name))
		}
	}
	return hard, soft
}

// codexThreadID is the thread id the rollout of session sess has: its ID
// when that is a UUID, else a UUIDv7 of its creation time whose random
// bits are a hash of its ID (the same session gets the same id).
func codexThreadID(sess sessiondb.Session) string {
	if u, err := uuid.Parse(sess.ID); err == nil && len(sess.ID) == 36 {
		return u.String()
	}
	sum := sha256.Sum256([]byte(sess.ID))
	var u uuid.UUID
	copy(u[:], sum[:16])
	ms := uint64(max(sess.CreatedAt.UnixMilli(), 0))
	for i := 0; i < 6; i++ {
		u[i] = byte(ms >> (40 - 8*i))
	}
	u[6] = 0x70 | u[6]&0x0f // version 7
	u[8] = 0x80 | u[8]&0x3f // RFC 4122 variant
	return u.String()
}

// codexStamp is a time as Codex writes it: UTC, milliseconds.
func codexStamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

type codexOutContent struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
}

type codexOutItem struct {
	Type      string            `json:"type"`
	Role      string            `json:"role,omitempty"`
	Content   []codexOutContent `json:"content,omitempty"`
	Name      string            `json:"name,omitempty"`
	Arguments string            `json:"arguments,omitempty"`
	CallID    string            `json:"call_id,omitempty"`
	Output    *string           `json:"output,omitempty"`
}

// codexTranslated renders session sess (of another format) as the lines
// of a Codex rollout, session_meta first.
func codexTranslated(ctx context.Context, s sessiondb.Store, sess sessiondb.Session) ([]byte, error) {
	msgs, loss, err := readForeign(ctx, s, sess)
	if err != nil {
		return nil, fmt.Errorf("export %s %s: %w", FormatCodex, sess.ID, err)
	}
	lost, lenient := ctx.Value(leaveOutUncarriedKey{}).(*[]string)
	hard, soft := codexUncarried(msgs)
	var left xLoss // left out under LeaveOutUncarried
	for k, n := range hard.n {
		for range n {
			loss.add(k)
		}
	}
	for k, n := range soft.n {
		for range n {
			if lenient {
				left.add(k)
			} else {
				loss.add(k)
			}
		}
	}
	if !loss.empty() {
		return nil, untranslatable(FormatCodex, sess, "no codex shape for "+loss.String()+"; nothing was written for this session")
	}
	if lenient {
		*lost = (*lost)[:0]
		if !left.empty() {
			for _, part := range strings.Split(left.String(), ", ") {
				*lost = append(*lost, part+" left out")
			}
		}
	}

	var cwd struct {
		CWD string `json:"cwd"`
	}
	if len(sess.Attrs) > 0 {
		_ = json.Unmarshal(sess.Attrs, &cwd)
	}
	var buf bytes.Buffer
	var bad xLoss
	line := func(t time.Time, typ string, payload any) error {
		v := struct {
			Timestamp string `json:"timestamp"`
			Type      string `json:"type"`
			Payload   any    `json:"payload"`
		}{codexStamp(t), typ, payload}
		buf.Write(noEscapeJSON(v, &bad))
		buf.WriteByte('\n')
		if !bad.empty() {
			return fmt.Errorf("export %s %s: %s: %w", FormatCodex, sess.ID, bad.String(), ErrUntranslatable)
		}
		return nil
	}
	meta := struct {
		ID         string `json:"id"`
		Timestamp  string `json:"timestamp"`
		CWD        string `json:"cwd"`
		Originator string `json:"originator"`
		CLIVersion string `json:"cli_version"`
		Source     string `json:"source"`
	}{codexThreadID(sess), codexStamp(sess.CreatedAt), orDefault(sess.Project, orDefault(cwd.CWD, "/")), "sessiondb", codexCLIVersion, "cli"}
	if err := line(sess.CreatedAt, "session_meta", meta); err != nil {
		return nil, err
	}
	if lenient {
		// Shell calls become Codex's own exec_command calls.
		mapped, dropped := map[string]int{}, map[string]bool{}
		for i := range msgs {
			for j, b := range msgs[i].Blocks {
				if b.Type != xCall {
					continue
				}
				if n, a, d, ok := CodexCall(b.Name, b.Args); ok {
					mapped[b.Name]++
					for _, k := range d {
						dropped[k] = true
					}
					msgs[i].Blocks[j].Name, msgs[i].Blocks[j].Args = n, a
				}
			}
		}
		for _, name := range sortedKeys(mapped) {
			line := fmt.Sprintf("%d %s %s written as Codex's exec_command (command and directory kept", mapped[name], name, plural("call", mapped[name]))
			if len(dropped) > 0 {
				line += "; " + strings.Join(sortedKeys(dropped), ", ") + " left out"
			}
			*lost = append(*lost, line+")")
		}
	}
	for _, m := range msgs {
		for _, it := range codexItems(m) {
			if err := line(m.Time, "response_item", it); err != nil {
				return nil, err
			}
		}
	}
	return buf.Bytes(), nil
}

// codexItems renders one neutral message as response items (thinking,
// refused or left out before, is skipped).
func codexItems(m xMsg) []codexOutItem {
	switch m.Role {
	case xToolResult:
		var texts []string
		for _, b := range m.Blocks {
			if b.Type == xText {
				texts = append(texts, b.Text)
			}
		}
		out := strings.Join(texts, "\n\n")
		return []codexOutItem{{Type: "function_call_output", CallID: m.CallID, Output: &out}}
	case xUser, xContext:
		role := m.Role
		if m.Role == xContext {
			role = m.Name
			if role != "system" {
				role = "developer"
			}
		}
		var content []codexOutContent
		for _, b := range m.Blocks {
			switch b.Type {
			case xText:
				content = append(content, codexOutContent{Type: "input_text", Text: b.Text})
			case xImage:
				content = append(content, codexOutContent{Type: "input_image", ImageURL: "data:" + b.MIME + ";base64," + b.Data})
			}
		}
		if len(content) == 0 {
			return nil
		}
		return []codexOutItem{{Type: "message", Role: role, Content: content}}
	}
	var out []codexOutItem
	for _, b := range m.Blocks {
		switch b.Type {
		case xText:
			if n := len(out); n > 0 && out[n-1].Type == "message" {
				out[n-1].Content = append(out[n-1].Content, codexOutContent{Type: "output_text", Text: b.Text})
				continue
			}
			out = append(out, codexOutItem{Type: "message", Role: "assistant", Content: []codexOutContent{{Type: "output_text", Text: b.Text}}})
		case xCall:
			out = append(out, codexOutItem{Type: "function_call", Name: b.Name, Arguments: string(b.Args), CallID: b.ID})
		}
	}
	return out
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
