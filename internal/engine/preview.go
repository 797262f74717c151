package engine

import (
	"context"
	"database/sql"
	"errors"
	"strconv"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
)

// The preview (issue 44): sessions.preview holds the extracted text of the
// first user message of the effective transcript, cut to
// sessiondb.PreviewRunes runes, NULL when there is none
// (sessiondb.SessionInfo.Preview). It is kept like the counts, by the
// write that changes the transcript, in its transaction:
//
//   - a commit that only appends sets it when it is NULL, from the first
//     user message it appends (the driver's UPDATE of the row does it:
//     coalesce(preview, ?), Finish.Preview), so the common turn costs no
//     statement more;
//   - a commit that records a compaction (history replacement, KeepLast,
//     Compact, Restore in place) redefines the transcript: the preview is
//     found again, the first user message at or after the cut among the
//     old entries (one index walk from KeepFromSeq, PreviewFrom) or else
//     among the commit's own;
//   - Fork and PutSession (copy) find it over what they wrote, Scrub
//     over what it rewrote (RefreshPreview).
//
// The rule (role "user", a message kind, summary messages skipped, the
// text column cut to PreviewRunes) is the one migration 14 (PostgreSQL 11)
// backfills with in SQL: the text column holds the extracted text on both
// backends (a generated column on SQLite), and SQL's substr and Go's
// runes both count code points of that valid UTF-8.

// CutPreview is text cut to its first sessiondb.PreviewRunes runes.
func CutPreview(text string) string {
	if len(text) <= sessiondb.PreviewRunes { // fewer bytes than runes allowed
		return text
	}
	n := 0
	for i := range text {
		if n == sessiondb.PreviewRunes {
			return text[:i]
		}
		n++
	}
	return text
}

// isUserMessage reports whether an entry of that stored kind and role is
// a user message for the preview.
func isUserMessage(kind, role string) bool {
	return role == "user" && backend.IsMessageKind(kind)
}

// rowsPreview returns the preview of the first user message among rows
// whose seqs are firstSeq, firstSeq+1, … and at least from; nil when none.
func rowsPreview(rows []Row, firstSeq, from int64) any {
	for i, r := range rows {
		if firstSeq+int64(i) >= from && r.preview != nil {
			return *r.preview
		}
	}
	return nil
}

// PreviewFrom returns the preview of the first user message of session
// id's log with from <= seq <= to, read through the (session_id, seq)
// index; nil (SQL NULL) when there is none.
func PreviewFrom(ctx context.Context, tx Tx, id string, from, to int64) (any, error) {
	var text string
	err := tx.QueryRowxContext(ctx, `SELECT text FROM entries
		WHERE session_id = ? AND seq >= ? AND seq <= ? AND role = 'user' AND kind IN `+backend.MessageKindsSQL+`
		ORDER BY seq LIMIT 1`, id, from, to).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return CutPreview(text), nil
}

// RefreshPreview finds session id's preview again over its current
// transcript and stores it.
func RefreshPreview(ctx context.Context, tx Tx, id string) error {
	cur, err := currentCompaction(ctx, tx, id)
	if err != nil {
		return err
	}
	p, err := PreviewFrom(ctx, tx, id, cur.KeepFromSeq, 1<<62)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE sessions SET preview = ? WHERE id = ?`, p, id)
	return err
}

// RefreshAllPreviews finds every session's preview again, in one
// statement: the rule in SQL, as migration 14 (PostgreSQL 11) backfills
// (substr counts characters on both databases). Reextract runs it after
// it derived the entries' roles and texts again.
func RefreshAllPreviews(ctx context.Context, tx Tx) error {
	_, err := tx.ExecContext(ctx, `UPDATE sessions SET preview = (
		SELECT substr(e.text, 1, `+strconv.Itoa(sessiondb.PreviewRunes)+`) FROM entries e
		WHERE e.session_id = sessions.id AND e.role = 'user' AND e.kind IN `+backend.MessageKindsSQL+`
		  AND e.seq >= coalesce((SELECT c.keep_from_seq FROM compactions c
		                         WHERE c.session_id = sessions.id ORDER BY c.id DESC LIMIT 1), 1)
		ORDER BY e.seq LIMIT 1)`)
	return err
}

// PreviewSQL is the SET clause a driver's UPDATE of the session row adds
// for f (Finish.Preview): "" when the preview stays, else the clause,
// whose one ? takes f.Preview.
func PreviewSQL(f Finish) string {
	switch {
	case f.SetPreview:
		return `, preview = ?`
	case f.Preview != nil:
		return `, preview = coalesce(preview, ?)`
	}
	return ""
}

// AppendPreview is the preview a commit appending rows (and recording no
// compaction) offers to a session that has none (Finish.Preview): its
// first user message's, or nil.
func AppendPreview(rows []Row) any { return rowsPreview(rows, 1, 1) }
