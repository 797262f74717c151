package engine

import (
	"context"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
)

// Reextract derives the role and text of every row of table (entries or
// summary_messages) again with Driver.Describe (after the extractor
// changed), inside tx; ts says how an entry's text is written.
func Reextract(ctx context.Context, d Driver, tx Tx, table string, ts backend.TextStore) error {
	rows, err := tx.QueryxContext(ctx, `SELECT id, kind, body FROM `+table)
	if err != nil {
		return err
	}
	type upd struct {
		id         int64
		role, text string
		body       []byte
	}
	var updates []upd
	for rows.Next() {
		var id int64
		var kind string
		var body []byte
		if err := rows.Scan(&id, &kind, &body); err != nil {
			rows.Close()
			return err
		}
		_, role, text := d.Describe(sessiondb.Entry{Kind: kind, Body: body})
		updates = append(updates, upd{id, role, text, body})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, u := range updates {
		col, text := "text", any(u.text)
		if table == "entries" {
			col, text = ts.Col(), ts.Arg(u.text, u.body)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET role = ?, `+col+` = ? WHERE id = ?`, u.role, text, u.id); err != nil {
			return err
		}
	}
	if table == "entries" {
		// Roles and texts changed: every preview is found again.
		return RefreshAllPreviews(ctx, tx)
	}
	return nil
}
