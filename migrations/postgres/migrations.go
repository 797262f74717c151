package postgres

import (
	"database/sql"
	"embed"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// FS holds the migration files.
//
//go:embed *.sql
var FS embed.FS

// NewProvider returns a goose Provider (postgres dialect) over db running
// the embedded migrations. locker, when non-nil, serialises migrations
// across processes (pgstore passes a pg_advisory_lock locker).
func NewProvider(db *sql.DB, locker lock.SessionLocker) (*goose.Provider, error) {
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true)}
	if locker != nil {
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, FS, opts...)
	if err != nil {
		return nil, fmt.Errorf("load postgres migrations: %w", err)
	}
	return p, nil
}

// Latest returns the highest migration version embedded in this binary.
func Latest() (int64, error) {
	names, err := fs.Glob(FS, "*.sql")
	if err != nil {
		return 0, err
	}
	var latest int64
	for _, name := range names {
		v, err := goose.NumericComponent(name)
		if err != nil {
			return 0, fmt.Errorf("migration %s: %w", name, err)
		}
		latest = max(latest, v)
	}
	return latest, nil
}
