package crush

// The store, read through a foreigndb snapshot (a copy taken aside).

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/sessiondb/sessiondb/jsonlimport/foreigndb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// errNoTablesYet: a database without any table yet (the program creates
// the file before its migrations run): a store with no session.
var errNoTablesYet = errors.New("no table yet")

// checkTables checks that the database has this schema's tables.
func checkTables(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		return foreigndb.Translate(err)
	}
	defer rows.Close()
	any, sessions, messages := false, false, false
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return foreigndb.Translate(err)
		}
		any = true
		sessions = sessions || name == "sessions"
		messages = messages || name == "messages"
	}
	if err := rows.Err(); err != nil {
		return foreigndb.Translate(err)
	}
	if !any {
		return errNoTablesYet
	}
	if !sessions || !messages {
		return fmt.Errorf("no tables sessions and messages: %w", foreigndb.ErrNotDatabase)
	}
	return nil
}

// row is one row, by column name (foreigndb.Row).
type row = foreigndb.Row

// unixTime reads the schema's times: its comments say milliseconds, but
// crush and the Go opencode write seconds (time.Now().Unix()), and their
// update triggers write seconds too (strftime('%s')); a value past the
// year 5138 in seconds is read as milliseconds.
func unixTime(v int64) time.Time {
	switch {
	case v <= 0:
		return time.Time{}
	case v > 1e11:
		return time.UnixMilli(v).UTC()
	}
	return time.Unix(v, 0).UTC()
}

// Sessions implements jsonl.StoreFormat: the sessions of the database,
// oldest first, each stamped with its row (title, tokens, cost, summary,
// update time) and its messages' count, latest update and size.
func (st Store) Sessions(ctx context.Context, store jsonl.Unit, c *jsonl.Cache) ([]jsonl.StoreSession, []jsonl.Problem, error) {
	if emptyStore(store.Path) {
		// Created, not yet migrated: no session yet.
		return nil, nil, nil
	}
	snap, err := foreigndb.Acquire(ctx, c, store.Path)
	if err != nil {
		return nil, nil, err
	}
	if c == nil {
		defer snap.Close()
	}
	db := snap.DB()
	if err := checkTables(ctx, db); errors.Is(err, errNoTablesYet) {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, err
	}
	rows, err := foreigndb.QueryRows(ctx, db, `SELECT s.*,
		(SELECT count(*) FROM messages m WHERE m.session_id = s.id) AS sdb_messages,
		(SELECT ifnull(max(m.updated_at), 0) FROM messages m WHERE m.session_id = s.id) AS sdb_updated,
		(SELECT ifnull(max(m.finished_at), 0) FROM messages m WHERE m.session_id = s.id) AS sdb_finished,
		(SELECT ifnull(sum(length(m.parts)), 0) FROM messages m WHERE m.session_id = s.id) AS sdb_bytes,
		(SELECT CASE WHEN m.role = 'assistant' AND m.parts NOT LIKE '%"type":"finish"%' THEN max(m.updated_at, m.created_at) ELSE -1 END
			FROM messages m WHERE m.session_id = s.id ORDER BY m.created_at DESC, m.rowid DESC LIMIT 1) AS sdb_open
		FROM sessions s ORDER BY s.created_at, s.rowid`)
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
		fmt.Fprintf(h, "%s/1\x00%s\x00%s\x00%s\x00%d\x00%d\x00%d\x00%s\x00%d\x00%s", st.Format, id, r.Str("parent_session_id"),
			r.Str("title"), r.Int("message_count"), r.Int("prompt_tokens"), r.Int("completion_tokens"), r.Str("cost"),
			r.Int("updated_at"), r.Str("summary_message_id"))
		fmt.Fprintf(h, "\x00%d\x00%d\x00%d\x00%d", r.Int("sdb_messages"), r.Int("sdb_updated"), r.Int("sdb_finished"), r.Int("sdb_bytes"))
		if open := r.Int("sdb_open"); open > 0 && now().Sub(unixTime(open)) < InFlightFor {
			// The last message is being streamed (read.go): the stamp
			// changes once it is finished or has been quiet long
			// enough to be imported as abandoned.
			h.Write([]byte("\x00in flight"))
		}
		upd := r.Int("updated_at")
		if m := r.Int("sdb_updated"); m > upd && m < 1e11 {
			upd = m
		}
		out = append(out, jsonl.StoreSession{
			Unit:    jsonl.Unit{Format: st.Format, Path: jsonl.SessionPath(store.Path, id)},
			Stamp:   hex.EncodeToString(h.Sum(nil)),
			Rows:    r.Int("sdb_messages"),
			Updated: unixTime(upd),
			Bytes:   r.Int("sdb_bytes"),
		})
	}
	return out, problems, nil
}

// emptyStore reports whether the database's main file is empty and no
// -wal with content lies beside it.
func emptyStore(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() != 0 {
		return false
	}
	wal, err := os.Stat(path + "-wal")
	return err != nil || wal.Size() == 0
}

// resumeState is Parsed.ResumeState.
type resumeState struct {
	V int `json:"v"`
	// N is the number of messages imported.
	N int `json:"n"`
	// Title is the title made of the first prompt, for a session the
	// program has not titled.
	Title string `json:"title,omitempty"`
}

// parse reads session id of the store at storePath. It always reads the
// session whole: a resumed read (Offset > 0) returns ErrNotIncremental,
// and the importer keeps the entries after those imported (a finished
// message never changes, so they read as they were imported).
func (st Store) parse(ctx context.Context, u jsonl.Unit, storePath, id string, from jsonl.Resume) (*jsonl.Parsed, error) {
	var rs resumeState
	db, release, err := foreigndb.Whole(ctx, from, storePath, &rs)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := checkTables(ctx, db); err != nil {
		return nil, err
	}
	srows, err := foreigndb.QueryRows(ctx, db, `SELECT * FROM sessions WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(srows) == 0 {
		return nil, fmt.Errorf("session %s is no longer in %s", id, storePath)
	}
	mrows, err := foreigndb.QueryRows(ctx, db, `SELECT * FROM messages WHERE session_id = ? ORDER BY created_at, rowid`, id)
	if err != nil {
		return nil, err
	}
	return st.build(u, srows[0], mrows, rs)
}
