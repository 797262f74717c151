package cursor

import (
	"context"
	"fmt"

	"github.com/sessiondb/sessiondb"
)

// ErrNoExport is returned by Export: Cursor has no import of its own, and
// its state.vscdb is a live database of the IDE (rewritten in place while
// it runs) that is only ever read, so nothing is written in this format.
// It wraps sessiondb.ErrInvalid.
var ErrNoExport = fmt.Errorf("sessions are not written in Cursor's format (Cursor has no import; its state.vscdb is only read): %w", sessiondb.ErrInvalid)

// Export implements jsonl.Format: it refuses (ErrNoExport).
func (Format) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("export %s %s: %w", Name, id, ErrNoExport)
}
