package pgstore

import (
	"context"
	"fmt"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/sessioncopy"
)

var _ sessiondb.Copier = (*Store)(nil)

// DumpSession implements sessiondb.Copier: it reads the session from one
// REPEATABLE READ snapshot.
func (s *Store) DumpSession(ctx context.Context, id string) (sessiondb.SessionDump, error) {
	if err := sessiondb.ValidateID(id); err != nil {
		return sessiondb.SessionDump{}, fmt.Errorf("dump session: %w", err)
	}
	var d sessiondb.SessionDump
	err := s.read(ctx, func(tx *ptx) (err error) {
		d, err = sessioncopy.Read(ctx, tx, id)
		return err
	})
	return d, err
}

// PutSession implements sessiondb.Copier in one transaction, holding the
// session's row lock (FOR UPDATE) like every other write to it; a racing
// create of the same ID is retried by write.
func (s *Store) PutSession(ctx context.Context, d sessiondb.SessionDump, expectSequence *int64) (sessiondb.Session, error) {
	if err := sessiondb.ValidateDump(d); err != nil {
		return sessiondb.Session{}, fmt.Errorf("put session: %w", err)
	}
	var out sessiondb.Session
	err := s.write(ctx, func(tx *ptx) error {
		err := sessioncopy.Write(ctx, tx, d, expectSequence, sessioncopy.WriteOptions{
			LockSuffix: " FOR UPDATE",
			// Never moves the sequence back (GREATEST with nextval).
			ReserveCompactionID: `SELECT setval(pg_get_serial_sequence('compactions', 'id'),
				GREATEST(?::bigint, nextval(pg_get_serial_sequence('compactions', 'id'))))`,
			Describe: func(e sessiondb.Entry) (string, string) {
				_, role, text := s.describe(e)
				return role, text
			},
		})
		if err != nil {
			return err
		}
		out, err = getSession(ctx, tx, d.Session.ID)
		return err
	})
	return out, err
}
