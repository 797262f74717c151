package sqlstore

import (
	"context"

	"github.com/sessiondb/sessiondb"
)

// SetHistory implements sessiondb.Store.
func (s *Store) SetHistory(ctx context.Context, id string, messages []sessiondb.Entry) (sessiondb.Session, error) {
	if messages == nil {
		messages = []sessiondb.Entry{}
	}
	return s.Commit(ctx, id, sessiondb.Commit{History: messages})
}

// Compact implements sessiondb.Store.
func (s *Store) Compact(ctx context.Context, id string, c sessiondb.Compaction) (sessiondb.Session, error) {
	return s.Commit(ctx, id, sessiondb.Commit{Compactions: []sessiondb.Compaction{c}})
}

// Truncate implements sessiondb.Store.
func (s *Store) Truncate(ctx context.Context, id string, keepLast int) (sessiondb.Session, error) {
	return s.Commit(ctx, id, sessiondb.Commit{KeepLast: &keepLast})
}
