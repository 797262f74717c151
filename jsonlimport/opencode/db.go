package opencode

// opencode's SQLite store, read through a foreigndb snapshot.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/sessiondb/sessiondb/jsonlimport/foreigndb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// dbTables reports which of the tables the reader uses the database has.
type dbTables struct {
	any                                            bool
	session, message, part, project, eventSequence bool
}

// errNoTablesYet: a database without any table, which opencode creates
// before its first migration makes every table in one transaction: a
// store with no session yet, not a foreign database.
var errNoTablesYet = errors.New("no table yet")

func tablesOf(ctx context.Context, db *sql.DB) (dbTables, error) {
	var t dbTables
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		return t, foreigndb.Translate(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return t, foreigndb.Translate(err)
		}
		t.any = true
		switch name {
		case "session":
			t.session = true
		case "message":
			t.message = true
		case "part":
			t.part = true
		case "project":
			t.project = true
		case "event_sequence":
			t.eventSequence = true
		}
	}
	if err := rows.Err(); err != nil {
		return t, foreigndb.Translate(err)
	}
	if !t.any {
		return t, errNoTablesYet
	}
	if !t.session || !t.message || !t.part {
		return t, fmt.Errorf("no opencode tables session, message and part: %w", foreigndb.ErrNotDatabase)
	}
	return t, nil
}

// row is one row, by column name (foreigndb.Row).
type row = foreigndb.Row

// numJSON writes a numeric column as JavaScript would (an integer as an
// integer, a REAL by JavaScript's rules).
func numJSON(r row, col string) []byte {
	switch v := r[col].(type) {
	case int64:
		return []byte(strconv.FormatInt(v, 10))
	case float64:
		return []byte(jsNumber(v))
	case string:
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return []byte(jsNumber(f))
		}
	}
	return []byte("0")
}

// jsonCol returns a JSON column's text, nil when it is null or not JSON.
func jsonCol(r row, col string) []byte {
	s := r.Str(col)
	if s == "" || s == "null" || !json.Valid([]byte(s)) {
		return nil
	}
	return []byte(s)
}

// objWriter writes a JSON object member by member.
type objWriter struct {
	b     bytes.Buffer
	first bool
}

func newObj() *objWriter {
	w := &objWriter{first: true}
	w.b.WriteByte('{')
	return w
}

func (w *objWriter) raw(key string, v []byte) {
	if !w.first {
		w.b.WriteByte(',')
	}
	w.first = false
	jsString(&w.b, key)
	w.b.WriteByte(':')
	w.b.Write(v)
}

func (w *objWriter) str(key, v string) { w.raw(key, jsonStr(v)) }

func (w *objWriter) done() []byte {
	w.b.WriteByte('}')
	return w.b.Bytes()
}

// sessionInfo builds a session's info from its row as opencode's
// Session.fromRow does (the order of its members, the members left out
// when a column is null), which is what `opencode export` writes.
func sessionInfo(r row) []byte {
	w := newObj()
	w.str("id", r.Str("id"))
	w.str("slug", r.Str("slug"))
	w.str("projectID", r.Str("project_id"))
	if r.Has("workspace_id") {
		w.str("workspaceID", r.Str("workspace_id"))
	}
	w.str("directory", r.Str("directory"))
	if r.Has("path") {
		w.str("path", r.Str("path"))
	}
	if r.Has("parent_id") {
		w.str("parentID", r.Str("parent_id"))
	}
	w.str("title", r.Str("title"))
	if r.Has("agent") {
		w.str("agent", r.Str("agent"))
	}
	if m := jsonCol(r, "model"); m != nil {
		var mod struct {
			ID         *string `json:"id"`
			ProviderID *string `json:"providerID"`
			Variant    *string `json:"variant"`
		}
		if json.Unmarshal(m, &mod) == nil {
			o := newObj()
			if mod.ID != nil {
				o.str("id", *mod.ID)
			}
			if mod.ProviderID != nil {
				o.str("providerID", *mod.ProviderID)
			}
			if mod.Variant != nil {
				o.str("variant", *mod.Variant)
			}
			w.raw("model", o.done())
		}
	}
	w.str("version", r.Str("version"))
	if r.Has("summary_additions") || r.Has("summary_deletions") || r.Has("summary_files") {
		o := newObj()
		for _, k := range []string{"additions", "deletions", "files"} {
			v := []byte("0")
			if r.Has("summary_" + k) {
				v = numJSON(r, "summary_"+k)
			}
			o.raw(k, v)
		}
		if d := jsonCol(r, "summary_diffs"); d != nil {
			o.raw("diffs", d)
		}
		w.raw("summary", o.done())
	}
	if _, ok := r["cost"]; ok {
		w.raw("cost", numJSON(r, "cost"))
	}
	if _, ok := r["tokens_input"]; ok {
		t := newObj()
		t.raw("input", numJSON(r, "tokens_input"))
		t.raw("output", numJSON(r, "tokens_output"))
		t.raw("reasoning", numJSON(r, "tokens_reasoning"))
		c := newObj()
		c.raw("read", numJSON(r, "tokens_cache_read"))
		c.raw("write", numJSON(r, "tokens_cache_write"))
		t.raw("cache", c.done())
		w.raw("tokens", t.done())
	}
	if s := r.Str("share_url"); s != "" {
		o := newObj()
		o.str("url", s)
		w.raw("share", o.done())
	}
	if m := jsonCol(r, "metadata"); m != nil {
		w.raw("metadata", m)
	}
	if rv := jsonCol(r, "revert"); rv != nil {
		var x struct {
			MessageID *string `json:"messageID"`
			PartID    *string `json:"partID"`
			Snapshot  *string `json:"snapshot"`
			Diff      *string `json:"diff"`
		}
		if json.Unmarshal(rv, &x) == nil && x.MessageID != nil {
			o := newObj()
			o.str("messageID", *x.MessageID)
			for _, kv := range []struct {
				k string
				v *string
			}{{"partID", x.PartID}, {"snapshot", x.Snapshot}, {"diff", x.Diff}} {
				if kv.v != nil {
					o.str(kv.k, *kv.v)
				}
			}
			w.raw("revert", o.done())
		}
	}
	if p := jsonCol(r, "permission"); p != nil {
		w.raw("permission", p)
	}
	t := newObj()
	t.raw("created", numJSON(r, "time_created"))
	t.raw("updated", numJSON(r, "time_updated"))
	if r.Has("time_compacting") {
		t.raw("compacting", numJSON(r, "time_compacting"))
	}
	if r.Has("time_archived") {
		t.raw("archived", numJSON(r, "time_archived"))
	}
	w.raw("time", t.done())
	return w.done()
}

// sourceOf fills a source's metadata from a session row.
func sourceOf(r row, worktree string) *source {
	s := &source{
		id: r.Str("id"), parentID: r.Str("parent_id"), title: r.Str("title"), directory: r.Str("directory"),
		projectID: r.Str("project_id"), slug: r.Str("slug"), version: r.Str("version"), agent: r.Str("agent"),
		created: r.Int("time_created"), updated: r.Int("time_updated"), archived: r.Has("time_archived"),
		revert: jsonCol(r, "revert") != nil, worktree: worktree, info: sessionInfo(r),
	}
	if m := jsonCol(r, "model"); m != nil {
		var mod struct {
			ID         string `json:"id"`
			ProviderID string `json:"providerID"`
		}
		if json.Unmarshal(m, &mod) == nil && mod.ID != "" {
			s.model = mod.ProviderID + "/" + mod.ID
		}
	}
	return s
}

// dbSessions lists the sessions of the database at path (a store unit),
// each with a stamp that changes when its rows do: the session's row, the
// count, latest update and size of its messages (small rows: an
// assistant message grows when it completes, even within the millisecond
// of its last update), and opencode's event sequence
// number for the session (every change opencode makes to a session, its
// messages and parts is an event), or, for a session without one (an
// older store, a session `opencode import` wrote), the count and latest
// update of its parts.
func dbSessions(ctx context.Context, store jsonl.Unit, c *jsonl.Cache) ([]jsonl.StoreSession, []jsonl.Problem, error) {
	snap, err := foreigndb.Acquire(ctx, c, store.Path)
	if err != nil {
		return nil, nil, err
	}
	if c == nil {
		defer snap.Close()
	}
	db := snap.DB()
	tables, err := tablesOf(ctx, db)
	if errors.Is(err, errNoTablesYet) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	q := `SELECT s.*,
		(SELECT count(*) FROM message m WHERE m.session_id = s.id) AS sdb_messages,
		(SELECT ifnull(max(m.time_updated), 0) FROM message m WHERE m.session_id = s.id) AS sdb_message_updated,
		(SELECT ifnull(sum(length(m.data)), 0) FROM message m WHERE m.session_id = s.id) AS sdb_message_bytes`
	if tables.eventSequence {
		q += `, (SELECT e.seq FROM event_sequence e WHERE e.aggregate_id = s.id) AS sdb_event_seq`
	}
	q += ` FROM session s ORDER BY s.time_created, s.id`
	rows, err := foreigndb.QueryRows(ctx, db, q)
	if err != nil {
		return nil, nil, err
	}
	var out []jsonl.StoreSession
	var problems []jsonl.Problem
	for _, r := range rows {
		id := r.Str("id")
		if id == "" {
			problems = append(problems, jsonl.Problem{Path: store.Path, Reason: "a session row without id; skipped"})
			continue
		}
		h := sha256.New()
		fmt.Fprintf(h, "opencode-db/1\x00%s\x00%d\x00%d\x00%d\x00", sessionInfo(r), r.Int("sdb_messages"), r.Int("sdb_message_updated"), r.Int("sdb_message_bytes"))
		if r.Has("sdb_event_seq") {
			fmt.Fprintf(h, "seq %d", r.Int("sdb_event_seq"))
		} else {
			var n, upd int64
			if err := db.QueryRowContext(ctx, `SELECT count(*), ifnull(max(time_updated), 0) FROM part WHERE session_id = ?`, id).Scan(&n, &upd); err != nil {
				return nil, problems, foreigndb.Translate(err)
			}
			fmt.Fprintf(h, "parts %d %d", n, upd)
		}
		out = append(out, jsonl.StoreSession{
			Unit:    jsonl.Unit{Format: Name, Path: jsonl.SessionPath(store.Path, id)},
			Stamp:   hex.EncodeToString(h.Sum(nil)),
			Rows:    r.Int("sdb_messages"),
			Updated: time.UnixMilli(r.Int("time_updated")).UTC(),
			Bytes:   r.Int("sdb_message_bytes"),
		})
	}
	return out, problems, nil
}

// cursorCond is the SQL condition "message m comes after the cursor" (or,
// with upTo, "at or before it"), in opencode's order (time created, id).
func cursorCond(upTo bool) string {
	if upTo {
		return `(m.time_created < ? OR (m.time_created = ? AND m.id <= ?))`
	}
	return `(m.time_created > ? OR (m.time_created = ? AND m.id > ?))`
}

// dbPrefix fingerprints the session's messages up to the cursor (created,
// id) and their parts: how many, and their latest update.
func dbPrefix(ctx context.Context, db *sql.DB, id string, created int64, last string) (string, error) {
	var mn, mu, pn, pu int64
	err := db.QueryRowContext(ctx, `SELECT count(*), ifnull(max(m.time_updated), 0) FROM message m WHERE m.session_id = ? AND `+cursorCond(true),
		id, created, created, last).Scan(&mn, &mu)
	if err != nil {
		return "", foreigndb.Translate(err)
	}
	err = db.QueryRowContext(ctx, `SELECT count(*), ifnull(max(p.time_updated), 0) FROM part p WHERE p.session_id = ? AND p.message_id IN
		(SELECT m.id FROM message m WHERE m.session_id = ? AND `+cursorCond(true)+`)`,
		id, id, created, created, last).Scan(&pn, &pu)
	if err != nil {
		return "", foreigndb.Translate(err)
	}
	return fmt.Sprintf("%d/%d %d/%d", mn, mu, pn, pu), nil
}

// dbParse reads session key of the store at storePath: from the cursor of
// a previous import when its messages are as they were (their
// fingerprint), else (ErrNotIncremental) whole.
func dbParse(ctx context.Context, u jsonl.Unit, storePath, id string, from jsonl.Resume) (*jsonl.Parsed, error) {
	snap, owned, err := foreigndb.Current(ctx, from.Cache, storePath)
	if err != nil {
		return nil, err
	}
	if owned {
		defer snap.Close()
	}
	db := snap.DB()
	tables, err := tablesOf(ctx, db)
	if err != nil {
		return nil, err
	}
	rows, err := foreigndb.QueryRows(ctx, db, `SELECT * FROM session WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("session %s is no longer in %s", id, storePath)
	}
	worktree := ""
	if tables.project {
		_ = db.QueryRowContext(ctx, `SELECT worktree FROM project WHERE id = ?`, rows[0].Str("project_id")).Scan(&worktree)
	}
	src := sourceOf(rows[0], worktree)
	var rs resumeState
	base := 0
	if from.Offset > 0 {
		if len(from.State) == 0 || json.Unmarshal(from.State, &rs) != nil || rs.V != 1 || rs.N != int(from.Offset) || rs.LastID == "" {
			return nil, jsonl.ErrNotIncremental
		}
		now, err := dbPrefix(ctx, db, id, rs.LastCreated, rs.LastID)
		if err != nil {
			return nil, err
		}
		if now != rs.Prefix {
			return nil, jsonl.ErrNotIncremental
		}
		base = rs.N
	} else if len(from.State) > 0 {
		// A whole read after ErrNotIncremental: the prompt title found
		// before stays.
		var old resumeState
		if json.Unmarshal(from.State, &old) == nil {
			rs.Title = old.Title
		}
	}
	var problems []jsonl.Problem
	msgQ := `SELECT m.id, m.time_created, m.data FROM message m WHERE m.session_id = ?`
	partQ := `SELECT p.id, p.message_id, p.data FROM part p WHERE p.session_id = ?`
	args := []any{id}
	if base > 0 {
		msgQ += ` AND ` + cursorCond(false)
		partQ += ` AND p.message_id IN (SELECT m.id FROM message m WHERE m.session_id = ? AND ` + cursorCond(false) + `)`
		args = append(args, rs.LastCreated, rs.LastCreated, rs.LastID)
	}
	msgRows, err := foreigndb.QueryRows(ctx, db, msgQ+` ORDER BY m.time_created, m.id`, args...)
	if err != nil {
		return nil, err
	}
	pargs := []any{id}
	if base > 0 {
		pargs = append(pargs, id, rs.LastCreated, rs.LastCreated, rs.LastID)
	}
	partRows, err := foreigndb.QueryRows(ctx, db, partQ+` ORDER BY p.message_id, p.id`, pargs...)
	if err != nil {
		return nil, err
	}
	parts := map[string][][]byte{}
	sidJSON := jsonStr(id)
	for _, r := range partRows {
		pid, mid := r.Str("id"), r.Str("message_id")
		p, err := spread([]byte(r.Str("data")), member{"id", jsonStr(pid)}, member{"sessionID", sidJSON}, member{"messageID", jsonStr(mid)})
		if err != nil {
			problems = append(problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("part %s of message %s: its data is not a JSON object (%v); left out", pid, mid, err)})
			continue
		}
		parts[mid] = append(parts[mid], p)
	}
	for _, r := range msgRows {
		mid := r.Str("id")
		info, err := spread([]byte(r.Str("data")), member{"id", jsonStr(mid)}, member{"sessionID", sidJSON})
		if err != nil {
			problems = append(problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("message %s: its data is not a JSON object (%v); left out", mid, err)})
			continue
		}
		m, err := messageBody(u, info, parts[mid], &problems)
		if err != nil {
			problems = append(problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("message %s: %v; left out", mid, err)})
			continue
		}
		m.id, m.created = mid, r.Int("time_created")
		src.messages = append(src.messages, m)
	}
	pd, err := build(u, src, base, rs, func(n int, last *message) string {
		p, err := dbPrefix(ctx, db, id, last.created, last.id)
		if err != nil {
			return ""
		}
		return p
	}, true)
	if err != nil {
		return nil, err
	}
	pd.Problems = append(problems, pd.Problems...)
	return pd, nil
}

// errNotStore marks a path that names no session of a store.
var errNotStore = errors.New("not an opencode session path")

// splitDB splits a session unit's path into its database and session id.
func splitDB(p string) (string, string, error) {
	store, key, ok := jsonl.SplitSessionPath(p)
	if !ok {
		return "", "", errNotStore
	}
	return store, key, nil
}
