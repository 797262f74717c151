package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
)

// Deferred full-text indexing (see "Search" in doc.go).
//
// Writes insert rows only. The index is in its own file (indexfile.go),
// where search.indexed holds, for each source table, the cursor: the
// highest row id that is in the table's FTS5 index. The indexer adds the
// rows after the cursor in batches, each batch one transaction of the
// index file (one index segment, one cursor move), and removes from the
// index the rows that search_deleted lists. A crash between a commit and
// its indexing loses nothing: the rows are there, the cursor is behind
// them, and whoever writes next (this process after reopening, or any
// other process on the file) catches up.

// ftsSource is a table whose text column is indexed.
type ftsSource struct {
	table string // entries or summary_messages
	fts   string // its FTS5 index
	// size is an SQL expression of a row's text size in bytes that does
	// not compute the text: entries.text is a generated column,
	// text_stored or else extracted from body, whose size bounds it.
	size string
}

var ftsSources = []ftsSource{
	{"entries", "entries_fts", "coalesce(octet_length(text_stored), octet_length(body))"},
	{"summary_messages", "summary_fts", "octet_length(text)"},
}

const (
	// indexBatchRows and indexBatchBytes bound the rows one indexing
	// write adds per source: the rows up to the one whose text reaches
	// indexBatchBytes (so at least one, however large), and at most
	// indexBatchRows. The bytes bound keeps the batch's text in memory
	// (temp.index_rows) and FTS5's pending postings (indexHashBytes, so
	// that a batch is one segment) to a few MiB whatever the rows' size,
	// and the index file's write lock (other processes' indexers wait
	// for it; appends and searches do not) to about 200 ms of tokenizing
	// on the benchmark machine. The bound was 1,000 rows, whatever their
	// size: a segment per ~450 KB of text in the bench archive, which
	// FTS5's crisis merges (16 segments a level) merged again and again,
	// leaving the pages they freed in the file. Measured on the
	// 300,000-message bench archive (import into a new database, then
	// catch-up; load 5, one after the other): index file 183 MB, 66 MB of
	// it free pages, and 68.2 CPU s before; 120 MB (3 MB free) and 67.1
	// CPU s with 2 MiB batches and a 4 MiB hash; 132 MB and 82.4 CPU s
	// with 8 MiB and 16 MiB (FTS5's hash then grows past what stays
	// cheap: sqlite3Fts5HashWrite 12 -> 23 s).
	indexBatchRows = 50000
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

// indexBatchBytes: see indexBatchRows (a variable for tests).
var indexBatchBytes int64 = 2 << 20

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
			tail, err := s.unindexed(ctx, tx, src)
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

// unindexed counts the rows of src after its cursor (all of them when the
// store has no usable index).
func (s *Store) unindexed(ctx context.Context, q sqlx.QueryerContext, src ftsSource) (int64, error) {
	through, err := s.indexCursor(ctx, q, src)
	if err != nil {
		return 0, err
	}
	var n int64
	err = sqlx.GetContext(ctx, q, &n, `SELECT count(*) FROM main.`+src.table+` WHERE id > ?`, max(through, 0))
	return n, err
}

// indexCursor returns the cursor of src as search may trust it: rows with
// an id at or below it are in the index. It is -1 when there is no usable
// index: the store has none attached (a read-only store without its index
// file), or the index file is not this database's (see indexStep), until
// the indexer builds it again.
func (s *Store) indexCursor(ctx context.Context, q sqlx.QueryerContext, src ftsSource) (int64, error) {
	if s.noIndex {
		return -1, nil
	}
	var through int64
	err := sqlx.GetContext(ctx, q, &through, `SELECT CASE WHEN i.log = m.index_file AND i.through <= m.indexed_through
		THEN i.through ELSE -1 END FROM search.indexed i JOIN main.search_index m USING (source) WHERE source = ?`, src.table)
	return through, err
}

// indexWork is what one indexStep does to the index of one source table,
// read from the log.
type indexWork struct {
	through int64   // the index file's cursor when the work was read
	built   string  // and the token it was built for
	reset   bool    // the index is not this log's: empty it first
	token   string  // the log's search_index.index_file
	upto    int64   // the new cursor
	deleted []int64 // deleted rows to remove from the index
	more    bool    // rows or deletes are left for the next step
	reserve bool    // rows past the reservation are waiting
}

// indexStep indexes a batch (batchEnd) of each source after its cursor
// and removes up to purgeBatchRows deleted rows from the index, in
// one transaction of the index file, then tells the database (one write
// of the committer) which deleted rows are gone from the index and, when
// the indexer is about to pass it, moves the reservation (see "Search" in
// doc.go). more reports whether work is left.
//
// It runs in two transactions of the indexer connection. The first reads
// the log and copies the batch's rows into a temporary table
// (temp.index_rows, in memory), so the indexer holds no snapshot of the
// database while it tokenizes: a reader that stays open keeps checkpoints
// from resetting the WAL, which a stream of writes (a bulk import) then
// grows without end (54 MB after workload 6's import, measured). The
// second takes the index file's write lock, checks that no other indexer
// moved the cursor meanwhile (else the step is done again), and indexes the
// copied rows. Which snapshot of the log the rows came from does not
// matter: a row deleted since leaves a posting that joins no row (its id is
// at or below the reservation, never given again), and a row committed
// since has an id above the reservation read with them.
func (s *Store) indexStep(ctx context.Context) (more bool, err error) {
	work, err := s.readIndexWork(ctx)
	if err != nil {
		return false, err
	}
	tx, err := s.indexTx(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	reserve, purged := false, 0
	for i, src := range ftsSources {
		w := work[i]
		var now indexWork
		if err := tx.QueryRowxContext(ctx, `SELECT through, log FROM search.indexed WHERE source = ?`, src.table).Scan(&now.through, &now.built); err != nil {
			return false, err
		}
		if now.through != w.through || now.built != w.built {
			return true, nil // another process's indexer went first: read again
		}
		if w.reset {
			if _, err := tx.ExecContext(ctx, `INSERT INTO search.`+src.fts+` (`+src.fts+`) VALUES ('delete-all')`); err != nil {
				return false, fmt.Errorf("reset %s: %w", src.fts, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO search.`+src.fts+` (rowid, text)
			SELECT id, text FROM temp.index_rows WHERE source = ? AND text <> '' ORDER BY id`, i); err != nil {
			return false, fmt.Errorf("index %s: %w", src.table, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE search.indexed SET through = ?, log = ? WHERE source = ?`, w.upto, w.token, src.table); err != nil {
			return false, err
		}
		// One DELETE per row id: FTS5 cannot use "rowid IN (…)" as a
		// lookup, and a DELETE with it scans the whole index. A row
		// deleted before it was indexed is not in the index: deleting
		// it does nothing.
		for _, id := range w.deleted {
			if _, err := tx.ExecContext(ctx, `DELETE FROM search.`+src.fts+` WHERE rowid = ?`, id); err != nil {
				return false, fmt.Errorf("unindex deleted %s: %w", src.table, err)
			}
		}
		more = more || w.more
		reserve = reserve || w.reserve
		purged += len(w.deleted)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM temp.index_rows`); err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, err
	}
	if !reserve && purged == 0 {
		return more, nil
	}
	// The index is committed first: a crash before this write leaves the
	// deleted ids listed, and removing them from the index again does
	// nothing.
	err = s.submit(writeReq{ctx: ctx, indexing: true, fn: func(tx *sqlx.Tx) error {
		for i, src := range ftsSources {
			if work[i].reserve {
				if _, err := tx.ExecContext(ctx, `UPDATE search_index SET indexed_through =
					max(indexed_through, (SELECT coalesce(max(id), 0) FROM `+src.table+`)) WHERE source = ?`, src.table); err != nil {
					return err
				}
			}
			for _, id := range work[i].deleted {
				if _, err := tx.ExecContext(ctx, `DELETE FROM search_deleted WHERE source = ? AND id = ?`, src.table, id); err != nil {
					return err
				}
			}
		}
		return nil
	}})
	return more, err
}

// batchEnd finds the batch of src after the cursor through (ids up to
// reserved): the rows in id order up to the one whose text reaches
// indexBatchBytes, or indexBatchRows rows. It sets upto to the batch's
// last id (through when there is none) and returns its row count and
// whether it ended at the bytes bound. It reads the rows' sizes only
// (src.size), and stops at the bound.
func batchEnd(ctx context.Context, tx *sqlx.Tx, src ftsSource, through, reserved int64, upto *int64) (n int64, full bool, err error) {
	*upto = through
	rows, err := tx.QueryContext(ctx, `SELECT id, `+src.size+` FROM main.`+src.table+`
		WHERE id > ? AND id <= ? ORDER BY id LIMIT ?`, through, reserved, indexBatchRows)
	if err != nil {
		return 0, false, err
	}
	defer rows.Close()
	var bytes int64
	for bytes < indexBatchBytes && rows.Next() {
		var size sql.NullInt64
		if err := rows.Scan(upto, &size); err != nil {
			return 0, false, err
		}
		n++
		bytes += size.Int64
	}
	return n, bytes >= indexBatchBytes, rows.Err()
}

// readIndexWork reads, in one short read transaction of the indexer
// connection, what the next indexStep does, and copies the rows it
// indexes into temp.index_rows.
func (s *Store) readIndexWork(ctx context.Context) (work [2]indexWork, err error) {
	tx, err := s.indexer.BeginTxx(ctx, nil)
	if err != nil {
		return work, err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	if _, err := tx.ExecContext(ctx, `DELETE FROM temp.index_rows`); err != nil {
		return work, err
	}
	for i, src := range ftsSources {
		w := &work[i]
		var log struct {
			Through  int64  `db:"through"`
			Built    string `db:"log"`
			Reserved int64  `db:"indexed_through"`
			Token    string `db:"index_file"`
			Last     int64  `db:"last"`
		}
		if err := tx.GetContext(ctx, &log, `SELECT i.through, i.log, m.indexed_through, m.index_file,
			(SELECT coalesce(max(id), 0) FROM main.`+src.table+`) AS last
			FROM main.search_index m JOIN search.indexed i USING (source) WHERE source = ?`, src.table); err != nil {
			return work, err
		}
		w.through, w.built, w.token = log.Through, log.Built, log.Token
		through := log.Through
		if through > log.Reserved || log.Built != log.Token {
			// The index is not this log's: built for another database,
			// or for this one before an older copy was put in its place
			// (a backup has a token of its own), or a power loss took
			// back the commit of a reservation the cursor then passed.
			// Ids above the reservation may be given again: start over.
			w.reset, through = true, 0
		}
		n, full, err := batchEnd(ctx, tx, src, through, log.Reserved, &w.upto)
		if err != nil {
			return work, err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO temp.index_rows (source, id, text)
			SELECT ?, id, text FROM main.`+src.table+` WHERE id > ? AND id <= ?`, i, through, w.upto); err != nil {
			return work, err
		}
		// Rows past the reservation are indexed once it covers them: an
		// id above it can be given again after a delete.
		w.reserve = log.Last > log.Reserved
		w.more = n == indexBatchRows || full || w.reserve
		if err := tx.SelectContext(ctx, &w.deleted, `SELECT id FROM main.search_deleted WHERE source = ? ORDER BY id LIMIT ?`,
			src.table, purgeBatchRows+1); err != nil {
			return work, err
		}
		if len(w.deleted) > purgeBatchRows {
			w.deleted, w.more = w.deleted[:purgeBatchRows], true
		}
	}
	return work, tx.Commit()
}

// CatchUpIndex indexes everything committed so far (by any process) and
// returns once the index is complete or ctx is done. Writers do this in
// the background; call it to have search ready at a known point, e.g.
// after a bulk import.
func (s *Store) CatchUpIndex(ctx context.Context) error {
	if s.indexer == nil {
		return fmt.Errorf("index: %w: the store has no search index writer", sessiondb.ErrReadOnly)
	}
	if s.noIndex {
		return nil // an older schema (NoMigrate): search scans every row
	}
	for {
		// Between steps, not inside one: see runIndexer.
		select {
		case <-s.stop:
			return sessiondb.ErrClosed
		default:
		}
		more, err := s.indexStep(ctx)
		if err != nil {
			return fmt.Errorf("index: %w", translate(err))
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
	return err == nil && v >= indexFileVersion
}

// indexFileVersion is the schema version that moved the index to its own
// file (search_index.index_file). A database opened with NoMigrate at an
// older version has no index this binary reads: search scans every row.
const indexFileVersion = 11

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
	go s.runIndexer()
}

func (s *Store) runIndexer() {
	defer close(s.indexerDone)
	// Close stops the indexer between steps (CatchUpIndex and
	// mergeWhileIdle look at s.stop), never by cancelling a context: a
	// transaction whose context is cancelled is rolled back, and its
	// connection released, by a goroutine of database/sql after Close may
	// have closed the pools. A reader still open then keeps the writer's
	// close from checkpointing the WAL into the database (seen under
	// load: a database left as an 8 KB file and its WAL).
	ctx := context.Background()
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
			s.scanSecretsStep(ctx)
			continue // nothing to index: take no lock
		}
		if err := s.CatchUpIndex(ctx); errors.Is(err, sessiondb.ErrClosed) {
			return
		} else if err != nil {
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
		} else {
			s.indexErr.Store(nil)
			s.mergeWhileIdle(ctx)
			s.scanSecretsStep(ctx)
		}
	}
}

// scanSecretsStep scans one batch of the entries the secret scan has not
// seen (engine.ScanSecrets: up to 4 MiB of bodies), after the index is
// caught up: the scan runs where text is indexed, off the write path.
// One step per wake-up, so that a long backlog (a large import, a newer
// rule set) never holds back indexing: when work is left it wakes the
// indexer again. A failure is kept for doctor (IndexError) and retried
// at the next wake-up; until then reads scan what they read.
func (s *Store) scanSecretsStep(ctx context.Context) {
	select {
	case <-s.stop:
		return
	default:
	}
	more, err := s.ScanSecrets(ctx)
	if err != nil {
		if !errors.Is(err, sessiondb.ErrClosed) {
			err = fmt.Errorf("scan secrets: %w", err)
			s.indexErr.Store(&err)
		}
		return
	}
	if more {
		s.kickIndexer()
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
		select {
		case <-s.stop:
			return
		default:
		}
		merged := false
		err := func() error {
			tx, err := s.indexTx(ctx)
			if err != nil {
				return err
			}
			defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
			for _, src := range ftsSources {
				var before, after int64
				if err := tx.GetContext(ctx, &before, `SELECT total_changes()`); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO search.`+src.fts+` (`+src.fts+`, rank) VALUES ('merge', ?)`, mergePages); err != nil {
					return fmt.Errorf("merge %s: %w", src.fts, err)
				}
				if err := tx.GetContext(ctx, &after, `SELECT total_changes()`); err != nil {
					return err
				}
				// FTS5's documented test: fewer than two changes
				// means the merge found nothing to do.
				merged = merged || after-before >= 2
			}
			return tx.Commit()
		}()
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
