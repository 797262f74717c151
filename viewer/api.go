package viewer

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
)

// apiList is `sessionctl list --json`, one store page at a time: ?q=,
// ?limit= (default ListPageSize, at most sessiondb.MaxListLimit) and
// ?cursor=; the next page's cursor is in the X-Next-Cursor header ("" after
// the last page), so the body keeps the CLI's shape.
func (h *Handler) apiList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := ListPageSize
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > sessiondb.MaxListLimit {
			h.fail(w, r, http.StatusBadRequest, errors.New("limit must be between 1 and 10000"))
			return
		}
		limit = n
	}
	infos, next, err := h.st.List(r.Context(), sessiondb.ListOptions{Limit: limit, Cursor: q.Get("cursor"), Query: q.Get("q"), ParentID: q.Get("parent")})
	if err != nil {
		h.fail(w, r, status(err), err)
		return
	}
	out := make([]SessionJSON, 0, len(infos))
	for _, si := range infos {
		out = append(out, InfoToJSON(si))
	}
	w.Header().Set("X-Next-Cursor", next)
	h.json(w, r, out)
}

// apiSession is the "session" object of `sessionctl show --json --state`.
func (h *Handler) apiSession(w http.ResponseWriter, r *http.Request) {
	// The object has no entry count: lookup need not count the log.
	s, err := h.lookup(r.Context(), r.PathValue("id"))
	if err != nil {
		h.fail(w, r, status(err), err)
		return
	}
	h.json(w, r, SessionToJSON(s))
}

// apiTranscript is `sessionctl show --json`: the stored bodies, byte for
// byte, one page at a time. By default the effective transcript: the
// current compaction's summary messages, then TranscriptAPIPageSize log
// entries from its KeepFromSeq; ?from=&to= raw log positions (superseded
// entries included), also a page at most; ?limit= the page size (at most
// MaxTranscriptAPIPage); ?last=N the last N entries of the effective
// transcript (Store.Load with LastN, N at most MaxTranscriptAPIPage). When
// more entries follow a page, X-Next-From holds the ?from= of the next.
// Log entries are read and written a few at a time (streamTranscript), so
// a page of a huge session is never held whole, nor its JSON.
func (h *Handler) apiTranscript(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s, err := h.lookup(ctx, r.PathValue("id"))
	if err != nil {
		h.fail(w, r, status(err), err)
		return
	}
	q := r.URL.Query()
	num := func(k string) (int64, bool) {
		s := q.Get(k)
		if s == "" {
			return 0, true
		}
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil && n >= 0
	}
	last, ok1 := num("last")
	from, ok2 := num("from")
	to, ok3 := num("to")
	limit, ok4 := num("limit")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		h.fail(w, r, http.StatusBadRequest, errors.New("last, from, to and limit must be non-negative numbers"))
		return
	}
	if last > MaxTranscriptAPIPage || q.Has("limit") && (limit < 1 || limit > MaxTranscriptAPIPage) {
		h.fail(w, r, http.StatusBadRequest, fmt.Errorf("limit must be between 1 and %d, last at most %d", MaxTranscriptAPIPage, MaxTranscriptAPIPage))
		return
	}
	if limit == 0 {
		limit = TranscriptAPIPageSize
	}
	if q.Has("last") && !q.Has("from") && !q.Has("to") {
		entries, err := h.st.Load(ctx, s.ID, sessiondb.LoadOptions{LastN: int(last)})
		if err != nil {
			h.fail(w, r, status(err), err)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if r.Method != http.MethodHead {
			_ = writeBodies(w, entries)
		}
		return
	}
	var summary []sessiondb.Entry
	start, end := max(from, 1), s.LastSeq
	if !q.Has("from") && !q.Has("to") {
		comps, err := h.st.Compactions(ctx, s.ID)
		if err != nil {
			h.fail(w, r, status(err), err)
			return
		}
		if len(comps) > 0 {
			c := comps[len(comps)-1]
			summary, start = c.Summary, max(c.KeepFromSeq, 1)
		}
	}
	if to > 0 && to < end {
		end = to
	}
	if pageEnd := start + limit - 1; pageEnd < end {
		w.Header().Set("X-Next-From", strconv.FormatInt(pageEnd+1, 10))
		end = pageEnd
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if r.Method == http.MethodHead {
		return
	}
	if err := h.streamTranscript(w, r, s.ID, summary, start, end); err != nil {
		// The status line is gone: cut the answer off so the client
		// sees a broken transfer rather than a short array.
		h.opts.Log.Printf("viewer: %s: %v", r.URL.Path, err)
		panic(http.ErrAbortHandler)
	}
}

// Transcripts are streamed in chunks of log entries sized to hold about
// streamChunkBytes of bodies (at least 1 entry, at most maxStreamChunk).
const (
	streamChunkBytes = 1 << 20
	maxStreamChunk   = 256
)

// streamTranscript writes summary and the log entries from..to of session
// id as a JSON array of bodies, reading a chunk of entries at a time and
// giving every write WriteStall to complete.
func (h *Handler) streamTranscript(w http.ResponseWriter, r *http.Request, id string, summary []sessiondb.Entry, from, to int64) error {
	rc := http.NewResponseController(w)
	bw := bodyWriter{w: w}
	write := func(body []byte) error {
		_ = rc.SetWriteDeadline(time.Now().Add(h.opts.WriteStall))
		return bw.add(body)
	}
	for _, e := range summary {
		if err := write(e.Body); err != nil {
			return err
		}
	}
	chunk := int64(1) // sizes are unknown until the first entry is read
	for next := from; next <= to; {
		hi := min(to, next+chunk-1)
		es, err := h.st.Entries(r.Context(), id, next, hi)
		if err != nil {
			return err
		}
		var bytes int64
		for _, e := range es {
			if err := write(e.Body); err != nil {
				return err
			}
			bytes += int64(len(e.Body))
		}
		next = hi + 1
		if len(es) > 0 {
			chunk = max(1, min(maxStreamChunk, streamChunkBytes*int64(len(es))/max(bytes, 1)))
		}
	}
	_ = rc.SetWriteDeadline(time.Now().Add(h.opts.WriteStall))
	return bw.close()
}

// apiSearch is `sessionctl search --json`: ?q=, ?session=, ?role=, ?kind=,
// ?limit=.
func (h *Handler) apiSearch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	opts := sessiondb.SearchOptions{Role: q.Get("role"), Kind: q.Get("kind")}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > sessiondb.MaxSearchLimit {
			h.fail(w, r, http.StatusBadRequest, errors.New("limit must be between 0 and 1000"))
			return
		}
		opts.Limit = n
	}
	if s := q.Get("session"); s != "" {
		id, err := h.st.Resolve(r.Context(), s)
		if err != nil {
			h.fail(w, r, status(err), err)
			return
		}
		opts.SessionID = id
	}
	hits, err := h.st.Search(r.Context(), q.Get("q"), opts)
	if err != nil {
		h.fail(w, r, status(err), err)
		return
	}
	out := make([]HitJSON, 0, len(hits))
	for _, hit := range hits {
		out = append(out, HitToJSON(hit))
	}
	h.json(w, r, out)
}

// apiUsage groups the usage ledger: ?by= a comma-separated list of
// session, model and day (default day); ?session= one session.
func (h *Handler) apiUsage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var uq sessiondb.UsageQuery
	by := q.Get("by")
	if by == "" {
		by = "day"
	}
	for _, k := range strings.Split(by, ",") {
		switch strings.TrimSpace(k) {
		case "session":
			uq.BySession = true
		case "model":
			uq.ByModel = true
		case "day":
			uq.ByDay = true
		default:
			h.fail(w, r, http.StatusBadRequest, errors.New("by: want session, model and/or day"))
			return
		}
	}
	if s := q.Get("session"); s != "" {
		id, err := h.st.Resolve(r.Context(), s)
		if err != nil {
			h.fail(w, r, status(err), err)
			return
		}
		uq.SessionID = id
	}
	rows, err := h.st.UsageReport(r.Context(), uq)
	if err != nil {
		h.fail(w, r, status(err), err)
		return
	}
	out := make([]UsageJSON, 0, len(rows))
	for _, u := range rows {
		out = append(out, usageToJSON(u))
	}
	h.json(w, r, out)
}

func (h *Handler) json(w http.ResponseWriter, r *http.Request, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if r.Method != http.MethodHead {
		_ = writeJSON(w, v)
	}
}
