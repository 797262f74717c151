package engine

import (
	"context"
	"fmt"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/sessioncopy"
)

// DumpSession implements sessiondb.Copier: it reads the session from one
// read transaction (one snapshot).
func (e *Engine) DumpSession(ctx context.Context, id string) (sessiondb.SessionDump, error) {
	if err := sessiondb.ValidateID(id); err != nil {
		return sessiondb.SessionDump{}, fmt.Errorf("dump session: %w", err)
	}
	var d sessiondb.SessionDump
	err := e.d.Read(ctx, func(tx Tx) (err error) {
		d, err = sessioncopy.Read(ctx, tx, id)
		return err
	})
	return d, err
}

// PutSession implements sessiondb.Copier in one write transaction
// (sessioncopy.Write), which locks the session's row as the dialect says
// (Dialect.CopyLockSuffix) like every other write to it.
func (e *Engine) PutSession(ctx context.Context, d sessiondb.SessionDump, expectSequence *int64) (sessiondb.Session, error) {
	if err := sessiondb.ValidateDump(d); err != nil {
		return sessiondb.Session{}, fmt.Errorf("put session: %w", err)
	}
	var out sessiondb.Session
	err := e.d.Write(ctx, func(tx Tx) error {
		err := sessioncopy.Write(ctx, tx, d, expectSequence, sessioncopy.WriteOptions{
			LockSuffix:          e.sql.CopyLockSuffix,
			ReserveCompactionID: e.sql.ReserveCompactionID,
			NextEntryID:         e.sql.NextEntryID,
			EntryText:           e.sql.EntryText,
			Describe: func(en sessiondb.Entry) (string, string) {
				_, role, text := e.d.Describe(en)
				return role, text
			},
		})
		if err != nil {
			return err
		}
		// The preview is kept like the counts (see preview.go).
		if err := RefreshPreview(ctx, tx, d.Session.ID); err != nil {
			return err
		}
		out, err = e.d.GetSession(ctx, tx, d.Session.ID)
		return err
	})
	return out, err
}
