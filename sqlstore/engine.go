package sqlstore

import (
	"context"
	"errors"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/engine"
)

// core is the store's behaviour, written once in internal/engine for
// both backends; Store embeds it, so its methods (Load, Fork,
// SaveCheckpoint, …) are the Store's. The alias keeps the embedded field
// unexported.
type core = engine.Engine

// engineDriver is what SQLite supplies to the engine: its transactions (the
// group committer's, in which a write holds the database's only write
// lock from its first statement, so a session needs no lock of its own)
// and the steps still written here.
type engineDriver struct{ s *Store }

var (
	_ engine.Driver   = engineDriver{}
	_ engine.Appender = engineDriver{}
)

func (d engineDriver) Read(ctx context.Context, fn func(tx engine.Tx) error) error {
	return d.s.read(ctx, func(tx *sqlx.Tx) error { return fn(tx) })
}

func (d engineDriver) Write(ctx context.Context, fn func(tx engine.Tx) error) error {
	return d.s.write(ctx, func(tx *sqlx.Tx) error { return fn(tx) })
}

// LockSession reads the session: the write transaction (BEGIN IMMEDIATE)
// already excludes every other writer.
func (d engineDriver) LockSession(ctx context.Context, tx engine.Tx, id string) (sessiondb.Session, error) {
	return getSession(ctx, tx.(*sqlx.Tx), id)
}

func (d engineDriver) GetSession(ctx context.Context, tx engine.Tx, id string) (sessiondb.Session, error) {
	return getSession(ctx, tx.(*sqlx.Tx), id)
}

func (d engineDriver) InsertSession(ctx context.Context, tx engine.Tx, sess sessiondb.Session, now time.Time, shadowAliases bool) error {
	return insertSession(ctx, tx.(*sqlx.Tx), sess, now, shadowAliases)
}

// InsertSessionIfMissing checks, then inserts: the write transaction holds
// the database's write lock from its first statement (BEGIN IMMEDIATE), so
// no other process can create the session in between.
func (d engineDriver) InsertSessionIfMissing(ctx context.Context, tx engine.Tx, sess sessiondb.Session, now time.Time, shadowAliases bool) (bool, error) {
	switch err := engine.SessionExists(ctx, tx, sess.ID); {
	case err == nil:
		return false, nil
	case !errors.Is(err, sessiondb.ErrNotFound):
		return false, err
	}
	return true, insertSession(ctx, tx.(*sqlx.Tx), sess, now, shadowAliases)
}

func (d engineDriver) SetAliases(ctx context.Context, tx engine.Tx, id string, aliases []string) error {
	return setAliases(ctx, tx.(*sqlx.Tx), id, aliases)
}

// LockSource does nothing: the write transaction (BEGIN IMMEDIATE)
// already keeps every other importer out until it ends.
func (d engineDriver) LockSource(context.Context, engine.Tx, string) error { return nil }

// LockCommits does nothing: CommitMany is one write request, and the
// write transaction excludes every other writer.
func (d engineDriver) LockCommits(context.Context, engine.Tx, []sessiondb.SessionCommit) error {
	return nil
}

func (d engineDriver) Describe(e sessiondb.Entry) (kind, role, text string) { return d.s.describe(e) }

// dialect is SQLite's text where the engine's statements differ.
// Copies need no row lock and no sequence to move: the write transaction
// excludes every other writer, and AUTOINCREMENT (compactions) follows
// explicit IDs. Entries take explicit ids (nextEntryID).
var dialect = engine.Dialect{SessionColumns: sessionColumns, HolderOrder: holderOrder, Instr: "instr",
	NextEntryID: nextEntryID, EntryText: entryText,
	TableExists: `SELECT count(*) FROM main.sqlite_schema WHERE type = 'table' AND name = ?`,
	// octet_length reads the size from the record header (no overflow
	// page); substr of the BLOB still reads the value's overflow pages
	// into SQLite's own memory, but hands Go only the prefix.
	BodyPrefix: `substr(CAST(body AS BLOB), 1, ?)`, BodySize: `octet_length(body)`}

var (
	_ sessiondb.Copier       = (*Store)(nil)
	_ sessiondb.SecretKeeper = (*Store)(nil)
)

// Redacted implements sessiondb.SecretKeeper (engine.Redacted).
func (s *Store) Redacted() sessiondb.Store { return engine.Redacted(s, s.core) }
