package engine

import (
	"context"
	"fmt"
	"slices"
)

// Fields returns pointers to r's fields in the order of the select list
// Dialect.SessionColumns, for Scan: reading a session by position instead
// of by name saves sqlx's reflection, about 3% of the CPU of a small
// append, on SQLite's single writer. SessionColumnNames is that order,
// which each backend's tests hold its select list to.
func (r *SessionRow) Fields() []any {
	return []any{&r.ID, &r.Title, &r.Summary, &r.Scope, &r.Attrs, &r.Version, &r.Sequence, &r.LastSeq,
		&r.ParentID, &r.ForkSeq, &r.SourceFormat, &r.SourcePath, &r.Project, &r.Machine, &r.SourceSeenAt, &r.SourceGoneAt, &r.CreatedAt, &r.UpdatedAt,
		&r.MessageCount, &r.EntryCount, &r.Aliases}
}

// SessionColumnNames are the names of the columns Fields scans, in order.
var SessionColumnNames = []string{"id", "title", "summary", "scope", "attrs", "version", "sequence", "last_seq",
	"parent_id", "fork_seq", "source_format", "source_path", "project", "machine", "source_seen_at", "source_gone_at", "created_at", "updated_at",
	"message_count", "entry_count", "aliases"}

// CheckSessionColumns reports whether the select list columns
// (Dialect.SessionColumns) yields SessionColumnNames in that order, which
// SessionRow.Fields scans by position. Each backend's tests call it on its
// own database.
func CheckSessionColumns(ctx context.Context, tx Tx, columns string) error {
	rows, err := tx.QueryContext(ctx, `SELECT `+columns+` FROM sessions s WHERE 1 = 0`)
	if err != nil {
		return err
	}
	defer rows.Close()
	got, err := rows.Columns()
	if err != nil {
		return err
	}
	if !slices.Equal(got, SessionColumnNames) {
		return fmt.Errorf("session columns %v, SessionRow.Fields scans %v", got, SessionColumnNames)
	}
	return nil
}
