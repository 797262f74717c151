package backend

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/sessiondb/sessiondb"
)

// The kept counts. Session.MessageCount and Session.EntryCount live in the
// sessions row (message_count, entry_count) and every write that changes
// them sets them in the same transaction, so no read ever counts the log.
// EntryCount moves by the rows a write adds or deletes. MessageCount moves
// by the messages a write appends, unless the write records a compaction,
// which redefines the transcript: MessageCount is then counted again with
// CutMessages, over the shorter of two ranges of the log.

// MessageKindsSQL is the SQL list of the kinds MessageCount counts: write
// `kind IN ` + MessageKindsSQL. It must list what IsMessageKind accepts.
const MessageKindsSQL = `('message', 'custom')`

// IsMessageKind reports whether an entry of the stored kind counts in
// Session.MessageCount: an LLM message or an application-defined message
// (sessiondb.KindMessage, sessiondb.KindCustom). Bookkeeping entries
// (model_change, progress, message-part, …) are part of the transcript but
// are not messages.
func IsMessageKind(kind string) bool {
	return kind == sessiondb.KindMessage || kind == sessiondb.KindCustom
}

// EntryKind is the kind an entry is stored with (an empty Kind is
// sessiondb.KindMessage).
func EntryKind(e sessiondb.Entry) string {
	if e.Kind == "" {
		return sessiondb.KindMessage
	}
	return e.Kind
}

// CountMessages counts the entries of es that are messages (IsMessageKind
// of their stored kind).
func CountMessages(es []sessiondb.Entry) int64 {
	var n int64
	for _, e := range es {
		if IsMessageKind(EntryKind(e)) {
			n++
		}
	}
	return n
}

// Queryer is what both backends' transactions offer for reading (*sqlx.Tx,
// and pgstore's transaction, which rebinds ? placeholders to $n).
type Queryer interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// queryInts runs q, which returns one row of n integers.
func queryInts(ctx context.Context, tx Queryer, dest []*int64, q string, args ...any) error {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	targets := make([]any, len(dest))
	for i, d := range dest {
		targets[i] = d
	}
	if err := rows.Scan(targets...); err != nil {
		return err
	}
	return rows.Close()
}

// TranscriptMessages counts the messages of the transcript defined by
// compaction cid (0: none) whose log part is session id's entries with seq
// in keepFrom..toSeq: one statement, reading that range of the log. Fork
// uses it for a transcript that is not its parent's current one.
func TranscriptMessages(ctx context.Context, tx Queryer, id string, cid, keepFrom, toSeq int64) (int64, error) {
	var n int64
	err := queryInts(ctx, tx, []*int64{&n}, `SELECT
		(SELECT count(*) FROM summary_messages WHERE compaction_id = ? AND kind IN `+MessageKindsSQL+`)
		+ (SELECT count(*) FROM entries WHERE session_id = ? AND seq >= ? AND seq <= ? AND kind IN `+MessageKindsSQL+`)`,
		cid, id, keepFrom, toSeq)
	if err != nil {
		return 0, fmt.Errorf("count the messages of %s: %w", id, err)
	}
	return n, nil
}

// Before is what a commit that records a compaction needs to know of the
// transcript as it was before the commit (read by ReadBefore).
type Before struct {
	// LastSeq is the session's LastSeq before the commit's appends.
	LastSeq int64
	// KeepFrom is the KeepFromSeq of the compaction current before the
	// commit (1 when there is none).
	KeepFrom int64
	// LogMessages counts the messages among the log entries with seq >=
	// KeepFrom: the kept MessageCount less the current summary's messages.
	LogMessages int64
}

// ReadBefore reads Before for sess (as read at the start of the commit,
// with its kept MessageCount), in one statement. Call it before the
// commit inserts its first compaction.
func ReadBefore(ctx context.Context, tx Queryer, sess sessiondb.Session) (Before, error) {
	b := Before{LastSeq: sess.LastSeq, KeepFrom: 1, LogMessages: sess.MessageCount}
	var summary int64
	err := queryInts(ctx, tx, []*int64{&b.KeepFrom, &summary}, `SELECT c.keep_from_seq,
		(SELECT count(*) FROM summary_messages m WHERE m.compaction_id = c.id AND m.kind IN `+MessageKindsSQL+`)
		FROM compactions c WHERE c.session_id = ? ORDER BY c.id DESC LIMIT 1`, sess.ID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return b, nil
	case err != nil:
		return Before{}, fmt.Errorf("read the transcript of %s: %w", sess.ID, err)
	}
	b.LogMessages -= summary
	return b, nil
}

// CutMessages returns the MessageCount of session id after a commit whose
// last compaction keeps the log from keepFrom and has summaryMessages
// messages in its summary. appended are the stored kinds of the commit's
// own entries, in order (seqs before.LastSeq+1, …): they are counted here,
// not read back. Of the entries the log held before, those with seq >=
// keepFrom are counted by reading the shorter of two ranges: keepFrom to
// the old end of the log, or the stretch between the old and the new
// keepFrom (added to or taken from before.LogMessages). So truncating to
// the last few entries reads a few rows, compacting away the first few
// reads a few rows, and replacing the history (keepFrom past the old log)
// reads none. A range counted reads index entries and rows of that range
// only, never the rest of the log.
func CutMessages(ctx context.Context, tx Queryer, id string, before Before, appended []string, keepFrom, summaryMessages int64) (int64, error) {
	n := summaryMessages
	for i, kind := range appended {
		if before.LastSeq+1+int64(i) >= keepFrom && IsMessageKind(kind) {
			n++
		}
	}
	if keepFrom > before.LastSeq {
		return n, nil
	}
	// Old entries with seq in keepFrom..before.LastSeq.
	count := func(from, to int64) (int64, error) {
		var c int64
		if from > to {
			return 0, nil
		}
		err := queryInts(ctx, tx, []*int64{&c}, `SELECT count(*) FROM entries
			WHERE session_id = ? AND seq >= ? AND seq <= ? AND kind IN `+MessageKindsSQL, id, from, to)
		if err != nil {
			return 0, fmt.Errorf("count the messages of %s: %w", id, err)
		}
		return c, nil
	}
	direct := before.LastSeq - keepFrom + 1
	moved := keepFrom - before.KeepFrom
	switch {
	case moved >= 0 && moved < direct:
		dropped, err := count(before.KeepFrom, keepFrom-1)
		return n + before.LogMessages - dropped, err
	case moved < 0 && -moved < direct:
		// before.KeepFrom <= before.LastSeq+1, so the range ends in the old log.
		added, err := count(keepFrom, before.KeepFrom-1)
		return n + before.LogMessages + added, err
	}
	kept, err := count(keepFrom, before.LastSeq)
	return n + kept, err
}

// DumpCounts returns the MessageCount and EntryCount of the session d
// holds, as a store that writes it (PutSession) keeps them: its current
// compaction is the last of d.Compactions.
func DumpCounts(d sessiondb.SessionDump) (messages, entries int64) {
	keepFrom := int64(1)
	if n := len(d.Compactions); n > 0 {
		cur := d.Compactions[n-1]
		keepFrom = cur.KeepFromSeq
		messages = CountMessages(cur.Summary)
	}
	for _, e := range d.Entries {
		if e.Seq >= keepFrom && IsMessageKind(EntryKind(e)) {
			messages++
		}
	}
	return messages, int64(len(d.Entries))
}
