package opencode

// From a session's messages to what the importer writes: one entry per
// message of a finished turn, the compactions opencode resumes from, the
// usage it recorded, the session's metadata.

import (
	"fmt"
	"regexp"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Kinds of the entries: a message opencode sends to the model when it
// resumes the session, and one it keeps but does not send (a failed
// call, a message of no part that is sent).
const (
	KindUnsent = "unsent"
)

// resumeState is Parsed.ResumeState: where the last import stopped.
type resumeState struct {
	V int `json:"v"`
	// N is the number of messages imported (the entries).
	N int `json:"n"`
	// Last is the last message imported: its time created and id, the
	// cursor in opencode's order.
	LastCreated int64  `json:"last_created,omitempty"`
	LastID      string `json:"last_id,omitempty"`
	// Prefix fingerprints the rows of the messages imported (counts and
	// latest update times of the messages and their parts), so that a
	// change to them (opencode pruning old tool output, a revert
	// deleting messages) is seen without reading them.
	Prefix string `json:"prefix,omitempty"`
	// Title is the title made of the first prompt, for a session opencode
	// has not titled.
	Title string `json:"title,omitempty"`
}

// defaultTitle matches the titles opencode gives a session before it has
// one of its own.
var defaultTitle = regexp.MustCompile(`^(New session - |Child session - )\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

// build turns src into what the importer writes. src.messages are the
// messages after the first base ones of the session (all of them when
// base is 0); rs is the previous import's state (zero for a whole read).
// prefix is the fingerprint of the session's messages up to and
// including the last one settled, when the source has one. live says
// that opencode may still be writing the source (its database, its
// storage/ tree), whose unfinished last turn is then left for later; an
// export file is written whole, and every message of it is read.
func build(u jsonl.Unit, src *source, base int, rs resumeState, prefixOf func(n int, last *message) string, live bool) (*jsonl.Parsed, error) {
	pd := &jsonl.Parsed{Unit: u}
	msgs := src.messages
	n := len(msgs)
	if live {
		n = settled(msgs)
	}
	if n < len(msgs) {
		pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf(
			"%s: the last turn is not finished (opencode is working on it, or stopped in it); its %d messages are imported once it ends",
			jsonl.UnfinishedMarker, len(msgs)-n)})
	}
	done := msgs[:n]
	index := map[string]int{} // message id -> entry number (1-based), of this read
	for i, m := range done {
		index[m.id] = base + i + 1
		kind := sessiondb.KindMessage
		if !m.sent() {
			kind = KindUnsent
		}
		pd.Entries = append(pd.Entries, sessiondb.Entry{Kind: kind, Role: m.info.Role, CreatedAt: msTime(m.created), Body: m.body})
	}
	// Compactions: a summary opencode finished makes the transcript start
	// at the compaction's request (MessageV2.filterCompacted).
	for i, m := range done {
		if !m.isSummary() {
			continue
		}
		w, ok := index[m.info.ParentID]
		if !ok || w-base-1 < 0 {
			if base > 0 {
				return nil, jsonl.ErrNotIncremental // its request was imported before
			}
			continue
		}
		req := &done[w-base-1]
		cp := req.compactionPart()
		if req.info.Role != "user" || cp == nil {
			continue
		}
		at := int64(base + i + 1)
		if cp.TailStartID == "" {
			pd.Compactions = append(pd.Compactions, sessiondb.Compaction{AtSeq: at, KeepFromSeq: int64(w), CreatedAt: msTime(m.created),
				Details: jsonl.MustJSON(map[string]any{"source": "opencode compaction", "message": req.id})})
			continue
		}
		v, ok := index[cp.TailStartID]
		if !ok {
			if base > 0 {
				return nil, jsonl.ErrNotIncremental // the tail starts before this read
			}
			continue // opencode keeps every message then
		}
		if v >= w {
			continue
		}
		// The request, its summary, then the tail kept from before the
		// request, then what follows the summary.
		var sum []sessiondb.Entry
		for _, k := range append(rangeOf(w, int(at)), rangeOf(v, w-1)...) {
			e := pd.Entries[k-base-1]
			e.Summary = true
			sum = append(sum, e)
		}
		pd.Compactions = append(pd.Compactions, sessiondb.Compaction{AtSeq: at, KeepFromSeq: at + 1, Summary: sum, CreatedAt: msTime(m.created),
			Details: jsonl.MustJSON(map[string]any{"source": "opencode compaction", "message": req.id, "tail_start_id": cp.TailStartID})})
	}
	// Usage: one row per assistant message, with opencode's own figures
	// (its session's totals are their sums).
	for i, m := range done {
		if m.info.Role != "assistant" {
			continue
		}
		us := sessiondb.Usage{Seq: int64(base + i + 1), CallID: m.id, Provider: m.info.ProviderID, Model: m.info.ModelID,
			Cost: num(m.info.Cost), CreatedAt: msTime(m.created)}
		if t := m.info.Tokens; t != nil {
			us.InputTokens, us.OutputTokens, us.ReasoningTokens = count(t.Input), count(t.Output), count(t.Reasoning)
			us.CacheReadTokens, us.CacheWriteTokens = count(t.Cache.Read), count(t.Cache.Write)
		}
		if us.InputTokens == 0 && us.OutputTokens == 0 && us.ReasoningTokens == 0 && us.CacheReadTokens == 0 && us.CacheWriteTokens == 0 && us.Cost == 0 {
			continue // no call was answered (aborted before the model replied)
		}
		pd.Usage = append(pd.Usage, us)
	}
	// Metadata.
	title := src.title
	if title == "" || defaultTitle.MatchString(title) {
		if rs.Title == "" {
			rs.Title = jsonl.PromptTitle(Format{}, pd.Entries)
		}
		title = rs.Title
	}
	attrs := map[string]any{
		"cwd": src.directory, "project": src.worktree, "project_id": src.projectID, "slug": src.slug,
		"opencode_version": src.version, "agent": src.agent, "model": src.model,
	}
	if src.archived {
		attrs["archived"] = true
	}
	if src.revert {
		pd.Notes = append(pd.Notes, jsonl.Problem{Path: u.Path, Reason: "opencode has a revert pending on this session (undone messages are dropped by opencode at its next prompt); every message is imported"})
	}
	pd.Session = sessiondb.Session{ID: src.id, Title: title, ParentID: src.parentID, Attrs: jsonl.MergeAttrs(attrs),
		CreatedAt: msTime(src.created), UpdatedAt: msTime(src.updated)}
	if pd.Session.UpdatedAt.Before(pd.Session.CreatedAt) {
		pd.Session.UpdatedAt = pd.Session.CreatedAt
	}
	if len(src.info) > 0 {
		pd.State = src.info
	}
	pd.Offset = int64(base + n)
	rs.V, rs.N = 1, base+n
	if n > 0 {
		last := &done[n-1]
		rs.LastCreated, rs.LastID = last.created, last.id
		if prefixOf != nil {
			rs.Prefix = prefixOf(base+n, last)
		}
	}
	pd.ResumeState = jsonl.MustJSON(rs)
	return pd, nil
}

// rangeOf returns the integers from a to b.
func rangeOf(a, b int) []int {
	var out []int
	for i := a; i <= b; i++ {
		out = append(out, i)
	}
	return out
}

// messageBody composes a message's entry body from its info and its
// parts (each already as opencode exports it) and reads what the reader
// needs of them. A part that cannot be read is left out, with a problem.
func messageBody(u jsonl.Unit, info []byte, parts [][]byte, problems *[]jsonl.Problem) (message, error) {
	var m message
	if err := decodeNumbers(info, &m.info); err != nil {
		return m, fmt.Errorf("unreadable message info: %v", err)
	}
	m.id = m.info.ID
	m.created = count(m.info.Time.Created)
	var b []byte
	b = append(b, `{"info":`...)
	b = append(b, info...)
	b = append(b, `,"parts":[`...)
	k := 0
	for _, p := range parts {
		var pi partInfo
		if err := decodeNumbers(p, &pi); err != nil {
			*problems = append(*problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("message %s: a part is not readable (%v); left out", m.id, err)})
			continue
		}
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, p...)
		m.parts = append(m.parts, pi)
		k++
	}
	b = append(b, "]}"...)
	m.body = b
	return m, nil
}
