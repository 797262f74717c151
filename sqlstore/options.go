package sqlstore

import (
	"time"

	"github.com/sessiondb/sessiondb"
)

// Durability says what a commit survives once it returns.
type Durability int

const (
	// DurabilityFull (the default) fsyncs the WAL at every commit
	// (synchronous=FULL): an acknowledged commit survives power loss.
	DurabilityFull Durability = iota
	// DurabilityNormal fsyncs only at checkpoints (synchronous=NORMAL): an
	// acknowledged commit survives a process crash, but the last commits
	// may be lost on power loss or an OS crash.
	DurabilityNormal
)

// Options configure Open. The zero value is the documented default.
type Options struct {
	// Durability defaults to DurabilityFull.
	Durability Durability
	// BusyTimeout is how long a writer waits for another process's write
	// lock before failing with sessiondb.ErrBusy. Default 30s.
	BusyTimeout time.Duration
	// ReadConns bounds the read-only pool. Default 4.
	ReadConns int
	// ReadCacheMiB is each reader connection's page cache, in MiB, and
	// that of the index file attached to it; 0 leaves SQLite's 2 MiB.
	// A process that searches or reads again and again (a server, a
	// long-lived agent) gains from more once its readers' caches are
	// warm: a search reads up to 1,000 candidate rows per block, newest
	// first, and with 2 MiB it reads them from the OS at every search. A
	// process that reads once loses: each page cached beyond SQLite's
	// default is fresh memory (page faults) instead of a reused page.
	// Measured on the 300,000-message bench archive (load 5, old and new
	// alternating): with 16 MiB a one-shot `sessionctl search` took
	// 150-160 ms instead of 100-110; `sessionctl mcp` answering four
	// queries in turn, 25 rounds, p50 after the first: common word 26-30
	// -> 23 ms, word of rank 100 44 -> 33 ms, rare word 20-21 -> 14-17 ms,
	// phrase 18.5 -> 15.5-17 ms, but its first answers slower (first
	// search 67-89 -> 110-114 ms; over the first 6 rounds 28 -> 36 ms for
	// the common word) while four connections fill their caches.
	// sessionctl mcp and serve set 16. The cache grows only as pages are
	// read: at most ReadConns x 2 x ReadCacheMiB.
	ReadCacheMiB int
	// NoBackup skips the VACUUM INTO backup taken before migrating a
	// database that already holds data.
	NoBackup bool
	// NoMigrate opens the database without applying pending migrations
	// (for `sessionctl migrate`); a database that is not at the latest
	// version is then usable only through Migrator.
	NoMigrate bool
	// NoSchemaCheck opens a database whose tables, views, indexes or
	// triggers differ from what its recorded migrations created, which
	// Open otherwise refuses with sessiondb.ErrCorrupt. It is for
	// diagnosis (sessionctl doctor reports the damage through
	// CheckSchema); any operation on such a database may fail.
	NoSchemaCheck bool
	// SecureDelete overwrites deleted content with zeros (SQLite's
	// secure_delete) for the writes of this Store: without it, text that
	// delete or prune removed stays readable in the file's free pages
	// until a vacuum. It costs extra writes. Backups taken before keep
	// their copy either way (see KeepBackups, RemoveBackups).
	SecureDelete bool
	// KeepBackups, when positive, is how many migration backups
	// (<db>.bak-v*) Open keeps after taking a new one: older ones are
	// removed. Default 0 keeps every backup.
	KeepBackups int
	// ReadOnly opens an existing database without creating, migrating or
	// changing it (no WAL switch either): a missing file is
	// sessiondb.ErrNotFound, an SQLite file without sessiondb's schema is
	// sessiondb.ErrCorrupt, an older schema is sessiondb.ErrSchemaTooOld
	// (unless NoMigrate), and every write fails with
	// sessiondb.ErrReadOnly. For tools that only inspect.
	ReadOnly bool
	// Extractor derives role and text from bodies. Default
	// sessiondb.DefaultExtractor.
	Extractor sessiondb.Extractor
	// IndexDelay is how long the background indexer lets commits pile up
	// before it adds them to the full-text index in one batch. Default
	// 50ms. Negative turns the background indexer off: Search still sees
	// every write (it scans what is not indexed yet), and CatchUpIndex
	// indexes on request (for example once, after a bulk import).
	IndexDelay time.Duration
	// CheckpointRetention is how many agent checkpoints are kept per
	// session (oldest removed first). Default 20; negative keeps all.
	CheckpointRetention int
}
