package goose

import (
	"context"
	"fmt"

	"github.com/sessiondb/sessiondb"
)

// ErrNoExport is returned by Export. goose reads a session back only
// from its own database (the legacy files are read once, when goose
// creates the database, and never again) or from its JSON export
// (session import, which gives the session a new id); writing rows into
// goose's database is never done here, and its JSON export is not yet
// written. It wraps sessiondb.ErrInvalid.
var ErrNoExport = fmt.Errorf("sessions are not written in goose's format (goose reads sessions only from its own database, which is only read here): %w", sessiondb.ErrInvalid)

// Export implements jsonl.Format: it refuses (ErrNoExport).
func (Format) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("export %s %s: %w", Name, id, ErrNoExport)
}
