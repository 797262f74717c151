package jsonlimport

// The Gemini CLI writer of the neutral conversation (translate.go): a
// session of another format becomes a Gemini CLI chat file (JSONL, as
// Gemini CLI 0.61 writes it, testdata/agents/gemini), which `gemini
// --resume ID` lists and resumes:
//
//   - a header {"sessionId", "projectHash" (the SHA-256 of the session's
//     working directory, in hex, as Gemini CLI computes it), "startTime",
//     "lastUpdated", "kind": "main"};
//   - a user message: a "user" record whose content is its parts (text,
//     inlineData images);
//   - an assistant message: a "gemini" record whose content is its parts
//     in the order of its blocks: thinking as thought parts ({"text",
//     "thought": true}), text, inlineData images, function calls
//     ({"functionCall": {id, name, args}}); Gemini CLI sends a record's
//     content parts as the model turn when they hold a call or a thought,
//     so the order the model produced them in is kept. Calls keep the
//     source's tool names and arguments: Gemini CLI replays history without
//     checking them (package handoff names calls of tools it lacks);
//   - the tool results after an assistant message: one "user" record of
//     functionResponse parts ({id, name, response: {"output": text}}, or
//     {"error": text} for a failed call), in the source's order, which
//     Gemini CLI sends as the user turn answering the calls (as it does
//     with the copy of the responses it records itself);
//   - a context message (Codex developer and system instructions): a
//     "user" record of its text with "sessiondbContext": the source's role,
//     which Gemini CLI ignores (it sends the text as a user turn) and our
//     reader gives back as the context message.
//
// Record ids are made from the session's ID and the record's position
// (the same session is written the same way each time), times are the
// messages'. What cannot be carried is changed, as geminiCarried says:
// thinking another vendor's API signed keeps its text and loses its
// signature (Gemini's API checks only its own; package handoff names the
// loss), redacted thinking (no text, only another vendor's data) is left
// out, and so is empty text. Refused (ErrUntranslatable): images in a tool
// result, calls and results without an id, two calls of one id, a session
// with no message left, and anything the neutral reader cannot read.
// Gemini CLI itself leaves out, on resume, user prompts that start with
// "/" or "?" (it takes them for commands) and ones that start with
// <session_context>.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/geminichat"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// geminiTime is Gemini CLI's timestamp: ISO 8601 in UTC, milliseconds.
func geminiTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// geminiGoogleSigned reports whether m's thinking signatures are Google's
// (a pi message of Google's API), which Gemini's API can check.
func geminiGoogleSigned(m xMsg) bool {
	return strings.HasPrefix(m.API, "google") || m.Provider == "google"
}

// geminiCarried is the conversation msgs as a Gemini CLI file carries it:
// another vendor's thinking signatures cleared, redacted thinking and
// empty text left out, and messages left empty by that dropped.
func geminiCarried(msgs []xMsg) []xMsg {
	out := make([]xMsg, 0, len(msgs))
	for _, m := range msgs {
		blocks := make([]xBlock, 0, len(m.Blocks))
		for _, b := range m.Blocks {
			switch {
			case b.Type == xThinking && b.Redacted:
				continue
			case b.Type == xText && b.Text == "":
				continue
			case b.Type == xThinking && !geminiGoogleSigned(m):
				b.Signature = ""
			}
			blocks = append(blocks, b)
		}
		if len(blocks) == 0 && m.Role != xToolResult {
			continue
		}
		m.Blocks = blocks
		out = append(out, m)
	}
	return out
}

// geminiPart is a part of a Gemini content (genai's Part), members in
// Gemini CLI's order.
type geminiPart struct {
	Text             *string         `json:"text,omitempty"`
	Thought          bool            `json:"thought,omitempty"`
	ThoughtSignature string          `json:"thoughtSignature,omitempty"`
	InlineData       *geminiInline   `json:"inlineData,omitempty"`
	FunctionCall     *geminiCall     `json:"functionCall,omitempty"`
	FunctionResponse *geminiResponse `json:"functionResponse,omitempty"`
}

type geminiInline struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

type geminiCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type geminiResponse struct {
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	Response map[string]string `json:"response"`
}

// geminiRecordOut is a message record of a Gemini CLI chat file.
type geminiRecordOut struct {
	ID        string       `json:"id"`
	Timestamp string       `json:"timestamp"`
	Type      string       `json:"type"`
	Content   []geminiPart `json:"content"`
	Model     string       `json:"model,omitempty"`
	Context   string       `json:"sessiondbContext,omitempty"`
}

// geminiTranslated renders session sess (of another format) as a Gemini
// CLI chat file, header first; cwd is the session's working directory.
func geminiTranslated(ctx context.Context, s sessiondb.Store, sess sessiondb.Session, cwd string) ([]byte, error) {
	msgs, loss, err := readForeign(ctx, s, sess)
	if err != nil {
		return nil, fmt.Errorf("export %s %s: %w", FormatGemini, sess.ID, err)
	}
	geminiUnwritable(msgs, loss)
	if !loss.empty() {
		return nil, untranslatable(FormatGemini, sess, "no Gemini CLI shape for "+loss.String()+"; nothing was written for this session")
	}
	carried := geminiCarried(msgs)
	if !slices.ContainsFunc(carried, geminiResumes) {
		// Only context or slash commands (an aider run of /add lines):
		// Gemini CLI neither lists nor resumes a chat without messages,
		// and our reader imports such a file as no session.
		return nil, untranslatable(FormatGemini, sess, "no message a Gemini CLI chat could hold; nothing was written for this session")
	}
	return geminiFile(sess, cwd, carried)
}

// geminiResumes reports whether Gemini CLI sends m to its model when it
// resumes the chat: an answer or a tool result, or a user message with
// an image or a text it does not leave out (geminichat.IgnoredUserText:
// slash commands, help requests, its own context; jsonl.StripContext: a
// text that is all other agents' context tags).
func geminiResumes(m xMsg) bool {
	switch m.Role {
	case xAssistant, xToolResult:
		return true
	case xContext:
		return false
	}
	var text strings.Builder
	for _, b := range m.Blocks {
		if b.Type != xText {
			return true
		}
		text.WriteString(b.Text)
	}
	// What our reader (geminichat.UnderstandRecord) takes for context or
	// bookkeeping, as Gemini CLI leaves it out.
	t := strings.TrimSpace(text.String())
	return !geminichat.IgnoredUserText(t) && jsonl.StripContext(t) != ""
}

// geminiUnwritable adds to loss what msgs holds that no Gemini part can:
// images in a tool result or of a media type that is not image/*, calls
// or results without an id and calls of
// an id used before (Gemini pairs a response with its call by id).
func geminiUnwritable(msgs []xMsg, loss *xLoss) {
	ids := map[string]bool{}
	for _, m := range msgs {
		if m.Role == xToolResult && m.CallID == "" {
			loss.add("tool result without a call id")
		}
		for _, b := range m.Blocks {
			switch {
			case b.Type == xImage && m.Role == xToolResult:
				loss.add("image in a tool result")
			case b.Type == xImage && !strings.HasPrefix(b.MIME, "image/"):
				// Written as inline data, which Gemini CLI sends on but
				// which is no longer an image: readers (ours too) see
				// other data.
				loss.add("image whose media type is not image/*")
			case b.Type == xCall && b.ID == "":
				loss.add("tool call without an id")
			case b.Type == xCall && ids[b.ID]:
				loss.add("tool call whose id an earlier call has")
			case b.Type == xCall:
				ids[b.ID] = true
			}
		}
	}
}

// geminiFile writes the carried conversation msgs of sess as the lines of
// a Gemini CLI chat file.
func geminiFile(sess sessiondb.Session, cwd string, msgs []xMsg) ([]byte, error) {
	var buf bytes.Buffer
	var bad xLoss
	line := func(v any) error {
		buf.Write(noEscapeJSON(v, &bad))
		buf.WriteByte('\n')
		if !bad.empty() {
			return fmt.Errorf("%s: %w", bad.String(), ErrUntranslatable)
		}
		return nil
	}
	start := sess.CreatedAt
	last := start
	for _, m := range msgs {
		if m.Time.After(last) {
			last = m.Time
		}
	}
	sum := sha256.Sum256([]byte(cwd))
	hdr := struct {
		SessionID   string `json:"sessionId"`
		ProjectHash string `json:"projectHash"`
		StartTime   string `json:"startTime"`
		LastUpdated string `json:"lastUpdated"`
		Kind        string `json:"kind"`
	}{sess.ID, hex.EncodeToString(sum[:]), geminiTime(start), geminiTime(last), "main"}
	if err := line(hdr); err != nil {
		return nil, fmt.Errorf("export %s %s: %w", FormatGemini, sess.ID, err)
	}
	n := 0
	record := func(typ string, t time.Time, parts []geminiPart, model, context string) error {
		if t.IsZero() {
			t = start
		}
		n++
		id := geminiRecordID(sess.ID, n)
		return line(geminiRecordOut{id, geminiTime(t), typ, parts, model, context})
	}
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		var err error
		switch m.Role {
		case xToolResult:
			// This result and the ones after it: one user turn.
			var parts []geminiPart
			for ; i < len(msgs) && msgs[i].Role == xToolResult; i++ {
				parts = append(parts, geminiResultPart(msgs[i]))
			}
			i--
			err = record("user", m.Time, parts, "", "")
		case xAssistant:
			err = record("gemini", m.Time, geminiParts(m.Blocks), m.Model, "")
		case xContext:
			err = record("user", m.Time, geminiParts(m.Blocks), "", orDefault(m.Name, "context"))
		default:
			err = record("user", m.Time, geminiParts(m.Blocks), "", "")
		}
		if err != nil {
			return nil, fmt.Errorf("export %s %s: message %d: %w", FormatGemini, sess.ID, i+1, err)
		}
	}
	return buf.Bytes(), nil
}

// geminiRecordID is the id of the n-th record of session id, in the shape
// of Gemini CLI's (a UUID).
func geminiRecordID(id string, n int) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/gemini/%d", id, n)))
	h := hex.EncodeToString(sum[:16])
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
}

// geminiParts renders neutral blocks (no results) as Gemini parts.
func geminiParts(blocks []xBlock) []geminiPart {
	out := make([]geminiPart, 0, len(blocks))
	for _, b := range blocks {
		switch b.Type {
		case xText:
			out = append(out, geminiPart{Text: &b.Text})
		case xThinking:
			out = append(out, geminiPart{Text: &b.Text, Thought: true, ThoughtSignature: b.Signature})
		case xImage:
			out = append(out, geminiPart{InlineData: &geminiInline{b.MIME, b.Data}})
		case xCall:
			args := b.Args
			if len(bytes.TrimSpace(args)) == 0 {
				args = json.RawMessage("{}")
			}
			out = append(out, geminiPart{FunctionCall: &geminiCall{b.ID, b.Name, args}})
		}
	}
	return out
}

// geminiResultPart is tool result m as a functionResponse part: its text
// as the output, or as the error of a failed call.
func geminiResultPart(m xMsg) geminiPart {
	var texts []string
	for _, b := range m.Blocks {
		if b.Type == xText {
			texts = append(texts, b.Text)
		}
	}
	key := "output"
	if m.IsError {
		key = "error"
	}
	return geminiPart{FunctionResponse: &geminiResponse{m.CallID, m.ToolName, map[string]string{key: strings.Join(texts, "\n\n")}}}
}
