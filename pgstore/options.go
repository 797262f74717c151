package pgstore

import (
	"time"

	"github.com/sessiondb/sessiondb"
)

// Options configure Open. The zero value is the documented default.
type Options struct {
	// MaxConns bounds the connection pool. Default 16: enough for 16
	// concurrent writers (each holds one connection for the length of its
	// transaction) without nearing PostgreSQL's default max_connections
	// (100) when a few processes share a server.
	MaxConns int
	// RetryTimeout bounds how long one operation keeps retrying after a
	// serialization failure, a deadlock, a dropped connection or a server
	// that is restarting, before it fails with an error wrapping
	// sessiondb.ErrBusy. Default 60s.
	RetryTimeout time.Duration
	// NoMigrate opens the database without applying pending migrations; a
	// schema that is not at the latest version is then unusable.
	NoMigrate bool
	// Extractor derives role and text from bodies. Default
	// sessiondb.DefaultExtractor.
	Extractor sessiondb.Extractor
	// CheckpointRetention is how many agent checkpoints are kept per
	// session (oldest removed first). Default 20; negative keeps all.
	CheckpointRetention int
	// NoSecretScan: no background scan for secrets (see "Secrets" in
	// doc.go). For connections that may not write (sessionctl's
	// read-only commands); reads still redact, scanning what the scan
	// has not seen.
	NoSecretScan bool
	// ScanDelay is how long the secret scan lets writes accumulate
	// after the first one it was told about. Default 50ms.
	ScanDelay time.Duration
}
