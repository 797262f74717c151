package goose

// The legacy session files: sessions/<name>.jsonl, one per session,
// written by goose before its SQLite store (storage.rs; read by
// legacy.rs when goose creates sessions.db).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// legacyMeta is the first line of a legacy session file (storage.rs:
// SessionMetadata).
type legacyMeta struct {
	WorkingDir              string  `json:"working_dir"`
	Description             string  `json:"description"`
	ScheduleID              string  `json:"schedule_id"`
	MessageCount            *int64  `json:"message_count"`
	TotalTokens             *int64  `json:"total_tokens"`
	InputTokens             *int64  `json:"input_tokens"`
	OutputTokens            *int64  `json:"output_tokens"`
	AccumulatedTotalTokens  *int64  `json:"accumulated_total_tokens"`
	AccumulatedInputTokens  *int64  `json:"accumulated_input_tokens"`
	AccumulatedOutputTokens *int64  `json:"accumulated_output_tokens"`
	AccumulatedCost         float64 `json:"accumulated_cost"`
}

// legacyParser reads one legacy file.
type legacyParser struct {
	jsonl.WildScan
	pd    *jsonl.Parsed
	meta  *legacyMeta
	first bool // the first object has been read
}

// parseLegacy reads a legacy session file whole: goose rewrote the file
// whole at every save (its first line, the metadata, changes with every
// call), so a resumed read (Offset > 0) returns ErrNotIncremental and the
// importer keeps the entries after those imported.
func parseLegacy(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (*jsonl.Parsed, error) {
	if from.Offset > 0 {
		return nil, jsonl.ErrNotIncremental
	}
	var rs resumeState
	if len(from.State) > 0 {
		_ = json.Unmarshal(from.State, &rs)
	}
	f, _, err := jsonl.OpenAt(u.Path, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLegacy(ctx, u, f, rs)
}

// readLegacy reads a legacy session file's contents from r.
func readLegacy(ctx context.Context, u jsonl.Unit, r io.Reader, rs resumeState) (*jsonl.Parsed, error) {
	p := &legacyParser{WildScan: jsonl.WildScan{Ctx: ctx, Path: u.Path}, pd: &jsonl.Parsed{Unit: u}}
	if err := p.Run(r, 0, p.line); err != nil {
		return nil, err
	}
	pd := p.pd
	pd.Problems = append(p.Problems, pd.Problems...)
	if len(pd.Entries) == 0 {
		// Only the metadata line so far (or a first message being
		// written, a torn line): the session has no time to be created
		// at (a legacy session's times are its messages'), and goose
		// lists no session without messages. The file is looked at again
		// on the next import, so a file that grows from here ends as one
		// import of its final state (as Claude Code's reader does).
		return nil, fmt.Errorf("%w: no timed message yet (%d line(s) with a problem)", jsonl.ErrNoConversation, len(pd.Problems))
	}
	pd.Compactions = compactions(pd.Entries, "goose compaction")
	meta := legacyMeta{}
	if p.meta != nil {
		meta = *p.meta
	}
	id := strings.TrimSuffix(filepath.Base(u.Path), ".jsonl")
	title := strings.TrimSpace(meta.Description)
	if title == "" {
		if rs.Title == "" {
			rs.Title = jsonl.PromptTitle(Format{}, pd.Entries)
		}
		title = rs.Title
	}
	attrs := map[string]any{"cwd": meta.WorkingDir}
	if meta.ScheduleID != "" {
		attrs["schedule_id"] = meta.ScheduleID
	}
	pd.Session = sessiondb.Session{ID: id, Title: title, Attrs: jsonl.MergeAttrs(attrs)}
	if n := len(pd.Entries); n > 0 {
		pd.Session.CreatedAt, pd.Session.UpdatedAt = pd.Entries[0].CreatedAt, pd.Entries[n-1].CreatedAt
	}
	pd.Usage = legacyUsage(meta, pd.Session.UpdatedAt)
	if !validCost(meta.AccumulatedCost) {
		pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Line: 1, Reason: "the session's accumulated_cost is not a cost; left out"})
	}
	pd.Offset = p.Offset
	rs.V, rs.N = 1, len(pd.Entries)
	pd.ResumeState = jsonl.MustJSON(rs)
	return pd, nil
}

// legacyUsage is the session's usage as the metadata line records it:
// its accumulated counts (its last call's when there are none), one
// ledger row replaced at each import.
func legacyUsage(m legacyMeta, at time.Time) []sessiondb.Usage {
	val := func(p *int64) int64 {
		if p == nil || *p < 0 {
			return 0
		}
		return *p
	}
	in, out := val(m.AccumulatedInputTokens), val(m.AccumulatedOutputTokens)
	if m.AccumulatedInputTokens == nil && m.AccumulatedOutputTokens == nil {
		in, out = val(m.InputTokens), val(m.OutputTokens)
	}
	cost := m.AccumulatedCost
	if !validCost(cost) {
		cost = 0
	}
	if in == 0 && out == 0 && cost == 0 {
		return nil
	}
	return []sessiondb.Usage{{CallID: Name + ":session", InputTokens: in, OutputTokens: out, Cost: cost, CreatedAt: at}}
}

// line reads one JSON object of the file.
func (p *legacyParser) line(raw []byte, lineNo int) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		p.Problem(lineNo, "not a JSON object (%v); skipped", err)
		return
	}
	first := !p.first
	p.first = true
	if first {
		if _, ok := obj["role"]; !ok {
			var m legacyMeta
			if err := json.Unmarshal(raw, &m); err != nil || m.MessageCount == nil {
				p.Problem(lineNo, "the first line is neither the session's metadata nor a message; skipped")
				return
			}
			p.meta = &m
			return
		}
	}
	if !messageLine(obj) {
		// goose skips a line it cannot read as a message (legacy.rs).
		p.Problem(lineNo, "not a goose message (role user or assistant, created, content list of goose's items); skipped")
		return
	}
	m := decodeMessage(raw)
	created, _ := m.Created.Int64()
	p.pd.Entries = append(p.pd.Entries, sessiondb.Entry{Kind: sessiondb.KindMessage, Role: m.Role, CreatedAt: unixTime(created), Body: raw})
}
