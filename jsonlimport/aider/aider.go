package aider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Name is the format's name in the registry and in sessions'
// SourceFormat.
const Name = "aider"

// The files aider writes in a project (its defaults; --chat-history-file
// and --input-history-file name others).
const (
	ChatFile  = ".aider.chat.history.md"
	InputFile = ".aider.input.history"
)

// Entry kinds of the blocks that are not a prompt or a reply.
const (
	KindHeader = "aider.header"
	KindOutput = "aider.output"
)

// Format is aider's chat history: a jsonl.StoreFormat whose store is the
// chat history file and whose sessions are its runs.
type Format struct{}

// Name implements jsonl.Format.
func (Format) Name() string { return Name }

// Claim takes every chat history file (by its name, or a Markdown file
// that begins with a run header) with the input history beside it.
func (Format) Claim(files []string) (units []jsonl.Unit, rest []string) {
	inputs := map[string]string{}
	for _, f := range files {
		if filepath.Base(f) == InputFile {
			inputs[filepath.Dir(f)] = f
		}
	}
	used := map[string]bool{}
	var claimed []string
	for _, f := range files {
		if jsonl.Reserved(f) || !isChat(f) {
			continue
		}
		u := jsonl.Unit{Format: Name, Path: f}
		if in, ok := inputs[filepath.Dir(f)]; ok && filepath.Base(f) == ChatFile {
			u.Extra = []string{in}
			used[in] = true
		}
		units = append(units, u)
		claimed = append(claimed, f)
	}
	for _, f := range files {
		if !used[f] && !contains(claimed, f) {
			rest = append(rest, f)
		}
	}
	return units, rest
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// isChat reports whether path is a chat history: named so, or a .md
// file whose first line that is not blank is a run header.
func isChat(path string) bool {
	if filepath.Base(path) == ChatFile {
		return true
	}
	if !strings.EqualFold(filepath.Ext(path), ".md") {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 512)
	n, _ := f.Read(buf)
	return bytes.HasPrefix(bytes.TrimLeft(buf[:n], "\r\n"), []byte(headerPrefix))
}

// SkipReason implements jsonl.Skipper: an input history without a chat
// history beside it holds no conversation.
func (Format) SkipReason(path string) string {
	if filepath.Base(path) == InputFile {
		return "aider's input history (read with the chat history beside it, which is not here); skipped"
	}
	return ""
}

// readStore reads the chat history and the input history of a unit.
func readStore(u jsonl.Unit) (data, input []byte, err error) {
	data, err = os.ReadFile(u.Path)
	if err != nil {
		return nil, nil, err
	}
	for _, x := range u.Extra {
		if filepath.Base(x) == InputFile {
			input, _ = os.ReadFile(x)
		}
	}
	return data, input, nil
}

// Sessions implements jsonl.StoreFormat: one session per run of the file.
func (Format) Sessions(ctx context.Context, store jsonl.Unit, c *jsonl.Cache) ([]jsonl.StoreSession, []jsonl.Problem, error) {
	data, input, err := readStore(store)
	if err != nil {
		return nil, nil, err
	}
	runs, _, _ := split(data)
	var out []jsonl.StoreSession
	for _, r := range runs {
		out = append(out, jsonl.StoreSession{
			Unit:    jsonl.Unit{Format: Name, Path: jsonl.SessionPath(store.Path, r.key), Extra: store.Extra},
			Stamp:   runStamp(data, r, input),
			Rows:    int64(len(r.blocks)),
			Updated: r.started,
			Bytes:   int64(r.end - r.start),
		})
	}
	return out, nil, nil
}

// body is an entry's JSON: the block's kind and its bytes as written.
type body struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

var (
	versionLine = regexp.MustCompile(`^Aider v(\S+)`)
	modelLine   = regexp.MustCompile(`^(?:Main model|Model): (\S+) with (\S+) edit format`)
)

// Parse implements jsonl.Format for one run (a session unit of
// Sessions). A run is read whole: a run that grew is read again and the
// importer keeps the entries after those it has (ErrNotIncremental).
func (Format) Parse(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (*jsonl.Parsed, error) {
	if from.Offset > 0 {
		return nil, jsonl.ErrNotIncremental
	}
	path, key, ok := jsonl.SplitSessionPath(u.Path)
	if !ok {
		return nil, fmt.Errorf("aider: %s is no run of a chat history (import the chat history file)", u.Path)
	}
	data, input, err := readStore(jsonl.Unit{Path: path, Extra: u.Extra})
	if err != nil {
		return nil, err
	}
	runs, _, held := split(data)
	var r *run
	for i := range runs {
		if runs[i].key == key {
			r = &runs[i]
		}
	}
	if r == nil {
		return nil, fmt.Errorf("aider: run %s is no longer in %s", key, path)
	}
	p := &jsonl.Parsed{Unit: u, Offset: int64(r.end - r.start)}
	if held && r == &runs[len(runs)-1] {
		p.Notes = append(p.Notes, jsonl.Problem{Path: path, Reason: jsonl.UnfinishedMarker + ": the file ends in a line aider is still writing; the block it belongs to is read on the next import"})
	}
	prompts := readInput(input)
	pi := 0
	at := r.started
	attrs := map[string]string{}
	if r.stamp != "" {
		attrs["started"] = r.stamp
	}
	var title, project string
	lineOf := func(b block) int { return b.line }
	for _, b := range r.blocks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		raw := data[b.start:b.end]
		text := string(jsonl.ValidUTF8(raw))
		if text != string(raw) {
			p.Problems = append(p.Problems, jsonl.Problem{Path: path, Line: lineOf(b), Reason: "bytes that are not UTF-8 were replaced (U+FFFD); the export of this run differs there"})
		}
		e := sessiondb.Entry{Kind: sessiondb.KindMessage}
		switch b.kind {
		case kindHeader:
			e.Kind, e.Role = KindHeader, "aider"
		case kindOutput:
			e.Kind, e.Role = KindOutput, "aider"
			out := outputText(text)
			if m := versionLine.FindStringSubmatch(out); m != nil {
				attrs["aider_version"] = m[1]
			}
			for _, l := range strings.Split(out, "\n") {
				if m := modelLine.FindStringSubmatch(l); m != nil {
					attrs["model"], attrs["edit_format"] = m[1], m[2]
				}
				if dir, ok := strings.CutPrefix(l, "Git working dir: "); ok && project == "" {
					project = strings.TrimSpace(dir)
				}
			}
		case kindUser:
			e.Role = "user"
			said := promptText(text)
			for j := pi; j < len(prompts); j++ {
				if prompts[j].text == said && !prompts[j].at.Before(r.started.Add(-time.Second)) {
					if prompts[j].at.After(at) {
						at = prompts[j].at
					}
					pi = j + 1
					break
				}
			}
			if title == "" {
				title = titleOf(said)
			}
		default:
			e.Role = "assistant"
		}
		e.CreatedAt = at
		e.Body, _ = json.Marshal(body{Type: b.kind, Text: text})
		p.Entries = append(p.Entries, e)
		if b.kind == kindOutput {
			if rep, ok := readTokens(outputText(text)); ok {
				u := sessiondb.Usage{Seq: int64(len(p.Entries)), Model: attrs["model"], InputTokens: rep.sent, OutputTokens: rep.received,
					CacheReadTokens: rep.cacheHit, CacheWriteTokens: rep.cacheWrite, Cost: rep.cost, CreatedAt: at}
				if prov, model, ok := strings.Cut(u.Model, "/"); ok {
					u.Provider, u.Model = prov, model
				}
				if !rep.hasCost {
					// No price known to aider: estimated, as for any tool
					// that records no cost.
					rows := []sessiondb.Usage{u}
					jsonl.EstimateCosts(rows)
					u = rows[0]
				}
				p.Usage = append(p.Usage, u)
			}
		}
	}
	if len(p.Entries) == 0 {
		return nil, jsonl.ErrNoConversation
	}
	if project == "" {
		project = filepath.Dir(path) // aider writes its history at the git root
	}
	p.Session = sessiondb.Session{ID: key, Title: title, Project: project, CreatedAt: r.started, UpdatedAt: at}
	if r.started.IsZero() {
		p.Session.CreatedAt = p.Entries[0].CreatedAt
	}
	if len(attrs) > 0 {
		p.Session.Attrs, _ = json.Marshal(attrs)
	}
	return p, nil
}

// titleOf is a session's title from its first prompt: the words of a
// prompt to the model (a /ask, /code or /architect command's text),
// none from another command or an answer to aider's questions.
func titleOf(said string) string {
	s := strings.TrimSpace(said)
	if strings.HasPrefix(s, "/") {
		cmd, rest, _ := strings.Cut(s, " ")
		switch cmd {
		case "/ask", "/code", "/architect", "/context":
			s = strings.TrimSpace(rest)
		default:
			return ""
		}
	}
	if len([]rune(s)) < 4 {
		return "" // y, n, skip: answers to aider's questions
	}
	return jsonl.TitleOf(s)
}
