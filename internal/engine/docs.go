package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sessiondb/sessiondb"
)

// PutDoc replaces or clears a session's state or interrupt document.
func PutDoc(ctx context.Context, tx Tx, table, id string, doc json.RawMessage, clear bool, now time.Time) error {
	switch {
	case clear:
		_, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE session_id = ?`, id)
		return err
	case doc != nil:
		_, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (session_id, body, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (session_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`,
			id, string(doc), FormatTime(now))
		return err
	}
	return nil
}

// LoadState implements sessiondb.Store.
func (e *Engine) LoadState(ctx context.Context, id string) (json.RawMessage, error) {
	return e.loadDoc(ctx, "states", id)
}

// LoadInterrupt implements sessiondb.Store.
func (e *Engine) LoadInterrupt(ctx context.Context, id string) (json.RawMessage, error) {
	return e.loadDoc(ctx, "interrupts", id)
}

func (e *Engine) loadDoc(ctx context.Context, table, id string) (json.RawMessage, error) {
	if err := sessiondb.ValidateID(id); err != nil {
		return nil, fmt.Errorf("load %s: %w", table, err)
	}
	var doc json.RawMessage
	err := e.d.Read(ctx, func(tx Tx) (err error) {
		if err := SessionExists(ctx, tx, id); err != nil {
			return err
		}
		doc, err = GetDoc(ctx, tx, table, id)
		return err
	})
	return doc, err
}

// GetDoc reads a session's state or interrupt document (nil when none).
func GetDoc(ctx context.Context, tx Tx, table, id string) (json.RawMessage, error) {
	var bodies []string
	if err := tx.SelectContext(ctx, &bodies, `SELECT body FROM `+table+` WHERE session_id = ?`, id); err != nil {
		return nil, err
	}
	if len(bodies) == 0 {
		return nil, nil
	}
	return json.RawMessage(bodies[0]), nil
}
