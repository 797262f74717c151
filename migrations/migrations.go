package migrations

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

// NewProvider returns a goose Provider over db running the embedded
// migrations. locker, when non-nil, serialises migrations across processes.
func NewProvider(db *sql.DB, locker lock.Locker) (*goose.Provider, error) {
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true)}
	if locker != nil {
		opts = append(opts, goose.WithLocker(locker))
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db, FS, opts...)
	if err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
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
