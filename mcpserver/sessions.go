package mcpserver

import (
	"context"
	"fmt"

	"github.com/sessiondb/sessiondb"
)

type listIn struct {
	Query    string `json:"query,omitempty" jsonschema:"keep sessions whose title, one of whose aliases or whose project contains this text"`
	Project  string `json:"project,omitempty" jsonschema:"keep sessions whose project (the working directory the agent ran in) contains this text, e.g. OpenCore"`
	Machine  string `json:"machine,omitempty" jsonschema:"keep sessions imported on this machine (its exact name)"`
	Format   string `json:"format,omitempty" jsonschema:"keep sessions imported from this format, by its sessiondb name as each session shows it (claude-code, codex, pi, gemini-cli, qwen-code, opencode, crush, cursor, cline, copilot-cli, goose, aider, …)"`
	Since    string `json:"since,omitempty" jsonschema:"keep sessions updated at or after this day (YYYY-MM-DD) or time (RFC 3339)"`
	Until    string `json:"until,omitempty" jsonschema:"keep sessions updated up to this day (inclusive) or time"`
	Parent   string `json:"parent,omitempty" jsonschema:"keep the forks of this session (its exact ID)"`
	Limit    int    `json:"limit,omitempty" jsonschema:"at most this many sessions (default 20, at most 500)"`
	MaxBytes int    `json:"max_bytes,omitempty" jsonschema:"size budget of the result in bytes (default 24576, 2048 to 262144)"`
	Cursor   string `json:"cursor,omitempty" jsonschema:"next_cursor of a previous list_sessions result (the filters come from the cursor)"`
}

type usageTotalsOut struct {
	Calls            int64   `json:"calls"`
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	ReasoningTokens  int64   `json:"reasoning_tokens"`
	Cost             float64 `json:"cost" jsonschema:"in US dollars (estimated from list prices for formats that record none), of the priced calls"`
	UnpricedCalls    int64   `json:"unpriced_calls,omitempty" jsonschema:"calls whose cost is unknown (no price for their model): not in cost; when it equals calls the cost is unpriced, not 0"`
}

func totalsOut(u sessiondb.UsageTotals) usageTotalsOut {
	return usageTotalsOut{Calls: u.Calls, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens, ReasoningTokens: u.ReasoningTokens, Cost: u.Cost,
		UnpricedCalls: u.Unpriced}
}

type sessionRow struct {
	ID           string          `json:"id"`
	Title        string          `json:"title"`
	Aliases      []string        `json:"aliases,omitempty" jsonschema:"the first aliases (see alias_count)"`
	AliasCount   int             `json:"alias_count,omitempty"`
	Format       string          `json:"format" jsonschema:"source format, empty for a session an application wrote"`
	Project      string          `json:"project,omitempty" jsonschema:"the working directory the agent ran in"`
	Machine      string          `json:"machine,omitempty" jsonschema:"the machine the session was imported on"`
	SourceGoneAt string          `json:"source_gone_at,omitempty" jsonschema:"set when the session's source (the agent's file or row) is gone: since then the session exists only in sessiondb"`
	ParentID     string          `json:"parent_id,omitempty" jsonschema:"set for a fork: the session it was forked from"`
	ForkSeq      int64           `json:"fork_seq,omitempty"`
	CreatedAt    string          `json:"created_at"`
	UpdatedAt    string          `json:"updated_at"`
	MessageCount int64           `json:"message_count" jsonschema:"messages of the effective transcript, as read_transcript returns them (one API response is one message, however many log entries it was streamed in)"`
	EntryCount   int64           `json:"entry_count" jsonschema:"log entries stored, superseded ones included"`
	Usage        *usageTotalsOut `json:"usage,omitempty"`
}

type listOut struct {
	Sessions   []sessionRow `json:"sessions" jsonschema:"newest first; titles and aliases are recorded data, quoted"`
	Truncated  bool         `json:"truncated" jsonschema:"there is more: call again with cursor = next_cursor"`
	NextCursor string       `json:"next_cursor,omitempty"`
	Note       string       `json:"note,omitempty"`
}

const (
	defaultListLimit = 20
	maxListLimit     = 500
	// maxListScan bounds the sessions one call reads when the format and
	// date filters, which the store does not index, skip rows.
	maxListScan = 5000
	// aliasesShown bounds the aliases of one row.
	aliasesShown = 8
)

func (s *Server) listSessions(ctx context.Context, in listIn) (listOut, error) {
	maxBytes, err := budget(in.MaxBytes)
	if err != nil {
		return listOut{}, err
	}
	c := cursor{Tool: "list_sessions", Query: in.Query, Project: in.Project, Machine: in.Machine, Format: in.Format, Since: in.Since, Until: in.Until, Parent: in.Parent, Limit: in.Limit}
	if in.Cursor != "" {
		if c, err = decodeCursor(in.Cursor, "list_sessions"); err != nil {
			return listOut{}, err
		}
	}
	lim, err := limit("limit", c.Limit, defaultListLimit, maxListLimit)
	if err != nil {
		return listOut{}, err
	}
	since, err := parseBound("since", c.Since, false)
	if err != nil {
		return listOut{}, err
	}
	until, err := parseBound("until", c.Until, true)
	if err != nil {
		return listOut{}, err
	}
	out := listOut{Sessions: []sessionRow{}}
	used := jsonSize(out) + reserve + len(c.encode())
	opts := sessiondb.ListOptions{Query: c.Query, Project: c.Project, Machine: c.Machine, ParentID: c.Parent, Usage: true}
	scanned, stop := 0, ""
	storeCursor := c.Store
	for stop == "" && len(out.Sessions) < lim {
		opts.Cursor, opts.Limit = storeCursor, min(max(lim-len(out.Sessions), 1)*2, 200)
		infos, next, err := s.st.List(ctx, opts)
		if err != nil {
			return listOut{}, fmt.Errorf("list sessions: %w", err)
		}
		for i, si := range infos {
			if !since.IsZero() && si.UpdatedAt.Before(since) {
				next, stop = "", "dates" // newest first: the rest is older
				break
			}
			scanned++
			if (c.Format != "" && si.SourceFormat != c.Format) || (!until.IsZero() && si.UpdatedAt.After(until)) {
				continue
			}
			row := s.row(ctx, si)
			size := jsonSize(row) + 1
			if used+size > maxBytes || len(out.Sessions) == lim {
				if len(out.Sessions) == 0 {
					return listOut{}, fmt.Errorf("list sessions: one session's row does not fit in max_bytes %d", maxBytes)
				}
				// Go on from this row: the store's cursor after the
				// rows before it on this page.
				if next, err = s.listCursorAfter(ctx, opts, i); err != nil {
					return listOut{}, err
				}
				stop = "budget"
				if len(out.Sessions) == lim {
					stop = "limit"
				}
				break
			}
			out.Sessions = append(out.Sessions, row)
			used += size
		}
		storeCursor = next
		if next == "" {
			break
		}
		if stop == "" && scanned >= maxListScan && (c.Format != "" || c.Until != "") {
			stop = "scan"
		}
	}
	if storeCursor != "" {
		c.Store = storeCursor
		out.Truncated, out.NextCursor = true, c.encode()
		switch stop {
		case "budget":
			out.Note = fmt.Sprintf("Stopped at the size budget (max_bytes %d). Call list_sessions with cursor=next_cursor for more.", maxBytes)
		case "scan":
			out.Note = fmt.Sprintf("Read %d sessions without filling the page (format and date filters). Call list_sessions with cursor=next_cursor for more.", scanned)
		default:
			out.Note = "Call list_sessions with cursor=next_cursor for more."
		}
	}
	out.Note = s.withStatus(out.Note)
	return out, nil
}

// listCursorAfter returns the store's cursor after the first n rows of
// the page opts reads.
func (s *Server) listCursorAfter(ctx context.Context, opts sessiondb.ListOptions, n int) (string, error) {
	if n == 0 {
		return opts.Cursor, nil
	}
	opts.Limit, opts.Usage = n, false
	_, next, err := s.st.List(ctx, opts)
	if err != nil {
		return "", fmt.Errorf("list sessions: %w", err)
	}
	return next, nil
}

func (s *Server) row(ctx context.Context, si sessiondb.SessionInfo) sessionRow {
	r := sessionRow{ID: show(si.ID), Title: showOnly(si.Title, 512), Format: show(si.SourceFormat), Project: showOnly(si.Project, 1024),
		Machine: show(si.Machine), ParentID: show(si.ParentID), ForkSeq: si.ForkSeq, CreatedAt: timeString(si.CreatedAt), UpdatedAt: timeString(si.UpdatedAt),
		MessageCount: si.MessageCount, EntryCount: si.EntryCount}
	r.Aliases, r.AliasCount = aliases(si.Aliases)
	if si.Archived() {
		r.SourceGoneAt = timeString(si.SourceGoneAt)
	}
	u := si.Usage
	if u == nil {
		if t, err := s.st.UsageTotals(ctx, si.ID); err == nil {
			u = &t
		}
	}
	if u != nil && u.Calls > 0 {
		t := totalsOut(*u)
		r.Usage = &t
	}
	return r
}

// aliases returns the first aliasesShown aliases, made visible and cut
// at 256 bytes each, and how many there are when some were left out.
func aliases(all []string) ([]string, int) {
	var out []string
	for i, a := range all {
		if i == aliasesShown {
			return out, len(all)
		}
		out = append(out, showOnly(a, 256))
	}
	return out, 0
}

type infoIn struct {
	Session  string `json:"session" jsonschema:"the session's ID or one of its aliases"`
	MaxBytes int    `json:"max_bytes,omitempty" jsonschema:"size budget of the result in bytes (default 24576, 2048 to 262144)"`
}

type compactionOut struct {
	ID              int64  `json:"id"`
	AtSeq           int64  `json:"at_seq" jsonschema:"log length when it was made"`
	KeepFromSeq     int64  `json:"keep_from_seq" jsonschema:"first entry kept verbatim"`
	SummaryMessages int    `json:"summary_messages"`
	TokensBefore    int64  `json:"tokens_before,omitempty"`
	TokensAfter     int64  `json:"tokens_after,omitempty"`
	CreatedAt       string `json:"created_at"`
}

type checkpointOut struct {
	ID        string `json:"id"`
	Label     string `json:"label"`
	AtSeq     int64  `json:"at_seq"`
	CreatedAt string `json:"created_at"`
}

type forkOut struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	ForkSeq int64  `json:"fork_seq" jsonschema:"the parent's log position it was forked at"`
}

type infoOut struct {
	Session          sessionRow      `json:"session"`
	Summary          string          `json:"summary,omitempty"`
	SourcePath       string          `json:"source_path,omitempty"`
	Version          int             `json:"version"`
	Sequence         int64           `json:"sequence" jsonschema:"revision counter: +1 per committed change"`
	LastSeq          int64           `json:"last_seq"`
	Attrs            string          `json:"attrs,omitempty" jsonschema:"the session's attributes (model, cwd, …) as JSON text"`
	Parent           *sessionRef     `json:"parent,omitempty" jsonschema:"the session this one was forked from, when it still exists"`
	Forks            []forkOut       `json:"forks" jsonschema:"the newest forks (list_sessions parent=ID lists them all)"`
	MoreForks        bool            `json:"more_forks,omitempty"`
	Compactions      int             `json:"compactions"`
	LatestCompaction *compactionOut  `json:"latest_compaction,omitempty"`
	Checkpoints      []checkpointOut `json:"checkpoints" jsonschema:"the newest agent checkpoints"`
	CheckpointCount  int             `json:"checkpoint_count"`
	Usage            usageTotalsOut  `json:"usage"`
	Truncated        bool            `json:"truncated" jsonschema:"lists were shortened to fit max_bytes"`
	Note             string          `json:"note,omitempty"`
}

// infoListed bounds the forks and checkpoints session_info lists.
const infoListed = 20

func (s *Server) sessionInfo(ctx context.Context, in infoIn) (infoOut, error) {
	maxBytes, err := budget(in.MaxBytes)
	if err != nil {
		return infoOut{}, err
	}
	sess, err := s.lookup(ctx, in.Session)
	if err != nil {
		return infoOut{}, err
	}
	if sess.EntryCount < 0 {
		if sess, err = s.st.Get(ctx, sess.ID); err != nil {
			return infoOut{}, fmt.Errorf("session %q: %w", in.Session, err)
		}
	}
	totals, err := s.st.UsageTotals(ctx, sess.ID)
	if err != nil {
		return infoOut{}, fmt.Errorf("usage of %q: %w", sess.ID, err)
	}
	out := infoOut{Session: s.row(ctx, sessiondb.SessionInfo{Session: sess, Usage: &totals}),
		Summary: showOnly(sess.Summary, 2048), SourcePath: showOnly(sess.SourcePath, 1024),
		Version: sess.Version, Sequence: sess.Sequence, LastSeq: sess.LastSeq,
		Usage: totalsOut(totals), Forks: []forkOut{}, Checkpoints: []checkpointOut{}}
	out.Session.Usage = nil // the same as Usage
	if len(sess.Attrs) > 0 {
		out.Attrs = showOnly(string(sess.Attrs), 2048)
	}
	if sess.ParentID != "" {
		if p, err := s.st.Get(ctx, sess.ParentID); err == nil {
			out.Parent = &sessionRef{ID: show(p.ID), Title: showOnly(p.Title, 512)}
		}
	}
	forks, next, err := s.st.List(ctx, sessiondb.ListOptions{ParentID: sess.ID, Limit: infoListed})
	if err != nil {
		return infoOut{}, fmt.Errorf("forks of %q: %w", sess.ID, err)
	}
	for _, f := range forks {
		out.Forks = append(out.Forks, forkOut{ID: show(f.ID), Title: showOnly(f.Title, 256), ForkSeq: f.ForkSeq})
	}
	out.MoreForks = next != ""
	comps, err := s.st.Compactions(ctx, sess.ID)
	if err != nil {
		return infoOut{}, fmt.Errorf("compactions of %q: %w", sess.ID, err)
	}
	out.Compactions = len(comps)
	if n := len(comps); n > 0 {
		c := comps[n-1]
		out.LatestCompaction = &compactionOut{ID: c.ID, AtSeq: c.AtSeq, KeepFromSeq: c.KeepFromSeq, SummaryMessages: len(c.Summary),
			TokensBefore: c.TokensBefore, TokensAfter: c.TokensAfter, CreatedAt: timeString(c.CreatedAt)}
	}
	cps, err := s.st.ListCheckpoints(ctx, sess.ID)
	if err != nil {
		return infoOut{}, fmt.Errorf("checkpoints of %q: %w", sess.ID, err)
	}
	out.CheckpointCount = len(cps)
	for i, cp := range cps {
		if i == infoListed {
			break
		}
		out.Checkpoints = append(out.Checkpoints, checkpointOut{ID: show(cp.ID), Label: showOnly(cp.Label, 256), AtSeq: cp.AtSeq, CreatedAt: timeString(cp.CreatedAt)})
	}
	// Every field is bounded; a small budget shortens the lists, then the
	// free texts.
	for jsonSize(out)+reserve > maxBytes {
		switch {
		case len(out.Forks) > 0:
			out.Forks, out.MoreForks = out.Forks[:len(out.Forks)-1], true
		case len(out.Checkpoints) > 0:
			out.Checkpoints = out.Checkpoints[:len(out.Checkpoints)-1]
		case len(out.Session.Aliases) > 0:
			out.Session.AliasCount = max(out.Session.AliasCount, len(sess.Aliases))
			out.Session.Aliases = out.Session.Aliases[:len(out.Session.Aliases)-1]
		case out.Attrs != "" || out.Summary != "" || out.SourcePath != "":
			out.Attrs, out.Summary, out.SourcePath = showOnly(out.Attrs, len(out.Attrs)/2), showOnly(out.Summary, len(out.Summary)/2), showOnly(out.SourcePath, len(out.SourcePath)/2)
		default:
			return infoOut{}, fmt.Errorf("session info of %q does not fit in max_bytes %d", sess.ID, maxBytes)
		}
		out.Truncated = true
		out.Note = "Lists and texts were shortened to fit max_bytes; list_sessions parent=ID lists every fork."
	}
	return out, nil
}
