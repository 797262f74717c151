package crush

import (
	"context"
	"fmt"

	"github.com/sessiondb/sessiondb"
)

// ErrNoExport is returned by Export: the program has no import of its
// own (no file it reads a session from), and writing rows into its
// database is never done, so there is nothing to write. It wraps
// sessiondb.ErrInvalid.
var ErrNoExport = fmt.Errorf("sessions are not written in this format (the program has no import; its database is only read): %w", sessiondb.ErrInvalid)

// Export implements jsonl.Format: it refuses (ErrNoExport).
func (st Store) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("export %s %s: %w", st.Format, id, ErrNoExport)
}
