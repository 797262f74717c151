package viewer

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

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
// byte. By default the effective transcript; ?last=N its last N entries
// (Store.Load with LastN); ?from=&to= raw log positions (Store.Entries,
// superseded entries included), so a client pages a long session.
func (h *Handler) apiTranscript(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, err := h.st.Resolve(ctx, r.PathValue("id"))
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
	if !ok1 || !ok2 || !ok3 || last > 1<<31 {
		h.fail(w, r, http.StatusBadRequest, errors.New("last, from and to must be non-negative numbers"))
		return
	}
	var entries []sessiondb.Entry
	if q.Has("from") || q.Has("to") {
		entries, err = h.st.Entries(ctx, id, max(from, 1), to)
	} else {
		entries, err = h.st.Load(ctx, id, sessiondb.LoadOptions{LastN: int(last)})
	}
	if err != nil {
		h.fail(w, r, status(err), err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if r.Method != http.MethodHead {
		_ = writeBodies(w, entries)
	}
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
