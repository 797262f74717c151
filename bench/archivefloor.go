package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"time"
)

// The archive's import floor (issue 42, item 2: "where a target is out of
// reach, show the floor on this machine that says why"). Any store that
// searches substrings with SQLite's trigram FTS5 must at least tokenize
// and write every text it makes searchable; archiveIndexFloor does that
// and nothing else, with the texts sessiondb extracted (read back from the
// imported database, so both index exactly the same bytes) into an index
// defined as sessiondb's (contentless, contentless_delete, detail=none,
// automerge off, hashsize 4 MiB), in transactions of 2 MiB of text at
// synchronous=NORMAL as sessiondb's index batches are. One writer, as an
// FTS5 index has: its wall time bounds the import's "searchable" time on
// any number of cores. The texts are first read once without indexing, and
// that read is reported apart, so the floor's own cost is plain.

// floorBatchBytes is the text of one floor transaction (sessiondb's
// indexBatchBytes).
const floorBatchBytes = 2 << 20

// floorResult is what archiveIndexFloor measured.
type floorResult struct {
	rows, textBytes     int64
	readWall, readCPU   float64 // reading the texts alone
	indexWall, indexCPU float64 // reading and indexing them
	indexBytes          int64   // the floor index file, checkpointed
}

// archiveIndexFloor indexes the texts of db's entries and summary
// messages into a new FTS5 file at path (removed after).
func archiveIndexFloor(ctx context.Context, db, path string) (floorResult, error) {
	var r floorResult
	src, err := sql.Open("sqlite", (&url.URL{Scheme: "file", OmitHost: true, Path: db, RawQuery: "mode=ro"}).String())
	if err != nil {
		return r, err
	}
	defer src.Close()
	src.SetMaxOpenConns(1)
	// Rows in ascending row id throughout, summary messages after every
	// entry: FTS5 writes its pending postings out as a segment whenever a
	// row id is not above the last one, so a descending run would cost a
	// segment a row.
	const texts = `SELECT id, text FROM entries WHERE text <> ''
		UNION ALL SELECT id + (SELECT coalesce(max(id), 0) FROM entries), text FROM summary_messages WHERE text <> ''`
	each := func(fn func(id int64, text string) error) error {
		rows, err := src.QueryContext(ctx, texts)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var text string
			if err := rows.Scan(&id, &text); err != nil {
				return err
			}
			if err := fn(id, text); err != nil {
				return err
			}
		}
		return rows.Err()
	}

	t, c := time.Now(), cpuTime()
	err = each(func(_ int64, text string) error {
		r.rows++
		r.textBytes += int64(len(text))
		return nil
	})
	if err != nil {
		return r, err
	}
	r.readWall, r.readCPU = time.Since(t).Seconds(), cpuTime()-c

	os.Remove(path)
	defer func() {
		for _, s := range []string{"", "-wal", "-shm"} {
			os.Remove(path + s)
		}
	}()
	// sessiondb's index file: 8 KiB pages (set before WAL, which fixes
	// the page size), WAL, synchronous=NORMAL.
	dsn := (&url.URL{Scheme: "file", OmitHost: true, Path: path,
		RawQuery: "_pragma=page_size(8192)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"}).String()
	dst, err := sql.Open("sqlite", dsn)
	if err != nil {
		return r, err
	}
	defer dst.Close()
	dst.SetMaxOpenConns(1)
	for _, q := range []string{
		`CREATE VIRTUAL TABLE f USING fts5 (text, content = '', contentless_delete = 1, detail = none, tokenize = 'trigram')`,
		`INSERT INTO f (f, rank) VALUES ('automerge', 0)`,
		`INSERT INTO f (f, rank) VALUES ('hashsize', 4194304)`,
	} {
		if _, err := dst.ExecContext(ctx, q); err != nil {
			return r, err
		}
	}

	t, c = time.Now(), cpuTime()
	var tx *sql.Tx
	var ins *sql.Stmt
	batch := 0
	begin := func() (err error) {
		if tx, err = dst.BeginTx(ctx, nil); err != nil {
			return err
		}
		ins, err = tx.PrepareContext(ctx, `INSERT INTO f (rowid, text) VALUES (?, ?)`)
		return err
	}
	if err := begin(); err != nil {
		return r, err
	}
	err = each(func(id int64, text string) error {
		if _, err := ins.ExecContext(ctx, id, text); err != nil {
			return err
		}
		if batch += len(text); batch >= floorBatchBytes {
			batch = 0
			if err := tx.Commit(); err != nil {
				return err
			}
			return begin()
		}
		return nil
	})
	if err == nil {
		err = tx.Commit()
	} else {
		tx.Rollback()
	}
	if err != nil {
		return r, fmt.Errorf("index floor: %w", err)
	}
	r.indexWall, r.indexCPU = time.Since(t).Seconds(), cpuTime()-c
	if _, err := dst.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return r, err
	}
	r.indexBytes = fileSize(path)
	return r, nil
}
