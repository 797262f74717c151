package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// Deferred full-text indexing (see "Search" in doc.go).
//
// Writes insert rows only. For each source table, search_index holds the
// cursor: the highest row id that is in the table's FTS5 index. The
// indexer adds the rows after the cursor in batches, each batch one write
// (one index segment, one cursor move, in one transaction), and removes
// from the index the rows that search_deleted lists. A crash between a
// commit and its indexing loses nothing: the rows are there, the cursor
// is behind them, and whoever writes next (this process after reopening,
// or any other process on the file) catches up.

// ftsSource is a table whose text column is indexed.
type ftsSource struct {
	table string // entries or summary_messages
	fts   string // its FTS5 index
}

var ftsSources = []ftsSource{{"entries", "entries_fts"}, {"summary_messages", "summary_fts"}}

const (
	// indexBatchRows bounds the rows one indexing write adds per source:
	// large enough that the per-segment cost (a segment write and, now
	// and then, a merge) is spread over many rows, small enough that one
	// batch does not hold the write lock for long (about 100 ms of CPU
	// for 1 KB rows on the benchmark machine).
	indexBatchRows = 1000
	// purgeBatchRows bounds the deleted rows one indexing write removes
	// from the index.
	purgeBatchRows = 500
	// defaultIndexDelay is how long the indexer lets writes accumulate
	// after the first one it was told about, so that a stream of small
	// appends is indexed in a few large batches instead of one segment per
	// append (Options.IndexDelay).
	defaultIndexDelay = 50 * time.Millisecond
	// mergePages bounds the work of one idle merge step (FTS5 'merge'
	// command: about this many leaf pages written), and maxMergeSteps the
	// steps of one idle period.
	mergePages    = 200
	maxMergeSteps = 50
	// searchCatchUp is the unindexed tail above which Search of a writable
	// store first catches the index up instead of scanning the tail.
	searchCatchUp = 20000
)

// IndexStatus says how far the full-text index lags behind the log.
type IndexStatus struct {
	// Unindexed counts the entries and summary messages committed but not
	// yet in the index (Search scans them instead).
	Unindexed int64
	// PendingDeletes counts rows deleted from the log but still in the
	// index (Search no longer returns them).
	PendingDeletes int64
}

// IndexStatus reports the indexing lag (shown by sessionctl stats, doctor
// and reindex).
func (s *Store) IndexStatus(ctx context.Context) (IndexStatus, error) {
	var st IndexStatus
	err := s.read(ctx, func(tx *sqlx.Tx) error {
		for _, src := range ftsSources {
			tail, err := unindexed(ctx, tx, src)
			if err != nil {
				return err
			}
			st.Unindexed += tail
		}
		return tx.GetContext(ctx, &st.PendingDeletes, `SELECT count(*) FROM search_deleted`)
	})
	if err != nil {
		return IndexStatus{}, fmt.Errorf("index status: %w", err)
	}
	return st, nil
}

// unindexed counts the rows of src after its cursor.
func unindexed(ctx context.Context, q sqlx.QueryerContext, src ftsSource) (int64, error) {
	var n int64
	err := sqlx.GetContext(ctx, q, &n, `SELECT count(*) FROM `+src.table+
		` WHERE id > (SELECT indexed_through FROM search_index WHERE source = ?)`, src.table)
	return n, err
}

// indexCursor returns the cursor of src.
func indexCursor(ctx context.Context, q sqlx.QueryerContext, src ftsSource) (int64, error) {
	var through int64
	err := sqlx.GetContext(ctx, q, &through, `SELECT indexed_through FROM search_index WHERE source = ?`, src.table)
	return through, err
}

// indexBatch indexes up to indexBatchRows rows of each source after its
// cursor and removes up to purgeBatchRows deleted rows from the index, in
// tx. more reports whether work is left.
func indexBatch(ctx context.Context, tx *sqlx.Tx) (more bool, err error) {
	for _, src := range ftsSources {
		through, err := indexCursor(ctx, tx, src)
		if err != nil {
			return false, err
		}
		var upto, n int64
		err = tx.QueryRowxContext(ctx, `SELECT coalesce(max(id), ?), count(*) FROM
			(SELECT id FROM `+src.table+` WHERE id > ? ORDER BY id LIMIT ?)`, through, through, indexBatchRows).Scan(&upto, &n)
		if err != nil {
			return false, err
		}
		if n > 0 {
			if _, err := tx.ExecContext(ctx, `INSERT INTO `+src.fts+` (rowid, text) SELECT id, text FROM `+src.table+
				` WHERE id > ? AND id <= ? AND text <> ''`, through, upto); err != nil {
				return false, fmt.Errorf("index %s: %w", src.table, err)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE search_index SET indexed_through = ? WHERE source = ?`, upto, src.table); err != nil {
				return false, err
			}
			more = more || n == indexBatchRows
		}
		// One DELETE per row id: FTS5 cannot use "rowid IN (subquery)" as
		// a lookup, and a DELETE with it scans the whole index.
		var ids []int64
		if err := tx.SelectContext(ctx, &ids, `SELECT id FROM search_deleted WHERE source = ? ORDER BY id LIMIT ?`,
			src.table, purgeBatchRows+1); err != nil {
			return false, err
		}
		if len(ids) > purgeBatchRows {
			ids, more = ids[:purgeBatchRows], true
		}
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+src.fts+` WHERE rowid = ?`, id); err != nil {
				return false, fmt.Errorf("unindex deleted %s: %w", src.table, err)
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM search_deleted WHERE source = ? AND id = ?`, src.table, id); err != nil {
				return false, err
			}
		}
	}
	return more, nil
}

// CatchUpIndex indexes everything committed so far (by any process) and
// returns once the index is complete or ctx is done. Writers do this in
// the background; call it to have search ready at a known point, e.g.
// after a bulk import.
func (s *Store) CatchUpIndex(ctx context.Context) error {
	for {
		var more bool
		err := s.submit(writeReq{ctx: ctx, indexing: true, fn: func(tx *sqlx.Tx) (err error) {
			more, err = indexBatch(ctx, tx)
			return err
		}})
		if err != nil {
			return fmt.Errorf("index: %w", err)
		}
		if !more {
			return nil
		}
	}
}

// indexable reports whether the schema has the indexing cursor, which a
// database opened with NoMigrate at an older version lacks.
func (s *Store) indexable(ctx context.Context) bool {
	v, err := s.schemaVersion(ctx)
	return err == nil && v >= deferredSearchVersion
}

// deferredSearchVersion is the schema version that introduced the cursor.
const deferredSearchVersion = 4

// kickIndexer tells the indexer that rows were committed. It never blocks.
func (s *Store) kickIndexer() {
	if s.indexKick == nil {
		return
	}
	select {
	case s.indexKick <- struct{}{}:
	default:
	}
}

// startIndexer starts the background indexer. It catches up at once (a
// crash or another process may have left rows unindexed), then after
// every kick, Options.IndexDelay later.
func (s *Store) startIndexer() {
	s.indexerDone = make(chan struct{})
	s.kickIndexer()
	go s.indexer()
}

func (s *Store) indexer() {
	defer close(s.indexerDone)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-s.stop
		cancel()
	}()
	for {
		select {
		case <-s.indexKick:
		case <-s.stop:
			return
		}
		select {
		case <-time.After(s.opts.IndexDelay):
		case <-s.stop:
			return
		}
		if st, err := s.IndexStatus(ctx); err == nil && st == (IndexStatus{}) {
			continue // nothing to do: do not take the write lock
		}
		if err := s.CatchUpIndex(ctx); err != nil && ctx.Err() == nil {
			// Nothing is lost: the rows stay after the cursor, Search
			// scans them, and the next kick (or Open) retries. Back off
			// so that a persistent error does not spin.
			s.indexErr.Store(&err)
			s.kickIndexer()
			select {
			case <-time.After(time.Second):
			case <-s.stop:
				return
			}
		} else if err == nil {
			s.indexErr.Store(nil)
			s.mergeWhileIdle(ctx)
		}
	}
}

// mergeWhileIdle merges index segments, one bounded step per write, until
// FTS5 finds nothing to merge, new commits arrive, or maxMergeSteps steps
// ran. Automatic merging is off (migration 4): it ran at the end of every
// batch and re-merged segments holding deleted rows again and again.
func (s *Store) mergeWhileIdle(ctx context.Context) {
	for range maxMergeSteps {
		if len(s.indexKick) > 0 {
			return // commits are waiting to be indexed first
		}
		merged := false
		err := s.submit(writeReq{ctx: ctx, indexing: true, fn: func(tx *sqlx.Tx) error {
			for _, src := range ftsSources {
				var before, after int64
				if err := tx.GetContext(ctx, &before, `SELECT total_changes()`); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO `+src.fts+` (`+src.fts+`, rank) VALUES ('merge', ?)`, mergePages); err != nil {
					return fmt.Errorf("merge %s: %w", src.fts, err)
				}
				if err := tx.GetContext(ctx, &after, `SELECT total_changes()`); err != nil {
					return err
				}
				// FTS5's documented test: fewer than two changes
				// means the merge found nothing to do.
				merged = merged || after-before >= 2
			}
			return nil
		}})
		if err != nil || !merged {
			return
		}
	}
}

// IndexError returns the last error of the background indexer, nil if
// its last run succeeded. sessionctl doctor reports it.
func (s *Store) IndexError() error {
	if p := s.indexErr.Load(); p != nil {
		return *p
	}
	return nil
}

// rebuildIndex empties both indexes and indexes every row again, in tx.
func rebuildIndex(ctx context.Context, tx *sqlx.Tx) error {
	for _, src := range ftsSources {
		for _, q := range []string{
			`INSERT INTO ` + src.fts + ` (` + src.fts + `) VALUES ('delete-all')`,
			`INSERT INTO ` + src.fts + ` (rowid, text) SELECT id, text FROM ` + src.table + ` WHERE text <> ''`,
			`UPDATE search_index SET indexed_through = (SELECT coalesce(max(id), 0) FROM ` + src.table + `) WHERE source = '` + src.table + `'`,
			`DELETE FROM search_deleted WHERE source = '` + src.table + `'`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("rebuild %s: %w", src.fts, err)
			}
		}
	}
	return nil
}
