package viewer

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/compactor"
	"github.com/sessiondb/sessiondb/jsonlimport"
)

// listRow is one row of the sessions page. Its fields are copied out of
// the SessionInfo rather than embedded: text/template looks a field up by
// name on every use, and through two embedded structs that lookup cost
// more than the rest of the row's rendering.
type listRow struct {
	ID           string
	Title        string
	Aliases      []string
	ParentID     string
	SourceFormat string
	Project      string
	Machine      string
	// Gone is the day the session's source was found gone ("" while it
	// is there): the row says the session exists only in sessiondb.
	Gone         string
	SubAgent     bool
	MessageCount int64
	EntryCount   int64
	Updated      string
	Calls        int64
	Cost         float64
	Unpriced     int64 // calls without a price (sessiondb.UsageTotals.Unpriced)
	Tokens       int64
}

type listData struct {
	Title   string
	Q       string
	Parent  string // ?parent=: only the forks of that session
	Project string // ?project=: only the sessions whose project contains it
	Machine string // ?machine=: only the sessions of that machine
	Format  string
	Since   string
	Until   string
	Rows    []listRow
	Next    string
	Scanned int
	Cut     bool // the scan stopped at maxListScan
	First   bool
}

// listSessions reads one page of sessions with the store's cursor. The
// text filter is the store's (title, alias) plus an exact ID or alias
// match through Resolve; the format and date filters are applied to the
// rows read, reading further store pages until the page is full or
// maxListScan rows were read. Rows are newest first, so the scan stops at
// the first row older than since.
func (h *Handler) listSessions(ctx context.Context, d *listData, cursor string) ([]sessiondb.SessionInfo, error) {
	var since, until time.Time
	var err error
	if d.Since != "" {
		if since, err = time.Parse("2006-01-02", d.Since); err != nil {
			return nil, fmt.Errorf("since: want YYYY-MM-DD: %w", sessiondb.ErrInvalid)
		}
	}
	if d.Until != "" {
		if until, err = time.Parse("2006-01-02", d.Until); err != nil {
			return nil, fmt.Errorf("until: want YYYY-MM-DD: %w", sessiondb.ErrInvalid)
		}
		until = until.AddDate(0, 0, 1)
	}
	var out []sessiondb.SessionInfo
	seen := map[string]bool{}
	if cursor == "" && d.Q != "" {
		// An ID or alias typed in the filter box finds its session even
		// when the title does not contain it.
		if id, err := h.st.Resolve(ctx, d.Q); err == nil {
			// Get, not Lookup: the row shows the entry count.
			if s, err := h.st.Get(ctx, id); err == nil && (d.Parent == "" || s.ParentID == d.Parent) &&
				(d.Project == "" || strings.Contains(strings.ToLower(s.Project), strings.ToLower(d.Project))) &&
				(d.Machine == "" || s.Machine == d.Machine) {
				si := sessiondb.SessionInfo{Session: s}
				if u, err := h.st.UsageTotals(ctx, id); err == nil {
					si.Usage = &u
				}
				out = append(out, si)
				seen[id] = true
			}
		}
	}
	filtered := d.Format != "" || d.Since != "" || d.Until != ""
	for {
		infos, next, err := h.st.List(ctx, sessiondb.ListOptions{Limit: ListPageSize, Cursor: cursor, Query: d.Q,
			ParentID: d.Parent, Project: d.Project, Machine: d.Machine, Usage: true})
		if err != nil {
			return nil, err
		}
		d.Scanned += len(infos)
		stop := false
		for _, si := range infos {
			if !since.IsZero() && si.UpdatedAt.Before(since) {
				stop = true
				break
			}
			if seen[si.ID] || (d.Format != "" && si.SourceFormat != d.Format) || (!until.IsZero() && !si.UpdatedAt.Before(until)) {
				continue
			}
			out = append(out, si)
		}
		cursor = next
		if stop {
			cursor = ""
		}
		if !filtered || cursor == "" || len(out) >= ListPageSize {
			break
		}
		if d.Scanned >= maxListScan {
			d.Cut = true
			break
		}
	}
	d.Next = cursor
	return out, nil
}

func (h *Handler) listPage(w http.ResponseWriter, r *http.Request) {
	d, err := h.list(r.Context(), r.URL.Query())
	if err != nil {
		h.fail(w, r, status(err), err)
		return
	}
	h.render(w, r, http.StatusOK, "list", d)
}

// list reads what the list page shows, without rendering.
func (h *Handler) list(ctx context.Context, q url.Values) (listData, error) {
	d := listData{Title: "Sessions", Q: q.Get("q"), Parent: q.Get("parent"), Project: q.Get("project"), Machine: q.Get("machine"), Format: q.Get("format"), Since: q.Get("since"), Until: q.Get("until")}
	if d.Parent != "" {
		d.Title = "Forks of " + d.Parent
	}
	cursor := q.Get("cursor")
	d.First = cursor == ""
	infos, err := h.listSessions(ctx, &d, cursor)
	if err != nil {
		return d, err
	}
	d.Rows = make([]listRow, 0, len(infos))
	for _, si := range infos {
		row := listRow{ID: si.ID, Title: si.Title, Aliases: si.Aliases, ParentID: si.ParentID, SourceFormat: si.SourceFormat, Project: si.Project,
			Machine:      si.Machine,
			SubAgent:     jsonlimport.SubAgent(si.Session),
			MessageCount: si.MessageCount, EntryCount: si.EntryCount, Updated: si.UpdatedAt.UTC().Format("2006-01-02 15:04")}
		if si.Archived() {
			row.Gone = si.SourceGoneAt.UTC().Format("2006-01-02")
		}
		// The store sums the page's usage with the page (ListOptions.Usage);
		// a store that does not leaves Usage nil and is asked row by row.
		u := si.Usage
		if u == nil {
			if t, err := h.st.UsageTotals(ctx, si.ID); err == nil {
				u = &t
			}
		}
		if u != nil {
			row.Calls, row.Cost, row.Unpriced = u.Calls, u.Cost, u.Unpriced
			row.Tokens = u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens
		}
		d.Rows = append(d.Rows, row)
	}
	return d, nil
}

type sessionData struct {
	Title       string
	S           sessiondb.Session
	Entries     []entryView
	Latest      *cutView
	Compactions []cutView
	Checkpoints []checkpointView
	Forks       []forkView // the newest maxForksShown forks
	MoreForks   bool       // there are more: the list page shows them all (/?parent=)
	All         bool
	From        int64
	Start       int64
	Prev        int64
	Next        int64
	Last        int64
	ShowPrev    bool
	Attrs       string
	// Hidden counts the entries shown only with the bookkeeping toggle:
	// bookkeeping lines and tool results shown inside their calls.
	Hidden int
	// SubAgent: the session is a sub-agent of its ParentID (not a fork).
	SubAgent bool
	// OnlySubAgents: every session listed in Forks is a sub-agent.
	OnlySubAgents bool

	// What transcript read, turned into Entries and the compactions'
	// Summary by present: parsing bodies and rendering their markdown is
	// part of rendering the page, not of reading it.
	entries   []sessiondb.ClippedEntry
	summaries [][]sessiondb.Entry // per compaction
	keep      int64               // KeepFromSeq of the current compaction
}

// forkView is one fork of the session shown: the session forked from
// it at log position ForkSeq.
type forkView struct {
	ID       string
	Title    string
	ForkSeq  int64
	SubAgent bool
}

type checkpointView struct {
	ID    string
	Label string
	AtSeq int64
	Time  string
	From  int64
}

// sessionPage shows one page of a transcript: TranscriptPageSize log
// positions from ?from= (default: the start of the effective transcript),
// read with Store.Entries. ?all=1 starts at the beginning of the log and
// shows the superseded turns, marked, with every compaction where it cut.
// ?at=SEQ opens the page holding SEQ (search results link there).
func (h *Handler) sessionPage(w http.ResponseWriter, r *http.Request) {
	d, err := h.transcript(r.Context(), r.PathValue("id"), r.URL.Query())
	if err != nil {
		h.fail(w, r, status(err), err)
		return
	}
	d.present()
	h.render(w, r, http.StatusOK, "session", d)
}

// linkAgents links the tool results of v that name the sub-agent their
// call ran to its session: Claude Code's "<session>:agent-<id>", Gemini
// CLI's the sub-agent chat's own session id.
func (d *sessionData) linkAgents(format string, v *entryView) {
	for j := range v.Blocks {
		b := &v.Blocks[j]
		switch {
		case b.Agent == "":
		case format == jsonlimport.FormatClaudeCode:
			b.AgentLink = "/s/" + url.PathEscape(jsonlimport.ClaudeCodeAgentSession(d.S.ID, b.Agent))
		case format == jsonlimport.FormatGemini, format == jsonlimport.FormatOpencode:
			// Gemini CLI's sub-agent chat and opencode's task tool name
			// the sub-agent's session, imported under its own ID.
			b.AgentLink = "/s/" + url.PathEscape(b.Agent)
		}
	}
}

// present turns the entries and summary messages transcript read into
// their views: bodies parsed, markdown rendered, superseded turns and
// compaction cuts marked, tool calls paired with their results.
func (d *sessionData) present() {
	format := d.S.SourceFormat
	for i := range d.Compactions {
		c := &d.Compactions[i]
		for _, e := range d.summaries[i] {
			e.Summary = true
			v := viewEntry(format, e)
			d.linkAgents(format, &v)
			c.Summary = append(c.Summary, v)
		}
	}
	d.Entries = make([]entryView, 0, len(d.entries))
	for _, e := range d.entries {
		v := viewClipped(format, e)
		if v.Bookkeeping {
			d.Hidden++
		}
		d.linkAgents(format, &v)
		v.Superseded = e.Seq < d.keep
		if d.All {
			for i := range d.Compactions {
				if c := &d.Compactions[i]; c.KeepFromSeq == e.Seq {
					v.Cut = c
				}
			}
		}
		d.Entries = append(d.Entries, v)
	}
	d.Entries = mergeParts(d.Entries)
	pairCalls(d.Entries)
	for _, v := range d.Entries {
		if v.Paired {
			d.Hidden++
		}
	}
}

// transcript reads what the session page shows: the store calls behind
// it, without rendering (BenchmarkTranscriptFirstPage times both parts;
// present and the template are the rendering).
func (h *Handler) transcript(ctx context.Context, idOrAlias string, q url.Values) (sessionData, error) {
	var d sessionData
	s, err := h.lookup(ctx, idOrAlias)
	if err != nil {
		return d, err
	}
	id := s.ID
	comps, err := h.st.Compactions(ctx, id)
	if err != nil {
		return d, err
	}
	d = sessionData{Title: s.Title, S: s, All: q.Get("all") == "1"}
	if d.Title == "" {
		d.Title = s.ID
	}
	d.SubAgent = jsonlimport.SubAgent(s)
	if len(s.Attrs) > 0 && string(s.Attrs) != "null" {
		d.Attrs = visible(string(s.Attrs))
	}
	keep := int64(1)
	for i, c := range comps {
		cv := cutView{ID: c.ID, KeepFromSeq: c.KeepFromSeq, AtSeq: c.AtSeq, TokensBefore: c.TokensBefore,
			TokensAfter: c.TokensAfter, Time: c.CreatedAt.UTC().Format("2006-01-02 15:04"), Latest: i == len(comps)-1}
		if det, ok := compactor.ParseDetails(c); ok && det.SplitTurn != nil {
			cv.Split = visible(compactor.SplitTurnLine(*det.SplitTurn))
		}
		cv.ReadFiles, cv.ModifiedFiles = compactor.Files(c)
		d.summaries = append(d.summaries, c.Summary)
		d.Compactions = append(d.Compactions, cv)
		if cv.Latest {
			keep = max(c.KeepFromSeq, 1)
			d.Latest = &d.Compactions[len(d.Compactions)-1]
		}
	}
	at, _ := strconv.ParseInt(q.Get("at"), 10, 64)
	if at > 0 && at < keep {
		d.All = true
	}
	d.keep = keep
	d.Start = keep
	if d.All {
		d.Start = 1
	}
	d.From = d.Start
	if f, err := strconv.ParseInt(q.Get("from"), 10, 64); err == nil && f > d.Start {
		d.From = f
	}
	if at > 0 {
		d.From = max(d.Start, at-5)
	}
	to := d.From + TranscriptPageSize - 1
	if d.entries, err = sessiondb.EntriesClipped(ctx, h.st, id, d.From, to, maxBodyRead); err != nil {
		return d, err
	}
	// Bookkeeping lines are hidden (a Claude Code transcript can be
	// mostly progress lines), so a page reads on until it holds
	// TranscriptPageSize messages or maxPageScan entries.
	for to < s.LastSeq && len(d.entries) < maxPageScan && conversational(d.entries) < TranscriptPageSize {
		more, err := sessiondb.EntriesClipped(ctx, h.st, id, to+1, to+TranscriptPageSize, maxBodyRead)
		if err != nil {
			return d, err
		}
		to += TranscriptPageSize
		d.entries = append(d.entries, more...)
	}
	d.ShowPrev = d.From > d.Start
	d.Prev = max(d.Start, d.From-TranscriptPageSize)
	if to < s.LastSeq {
		d.Next = to + 1
		d.Last = max(d.Start, s.LastSeq-TranscriptPageSize+1)
	}
	cps, err := h.st.ListCheckpoints(ctx, id)
	if err != nil {
		return d, err
	}
	for _, c := range cps {
		d.Checkpoints = append(d.Checkpoints, checkpointView{ID: c.ID, Label: c.Label, AtSeq: c.AtSeq,
			Time: c.CreatedAt.UTC().Format("2006-01-02 15:04"), From: max(1, c.AtSeq-5)})
	}
	forks, next, err := h.st.List(ctx, sessiondb.ListOptions{ParentID: id, Limit: maxForksShown})
	if err != nil {
		return d, err
	}
	for _, f := range forks {
		d.Forks = append(d.Forks, forkView{ID: f.ID, Title: f.Title, ForkSeq: f.ForkSeq, SubAgent: jsonlimport.SubAgent(f.Session)})
	}
	d.MoreForks = next != ""
	d.OnlySubAgents = len(d.Forks) > 0
	for _, f := range d.Forks {
		d.OnlySubAgents = d.OnlySubAgents && f.SubAgent
	}
	return d, nil
}

// maxPageScan bounds the log entries one transcript page reads while
// looking for TranscriptPageSize messages among bookkeeping lines.
const maxPageScan = 5 * TranscriptPageSize

// conversational counts the entries that are messages (Kind "message" or
// a streamed response's "message-part"): what a page shows by default.
// Bookkeeping lines are kept under their own kinds by every importer.
func conversational(es []sessiondb.ClippedEntry) int {
	n := 0
	for _, e := range es {
		if e.Kind == sessiondb.KindMessage || e.Kind == "message-part" {
			n++
		}
	}
	return n
}

// lookup resolves a session name and reads the session: one read
// transaction when the store implements sessiondb.SessionLookup; Resolve
// and Get otherwise.
func (h *Handler) lookup(ctx context.Context, idOrAlias string) (sessiondb.Session, error) {
	if lk, ok := h.st.(sessiondb.SessionLookup); ok {
		return lk.Lookup(ctx, idOrAlias)
	}
	id, err := h.st.Resolve(ctx, idOrAlias)
	if err != nil {
		return sessiondb.Session{}, err
	}
	return h.st.Get(ctx, id)
}

// rawEntry serves the stored body of one log entry, byte for byte, as
// text/plain with a sandboxing CSP: a browser shows it as text whatever it
// holds.
func (h *Handler) rawEntry(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, err := h.st.Resolve(ctx, r.PathValue("id"))
	if err != nil {
		h.fail(w, r, status(err), err)
		return
	}
	seq, err := strconv.ParseInt(r.PathValue("seq"), 10, 64)
	if err != nil || seq < 1 {
		h.fail(w, r, http.StatusBadRequest, errors.New("seq must be a positive number"))
		return
	}
	es, err := h.st.Entries(ctx, id, seq, seq)
	if err != nil {
		h.fail(w, r, status(err), err)
		return
	}
	if len(es) == 0 {
		h.fail(w, r, http.StatusNotFound, fmt.Errorf("session %s has no entry %d (pruned or not written yet)", id, seq))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "sandbox; default-src 'none'")
	w.Header().Set("Content-Disposition", "inline")
	if r.Method != http.MethodHead {
		_, _ = w.Write(es[0].Body)
	}
}

type searchData struct {
	Title   string
	Q       string
	Project string // ?project=: only the sessions whose project contains it
	Hits    []hitView
	Err     string
}

type hitView struct {
	sessiondb.Hit
	Snippet template.HTML
	Time    string
	Link    string
}

func (h *Handler) searchPage(w http.ResponseWriter, r *http.Request) {
	d := searchData{Title: "Search", Q: r.URL.Query().Get("q"), Project: r.URL.Query().Get("project")}
	if strings.TrimSpace(d.Q) != "" {
		hits, err := h.st.Search(r.Context(), d.Q, sessiondb.SearchOptions{Limit: sessiondb.DefaultSearchLimit, Project: d.Project})
		if errors.Is(err, sessiondb.ErrInvalid) {
			d.Err = err.Error()
		} else if err != nil {
			h.fail(w, r, status(err), err)
			return
		}
		for _, hit := range jsonlimport.DropEchoes(hits) {
			hv := hitView{Hit: hit, Snippet: template.HTML(highlight(hit.Snippet, d.Q)), Time: hit.CreatedAt.UTC().Format("2006-01-02 15:04")}
			hv.Link = "/s/" + urlPathEscape(hit.SessionID)
			if !hit.Summary {
				hv.Link += fmt.Sprintf("?at=%d#e%d", hit.Seq, hit.Seq)
			}
			d.Hits = append(d.Hits, hv)
		}
	}
	h.render(w, r, http.StatusOK, "search", d)
}

func urlPathEscape(s string) string { return url.PathEscape(s) }
