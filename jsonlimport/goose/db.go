package goose

// The store, read through a foreigndb snapshot (a copy taken aside).

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/sessiondb/sessiondb/jsonlimport/foreigndb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// errNoTablesYet: a database without any table yet (goose creates the
// file before its schema): a store with no session.
var errNoTablesYet = errors.New("no table yet")

// tables lists the database's tables; it fails unless sessions and
// messages are among them.
func tables(ctx context.Context, db *sql.DB) (map[string]bool, error) {
	rows, err := foreigndb.QueryRows(ctx, db, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, r := range rows {
		out[r.Str("name")] = true
	}
	if len(out) == 0 {
		return nil, errNoTablesYet
	}
	if !out["sessions"] || !out["messages"] {
		return nil, fmt.Errorf("no tables sessions and messages: %w", foreigndb.ErrNotDatabase)
	}
	return out, nil
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

// Sessions implements jsonl.StoreFormat: the sessions of the database,
// oldest first, each stamped with its whole row and its messages' (and
// usage ledger rows') count, last id and size: goose rewrites a
// session's rows (replace_conversation deletes and inserts them all) and
// updates its row's token counts after every call.
func (Format) Sessions(ctx context.Context, store jsonl.Unit, c *jsonl.Cache) ([]jsonl.StoreSession, []jsonl.Problem, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if strings.HasSuffix(store.Path, ".jsonl") {
		return legacySession(store)
	}
	if emptyStore(store.Path) {
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
	tabs, err := tables(ctx, db)
	if errors.Is(err, errNoTablesYet) {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, err
	}
	ledger := `0 AS sdb_ledger`
	if tabs["usage_ledger"] {
		ledger = `(SELECT count(*) || '/' || ifnull(max(l.id), 0) || '/' || ifnull(sum(l.cost), 0) || '/' || ifnull(sum(l.input_tokens), 0) || '/' || ifnull(sum(l.output_tokens), 0)
			FROM usage_ledger l WHERE l.session_id = s.id) AS sdb_ledger`
	}
	rows, err := foreigndb.QueryRows(ctx, db, `SELECT s.*,
		(SELECT count(*) FROM messages m WHERE m.session_id = s.id) AS sdb_messages,
		(SELECT ifnull(max(m.id), 0) FROM messages m WHERE m.session_id = s.id) AS sdb_last,
		(SELECT ifnull(sum(length(m.content_json)) + sum(ifnull(length(m.metadata_json), 0)), 0) FROM messages m WHERE m.session_id = s.id) AS sdb_bytes,
		(SELECT ifnull(max(m.created_timestamp), 0) FROM messages m WHERE m.session_id = s.id) AS sdb_created,
		`+ledger+`
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
		cols := make([]string, 0, len(r))
		for k := range r {
			cols = append(cols, k)
		}
		sort.Strings(cols)
		h := sha256.New()
		fmt.Fprintf(h, "%s/1", Name)
		for _, k := range cols {
			fmt.Fprintf(h, "\x00%s=%T:%s", k, r[k], r.Str(k))
		}
		upd := rowTime(r, "updated_at")
		if m := unixTime(r.Int("sdb_created")); m.After(upd) {
			upd = m
		}
		out = append(out, jsonl.StoreSession{
			Unit:    jsonl.Unit{Format: Name, Path: jsonl.SessionPath(store.Path, id)},
			Stamp:   hex.EncodeToString(h.Sum(nil)),
			Rows:    r.Int("sdb_messages"),
			Updated: upd,
			Bytes:   r.Int("sdb_bytes"),
		})
	}
	return out, problems, nil
}

// resumeState is Parsed.ResumeState.
type resumeState struct {
	V int `json:"v"`
	// N is the number of messages imported.
	N int `json:"n"`
	// Title is the title made of the first prompt, for a session goose
	// has not named.
	Title string `json:"title,omitempty"`
}

// parseStored reads session id of the store at storePath. It always
// reads the session whole: a resumed read (Offset > 0) returns
// ErrNotIncremental, and the importer keeps the entries after those
// imported.
func parseStored(ctx context.Context, u jsonl.Unit, storePath, id string, from jsonl.Resume) (*jsonl.Parsed, error) {
	var rs resumeState
	db, release, err := foreigndb.Whole(ctx, from, storePath, &rs)
	if err != nil {
		return nil, err
	}
	defer release()
	tabs, err := tables(ctx, db)
	if err != nil {
		return nil, err
	}
	srows, err := foreigndb.QueryRows(ctx, db, `SELECT * FROM sessions WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(srows) == 0 {
		return nil, fmt.Errorf("session %s is no longer in %s", id, storePath)
	}
	// goose's own order (get_conversation: ORDER BY timestamp, the time
	// of the insert; rows of one second in insertion order).
	mrows, err := foreigndb.QueryRows(ctx, db, `SELECT * FROM messages WHERE session_id = ? ORDER BY timestamp, id`, id)
	if err != nil {
		return nil, err
	}
	var lrows []row
	if tabs["usage_ledger"] {
		if lrows, err = foreigndb.QueryRows(ctx, db, `SELECT * FROM usage_ledger WHERE session_id = ? ORDER BY id`, id); err != nil {
			return nil, err
		}
	}
	return build(u, srows[0], mrows, lrows, rs)
}

// legacySession lists a legacy session file as the one session it
// holds, stamped with its contents' hash.
func legacySession(store jsonl.Unit) ([]jsonl.StoreSession, []jsonl.Problem, error) {
	b, err := jsonl.ReadFile(store.Path, jsonl.MaxWholeFile)
	if err != nil {
		return nil, nil, err
	}
	fi, err := os.Stat(store.Path)
	if err != nil {
		return nil, nil, err
	}
	sum := sha256.Sum256(b)
	return []jsonl.StoreSession{{Unit: jsonl.Unit{Format: Name, Path: store.Path}, Stamp: hex.EncodeToString(sum[:]),
		Rows: int64(bytes.Count(b, []byte("\n"))), Updated: fi.ModTime(), Bytes: int64(len(b))}}, nil, nil
}
