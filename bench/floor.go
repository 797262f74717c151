package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// SQLite's own floors: what the pinned engine itself costs for the work a
// workload asks of sessiondb, with none of sessiondb's rows, checks or
// bookkeeping. They are printed beside the targets so that a missed
// target says whether the distance is sessiondb's or SQLite's.

// groupCommitFloor is the fastest way SQLite can take concurrent durable
// single-row writes: every writer hands its row to one committer, which
// inserts all rows queued at that moment into a plain table in one
// transaction (WAL, synchronous=FULL) and then acknowledges them. It is
// what sessiondb's committer does, minus everything an append is besides
// the row. With the data model (newModelGroupCommitFloor) each row is
// modelFloor's append instead: its session row bumped by an UPDATE …
// RETURNING and the entry inserted under its (session_id, seq) key, so
// that a batch of appends to different sessions writes the pages
// sessiondb's does (each session's index leaf), still in one transaction.
type groupCommitFloor struct {
	db   *sql.DB
	ins  *sql.Stmt
	bump *sql.Stmt // the data model's UPDATE … RETURNING; nil for the plain table
	reqs chan floorReq
	done chan struct{}
}

type floorReq struct {
	writer, seq int
	body        []byte
	ack         chan error
}

func newGroupCommitFloor(ctx context.Context, path string) (*groupCommitFloor, error) {
	db, err := openRawSQLite(ctx, path, "FULL")
	if err != nil {
		return nil, err
	}
	ins, err := db.PrepareContext(ctx, `INSERT INTO rows (session_id, seq, body) VALUES (?, ?, ?)`)
	if err != nil {
		db.Close()
		return nil, err
	}
	return startGroupCommitFloor(ctx, db, ins, nil), nil
}

// newModelGroupCommitFloor is the group commit floor in the data model,
// with a session per writer.
func newModelGroupCommitFloor(ctx context.Context, path string, writers int) (*groupCommitFloor, error) {
	db, err := openRawSQLiteExisting(path, "FULL")
	if err != nil {
		return nil, err
	}
	ids := make([]string, writers)
	for w := range ids {
		ids[w] = floorSession(w)
	}
	bump, entry, err := createModel(ctx, db, `id = ?2`, ids...)
	if err != nil {
		db.Close()
		return nil, err
	}
	return startGroupCommitFloor(ctx, db, entry, bump), nil
}

func startGroupCommitFloor(ctx context.Context, db *sql.DB, ins, bump *sql.Stmt) *groupCommitFloor {
	f := &groupCommitFloor{db: db, ins: ins, bump: bump, reqs: make(chan floorReq, 1024), done: make(chan struct{})}
	go f.commit(ctx)
	return f
}

// floorSession names writer w's session in the floors, as workload 2 names
// its sessions.
func floorSession(w int) string { return fmt.Sprintf("writer-%02d", w) }

// commit runs the committer until the request channel is closed.
func (f *groupCommitFloor) commit(ctx context.Context) {
	defer close(f.done)
	for req := range f.reqs {
		batch := []floorReq{req}
	drain:
		for {
			select {
			case r, ok := <-f.reqs:
				if !ok {
					break drain
				}
				batch = append(batch, r)
			default:
				break drain
			}
		}
		err := f.write(ctx, batch)
		for _, r := range batch {
			r.ack <- err
		}
	}
}

func (f *groupCommitFloor) write(ctx context.Context, batch []floorReq) error {
	tx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ins := tx.StmtContext(ctx, f.ins)
	if f.bump != nil {
		bump := tx.StmtContext(ctx, f.bump)
		for _, r := range batch {
			now := time.Now().UTC().Format(time.RFC3339Nano)
			var seq int64
			if err := bump.QueryRowContext(ctx, now, floorSession(r.writer)).Scan(&seq); err != nil {
				return err
			}
			if _, err := ins.ExecContext(ctx, floorSession(r.writer), seq, string(r.body), now); err != nil {
				return err
			}
		}
		return tx.Commit()
	}
	for _, r := range batch {
		if _, err := ins.ExecContext(ctx, floorSession(r.writer), r.seq, string(r.body)); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// append hands one row to the committer and waits for its commit.
func (f *groupCommitFloor) append(writer, seq int, body []byte) error {
	ack := make(chan error, 1)
	f.reqs <- floorReq{writer: writer, seq: seq, body: body, ack: ack}
	return <-ack
}

// run has writers goroutines append per rows each, all at once, and
// returns the rows per second.
func (f *groupCommitFloor) run(writers, per int, lines [][]byte, base int) (float64, error) {
	return concurrently(writers, per, func(w, i int) error {
		return f.append(w, base+i, lines[w*per+i])
	})
}

func (f *groupCommitFloor) Close() error {
	close(f.reqs)
	<-f.done
	f.ins.Close()
	if f.bump != nil {
		f.bump.Close()
	}
	return f.db.Close()
}

// indexFloor is what SQLite's trigram FTS5 costs to index the text of the
// rows a raw insert left in dbPath (the "content" field of each line, the
// text sessiondb indexes for these picoclaw messages), into an index
// defined as sessiondb's (contentless, contentless_delete, detail=none,
// automerge off: segments are merged later, when idle), filled in batches
// of indexFloorRows rows, one transaction each at synchronous=NORMAL as
// sessiondb's index batches. No merging, no parse: the least any store that
// searches substrings with this index must spend before its search is
// ready. It returns the seconds taken.
func indexFloor(ctx context.Context, dbPath string) (float64, error) {
	db, err := openRawSQLiteExisting(dbPath, "NORMAL")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	t := time.Now()
	for _, q := range []string{
		`CREATE VIRTUAL TABLE rows_fts USING fts5 (text, content = '', contentless_delete = 1, detail = none, tokenize = 'trigram')`,
		`INSERT INTO rows_fts (rows_fts, rank) VALUES ('automerge', 0)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return 0, err
		}
	}
	var last int64
	if err := db.QueryRowContext(ctx, `SELECT coalesce(max(rowid), 0) FROM rows`).Scan(&last); err != nil {
		return 0, err
	}
	for lo := int64(0); lo < last; lo += indexFloorRows {
		if _, err := db.ExecContext(ctx, `INSERT INTO rows_fts (rowid, text)
			SELECT rowid, body ->> '$.content' FROM rows WHERE rowid > ? AND rowid <= ?`, lo, lo+indexFloorRows); err != nil {
			return 0, err
		}
	}
	return time.Since(t).Seconds(), nil
}

// indexFloorRows is the batch of indexFloor, sessiondb's indexBatchRows.
const indexFloorRows = 1000

// modelFloor is the least SQLite does for an append in sessiondb's data
// model, written by hand: in one transaction, bump the session row's
// revision, last seq, count and time (one UPDATE … RETURNING, the row
// indexed by its time as sessiondb's is, for a list by recency) and insert
// the entry under its (session_id, seq) key. The tables are sessiondb's
// (a rowid table keyed by its text id, the same indexes) with fewer
// columns. No JSON check, no text, no search cursor, no savepoint, no
// group commit.
type modelFloor struct {
	db          *sql.DB
	bump, entry *sql.Stmt
}

func newModelFloor(ctx context.Context, path, sync string) (*modelFloor, error) {
	db, err := openRawSQLiteExisting(path, sync)
	if err != nil {
		return nil, err
	}
	m := &modelFloor{db: db}
	if m.bump, m.entry, err = createModel(ctx, db, `id = 'append'`, "append"); err != nil {
		db.Close()
		return nil, err
	}
	return m, nil
}

// createModel creates modelFloor's tables in db with a session for each
// of ids, and prepares the UPDATE … RETURNING (arguments: time, then what
// where needs) that bumps the session matched by where, and the INSERT of
// an entry (session, seq, body, time).
func createModel(ctx context.Context, db *sql.DB, where string, ids ...string) (bump, entry *sql.Stmt, err error) {
	for _, q := range []string{
		`CREATE TABLE sessions (id TEXT PRIMARY KEY, sequence INTEGER NOT NULL, last_seq INTEGER NOT NULL,
			entry_count INTEGER NOT NULL, updated_at TEXT NOT NULL)`,
		`CREATE INDEX sessions_by_updated ON sessions (updated_at DESC, id DESC)`,
		`CREATE TABLE entries (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, seq INTEGER NOT NULL,
			body TEXT NOT NULL, created_at TEXT NOT NULL, UNIQUE (session_id, seq))`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return nil, nil, err
		}
	}
	for _, id := range ids {
		if _, err := db.ExecContext(ctx, `INSERT INTO sessions VALUES (?, 0, 0, 0, '')`, id); err != nil {
			return nil, nil, err
		}
	}
	if bump, err = db.PrepareContext(ctx, `UPDATE sessions SET sequence = sequence + 1, last_seq = last_seq + 1,
		entry_count = entry_count + 1, updated_at = ?1 WHERE `+where+` RETURNING last_seq`); err != nil {
		return nil, nil, err
	}
	if entry, err = db.PrepareContext(ctx, `INSERT INTO entries (session_id, seq, body, created_at) VALUES (?, ?, ?, ?)`); err != nil {
		bump.Close()
		return nil, nil, err
	}
	return bump, entry, nil
}

// append commits one entry and returns its latency in seconds.
func (m *modelFloor) append(ctx context.Context, body []byte) (float64, error) {
	t := time.Now()
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	now := time.Now().UTC().Format(time.RFC3339Nano)
	var seq int64
	if err := tx.StmtContext(ctx, m.bump).QueryRowContext(ctx, now).Scan(&seq); err != nil {
		return 0, err
	}
	if _, err := tx.StmtContext(ctx, m.entry).ExecContext(ctx, "append", seq, string(body), now); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return time.Since(t).Seconds(), nil
}

func (m *modelFloor) Close() error {
	m.bump.Close()
	m.entry.Close()
	return m.db.Close()
}
