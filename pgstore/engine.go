package pgstore

import (
	"context"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/engine"
)

// core is the store's behaviour, written once in internal/engine for
// both backends; Store embeds it, so its methods (Load, Fork,
// SaveCheckpoint, …) are the Store's. The alias keeps the embedded field
// unexported.
type core = engine.Engine

// engineDriver is what PostgreSQL supplies to the engine: its
// transactions (retried, with the lost-COMMIT check of write), the
// session row lock, and the steps still written here. Every engine.Tx it
// hands out is a *ptx.
type engineDriver struct{ s *Store }

var _ engine.Driver = engineDriver{}

func (d engineDriver) Read(ctx context.Context, fn func(tx engine.Tx) error) error {
	return d.s.read(ctx, func(tx *ptx) error { return fn(tx) })
}

func (d engineDriver) Write(ctx context.Context, fn func(tx engine.Tx) error) error {
	return d.s.write(ctx, func(tx *ptx) error { return fn(tx) })
}

// LockSession reads the session row FOR UPDATE (lockSession).
func (d engineDriver) LockSession(ctx context.Context, tx engine.Tx, id string) (sessiondb.Session, error) {
	return lockSession(ctx, tx.(*ptx), id)
}

func (d engineDriver) GetSession(ctx context.Context, tx engine.Tx, id string) (sessiondb.Session, error) {
	return getSession(ctx, tx.(*ptx), id)
}

func (d engineDriver) InsertSession(ctx context.Context, tx engine.Tx, sess sessiondb.Session, now time.Time, shadowAliases bool) error {
	return insertSession(ctx, tx.(*ptx), sess, now, shadowAliases)
}

// InsertSessionIfMissing is insertSessionIfMissing: INSERT … ON CONFLICT
// DO NOTHING waits for a concurrent creator and then leaves its row alone;
// the engine's LockSession then queues behind it like any writer.
func (d engineDriver) InsertSessionIfMissing(ctx context.Context, tx engine.Tx, sess sessiondb.Session, now time.Time, shadowAliases bool) (bool, error) {
	return insertSessionIfMissing(ctx, tx.(*ptx), sess, now, shadowAliases)
}

func (d engineDriver) SetAliases(ctx context.Context, tx engine.Tx, id string, aliases []string) error {
	return setAliases(ctx, tx.(*ptx), id, aliases)
}

// LockSource takes a transaction advisory lock on the path: under READ
// COMMITTED two importers could both see no record and both write; with
// it the second waits for the first to commit, then sees its record and
// gets ErrConflict.
func (d engineDriver) LockSource(ctx context.Context, tx engine.Tx, path string) error {
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('sessiondb source file ' || ?, 0))`, path)
	return err
}

func (d engineDriver) Describe(e sessiondb.Entry) (kind, role, text string) { return d.s.describe(e) }

// dialect is PostgreSQL's text where the engine's statements differ.
var dialect = engine.Dialect{SessionColumns: sessionColumns, HolderOrder: holderOrder, Instr: "strpos",
	// Copies lock the row like every other write; reserving an explicit
	// compaction ID never moves the sequence back (GREATEST with nextval).
	CopyLockSuffix: " FOR UPDATE",
	ReserveCompactionID: `SELECT setval(pg_get_serial_sequence('compactions', 'id'),
		GREATEST(?::bigint, nextval(pg_get_serial_sequence('compactions', 'id'))))`,
	TableExists: `SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = ?`,
	// substr slices a TOASTed value (only the chunks, or the compressed
	// prefix, that hold the first n characters are read); octet_length
	// takes the size from the TOAST pointer.
	BodyPrefix: `substr(body, 1, ?)`, BodySize: `octet_length(body)`,
}

var (
	_ sessiondb.Copier       = (*Store)(nil)
	_ sessiondb.SecretKeeper = (*Store)(nil)
)

// Redacted implements sessiondb.SecretKeeper (engine.Redacted).
func (s *Store) Redacted() sessiondb.Store { return engine.Redacted(s, s.core) }
