package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/sessiondb/sessiondb"
)

// This file is a PROTOTYPE, not used by sessiondb: what workload 2 could
// reach if sqlstore's group commit also moved per-append work off its one
// committer goroutine. It runs on a private copy of the sessiondb schema,
// with synchronous=FULL, and every append is acknowledged only after the
// COMMIT (fsync) of the batch that holds it — the durability contract is
// sqlstore's. What it changes, each a proposal for sqlstore:
//
//   - extraction (DefaultExtractor) runs in the caller's goroutine, before
//     queueing, so it uses the other CPUs;
//   - statements are prepared once, not parsed again for every write;
//   - the FTS insert trigger is dropped and the batch's new entries are
//     indexed by ONE statement just before the COMMIT (same transaction,
//     so still atomic), instead of FTS5 flushing a segment per statement;
//   - the session row is read once (last_seq), not twice.

type protoReq struct {
	session, kind, role, text string
	body                      []byte
	done                      chan error
}

type protoCommitter struct {
	db      *sql.DB
	reqs    chan *protoReq
	wg      sync.WaitGroup
	stmts   map[string]*sql.Stmt
	batches int
	noFTS   bool // measure without any full-text index (the floor)
}

const protoMaxBatch = 64

func newProtoCommitter(path string, noFTS bool) (*protoCommitter, error) {
	u := url.URL{Scheme: "file", OmitHost: true, Path: path}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(30000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_txlock", "immediate")
	db, err := sql.Open("sqlite", u.String()+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	if _, err := db.Exec(`DROP TRIGGER IF EXISTS entries_fts_insert`); err != nil {
		db.Close()
		return nil, err
	}
	pc := &protoCommitter{db: db, reqs: make(chan *protoReq), stmts: map[string]*sql.Stmt{}, noFTS: noFTS}
	for name, q := range map[string]string{
		"last":   `SELECT last_seq FROM sessions WHERE id = ?`,
		"insert": `INSERT INTO entries (session_id, seq, kind, role, text, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		"bump":   `UPDATE sessions SET sequence = sequence + 1, last_seq = ?, updated_at = ? WHERE id = ?`,
		"maxid":  `SELECT coalesce(max(id), 0) FROM entries`,
		"index":  `INSERT INTO entries_fts (rowid, text) SELECT id, text FROM entries WHERE id > ? AND text <> ''`,
	} {
		st, err := db.Prepare(q)
		if err != nil {
			db.Close()
			return nil, err
		}
		pc.stmts[name] = st
	}
	pc.wg.Add(1)
	go pc.loop()
	return pc, nil
}

// Append extracts, queues, and returns once the entry is durable.
func (pc *protoCommitter) Append(ctx context.Context, session string, body []byte) error {
	role, text := sessiondb.DefaultExtractor(sessiondb.KindMessage, body)
	r := &protoReq{session: session, kind: sessiondb.KindMessage, role: role, text: text, body: body, done: make(chan error, 1)}
	select {
	case pc.reqs <- r:
	case <-ctx.Done():
		return ctx.Err()
	}
	return <-r.done
}

func (pc *protoCommitter) Close() error {
	close(pc.reqs)
	pc.wg.Wait()
	return pc.db.Close()
}

func (pc *protoCommitter) loop() {
	defer pc.wg.Done()
	for first := range pc.reqs {
		batch := []*protoReq{first}
	drain:
		for len(batch) < protoMaxBatch {
			select {
			case r, ok := <-pc.reqs:
				if !ok {
					break drain
				}
				batch = append(batch, r)
			default:
				break drain
			}
		}
		errs, err := pc.apply(batch)
		pc.batches++
		for i, r := range batch {
			if err != nil {
				r.done <- err
			} else {
				r.done <- errs[i]
			}
		}
	}
}

func (pc *protoCommitter) apply(batch []*protoReq) ([]error, error) {
	ctx := context.Background()
	tx, err := pc.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var maxID int64
	if err := tx.Stmt(pc.stmts["maxid"]).QueryRowContext(ctx).Scan(&maxID); err != nil {
		return nil, err
	}
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000000000Z")
	errs := make([]error, len(batch))
	for i, r := range batch {
		if _, err := tx.ExecContext(ctx, `SAVEPOINT w`); err != nil {
			return nil, err
		}
		errs[i] = pc.one(ctx, tx, r, now)
		if errs[i] != nil {
			if _, err := tx.ExecContext(ctx, `ROLLBACK TO w`); err != nil {
				return nil, err
			}
		}
		if _, err := tx.ExecContext(ctx, `RELEASE w`); err != nil {
			return nil, err
		}
	}
	if !pc.noFTS {
		if _, err := tx.Stmt(pc.stmts["index"]).ExecContext(ctx, maxID); err != nil {
			return nil, err
		}
	}
	return errs, tx.Commit() // the one fsync of the batch
}

func (pc *protoCommitter) one(ctx context.Context, tx *sql.Tx, r *protoReq, now string) error {
	var last int64
	if err := tx.Stmt(pc.stmts["last"]).QueryRowContext(ctx, r.session).Scan(&last); err != nil {
		return fmt.Errorf("append to %s: %w", r.session, err)
	}
	last++
	if _, err := tx.Stmt(pc.stmts["insert"]).ExecContext(ctx, r.session, last, r.kind, r.role, r.text, string(r.body), now); err != nil {
		return err
	}
	_, err := tx.Stmt(pc.stmts["bump"]).ExecContext(ctx, last, now, r.session)
	return err
}

// protoThroughput runs writers×per appends through the prototype on the
// database at path (whose sessions writer-00… exist) and returns
// appends/s, the CPU time per append and the mean batch size.
func protoThroughput(ctx context.Context, path string, noFTS bool, writers, per int, lines [][]byte) (thr, cpu, batch float64, err error) {
	pc, err := newProtoCommitter(path, noFTS)
	if err != nil {
		return 0, 0, 0, err
	}
	defer pc.Close()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	startGun := make(chan struct{})
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			<-startGun
			id := fmt.Sprintf("writer-%02d", w)
			for i := 0; i < per; i++ {
				if err := pc.Append(ctx, id, lines[w*per+i]); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	c0, t0 := cpuTime(), time.Now()
	close(startGun)
	wg.Wait()
	el := time.Since(t0).Seconds()
	cpu = (cpuTime() - c0) / float64(writers*per)
	close(errs)
	if err := <-errs; err != nil {
		return 0, 0, 0, err
	}
	return float64(writers*per) / el, cpu, float64(writers*per) / float64(max(pc.batches, 1)), nil
}
