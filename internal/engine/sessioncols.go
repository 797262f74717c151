package engine

import (
	"context"
	"fmt"
	"slices"
)

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
