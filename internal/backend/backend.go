// Package backend holds what every sessiondb backend computes the same way
// outside SQL: merge-patched metadata and whether a patch changes anything,
// the normal form of an alias list, list cursors, the key of a deleted
// session's tombstone, the SQL arguments of optional values, the scan
// of per-session usage totals, the insert of a usage row, the usage
// report and repricing SQL (usage.go; a report by quarter hour and
// model reads the usage_quarters rollup, see "Usage rollup" in package
// sqlstore), and the kept counts (counts.go:
// which kinds MessageCount counts, and how a commit that records a
// compaction counts again). sqlstore and pgstore both call it, so the two
// cannot drift apart on these rules.
package backend

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sessiondb/sessiondb"
)

// EffectivePatch resolves p's merge patches against the stored session:
// the result sets Scope and Attrs to the merged documents.
func EffectivePatch(sess sessiondb.Session, p *sessiondb.MetaPatch) (*sessiondb.MetaPatch, error) {
	if p.ScopeMerge == nil && p.AttrsMerge == nil {
		return p, nil
	}
	out := *p
	merge := func(stored, set, patch json.RawMessage) (json.RawMessage, error) {
		doc := stored
		if set != nil {
			doc = set
			if JSONOrNull(set) == nil {
				doc = nil
			}
		}
		merged, err := sessiondb.MergePatch(doc, patch)
		if merged == nil && err == nil {
			merged = json.RawMessage("null")
		}
		return merged, err
	}
	var err error
	if p.ScopeMerge != nil {
		if out.Scope, err = merge(sess.Scope, p.Scope, p.ScopeMerge); err != nil {
			return nil, err
		}
	}
	if p.AttrsMerge != nil {
		if out.Attrs, err = merge(sess.Attrs, p.Attrs, p.AttrsMerge); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// PatchChanges reports whether p (resolved by EffectivePatch) would change
// anything of sess.
func PatchChanges(sess sessiondb.Session, p *sessiondb.MetaPatch) bool {
	docDiffers := func(stored, set json.RawMessage) bool {
		if set == nil {
			return false
		}
		v := JSONOrNull(set)
		if v == nil {
			return stored != nil
		}
		return stored == nil || string(stored) != v.(string)
	}
	switch {
	case p.Title != nil && *p.Title != sess.Title,
		p.Summary != nil && *p.Summary != sess.Summary,
		p.Version != nil && *p.Version != sess.Version,
		p.ForkSeq != nil && *p.ForkSeq != sess.ForkSeq,
		p.Project != nil && *p.Project != sess.Project,
		p.Machine != nil && *p.Machine != sess.Machine,
		docDiffers(sess.Scope, p.Scope),
		docDiffers(sess.Attrs, p.Attrs):
		return true
	case p.Aliases != nil:
		return !slices.Equal(NormalAliases(sess.ID, *p.Aliases), sess.Aliases)
	}
	return false
}

// CheckForkSeq checks the ForkSeq of p (resolved by EffectivePatch)
// against sess and its parent, read in tx (the commit's transaction, so a
// parent written earlier in it counts as written): a session that is not
// a fork has none, and a fork's lies within its parent's log while the
// parent exists. A patch that leaves ForkSeq as it is passes. The error
// wraps sessiondb.ErrInvalid.
func CheckForkSeq(ctx context.Context, tx Tx, sess sessiondb.Session, p *sessiondb.MetaPatch) error {
	if p.ForkSeq == nil || *p.ForkSeq == sess.ForkSeq {
		return nil
	}
	fs := *p.ForkSeq
	switch {
	case fs < 0:
		return fmt.Errorf("patch %s: %w: fork seq %d is negative", sess.ID, sessiondb.ErrInvalid, fs)
	case sess.ParentID == "":
		return fmt.Errorf("patch %s: %w: fork seq %d for a session that is not a fork", sess.ID, sessiondb.ErrInvalid, fs)
	}
	rows, err := tx.QueryContext(ctx, `SELECT last_seq FROM sessions WHERE id = ?`, sess.ParentID)
	if err != nil {
		return fmt.Errorf("patch %s: %w", sess.ID, err)
	}
	defer rows.Close()
	if !rows.Next() {
		return rows.Err() // the parent is gone: nothing to check against
	}
	var last int64
	if err := rows.Scan(&last); err != nil {
		return fmt.Errorf("patch %s: %w", sess.ID, err)
	}
	if fs > last {
		return fmt.Errorf("patch %s: %w: fork seq %d beyond its parent %s's last seq %d", sess.ID, sessiondb.ErrInvalid, fs, sess.ParentID, last)
	}
	return rows.Err()
}

// NormalAliases is the alias list a backend stores: in order, duplicates
// and the session's own ID dropped (nil when empty).
func NormalAliases(id string, aliases []string) []string {
	var out []string
	seen := map[string]bool{id: true}
	for _, a := range aliases {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}

// EncodeCursor is the List cursor after the session (updated, id): opaque
// to callers, URL-safe.
func EncodeCursor(updated, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(updated + "\x00" + id))
}

// DecodeCursor reads a cursor EncodeCursor wrote; anything else is
// sessiondb.ErrInvalid.
func DecodeCursor(c string) (updated, id string, err error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err == nil {
		var ok bool
		if updated, id, ok = strings.Cut(string(raw), "\x00"); ok {
			return updated, id, nil
		}
	}
	return "", "", fmt.Errorf("list sessions: %w: malformed cursor", sessiondb.ErrInvalid)
}

// EncodeOrderCursor is the List cursor after the session (key, id) in
// the order tagged tag: EncodeCursor for the default order (tag ""), so
// that cursors written before orders existed keep working, else the tag
// first, so that a cursor is never read in another order.
func EncodeOrderCursor(tag, key, id string) string {
	if tag == "" {
		return EncodeCursor(key, id)
	}
	return base64.RawURLEncoding.EncodeToString([]byte("\x01" + tag + "\x00" + key + "\x00" + id))
}

// DecodeOrderCursor reads a cursor EncodeOrderCursor wrote for the order
// tagged tag; a cursor of another order, or anything else, is
// sessiondb.ErrInvalid.
func DecodeOrderCursor(c, tag string) (key, id string, err error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	bad := fmt.Errorf("list sessions: %w: malformed cursor", sessiondb.ErrInvalid)
	if err != nil {
		return "", "", bad
	}
	s := string(raw)
	got := ""
	if rest, ok := strings.CutPrefix(s, "\x01"); ok {
		if got, s, ok = strings.Cut(rest, "\x00"); !ok {
			return "", "", bad
		}
	}
	if got != tag {
		return "", "", fmt.Errorf("list sessions: %w: the cursor belongs to another order or direction", sessiondb.ErrInvalid)
	}
	key, id, ok := strings.Cut(s, "\x00")
	if !ok {
		return "", "", bad
	}
	return key, id, nil
}

// TombstoneKey is how deleted_sessions names a deleted session.
func TombstoneKey(id string) string {
	h := sha256.Sum256([]byte(id))
	return hex.EncodeToString(h[:])
}

// NullJSON is an optional JSON document as an SQL argument: NULL when unset.
func NullJSON(doc json.RawMessage) any {
	if doc == nil {
		return nil
	}
	return string(doc)
}

// NullString is an optional text as an SQL argument: NULL when empty.
func NullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// JSONOrNull stores JSON null as SQL NULL, so that "cleared" reads back nil.
func JSONOrNull(doc json.RawMessage) any {
	if strings.TrimSpace(string(doc)) == "null" {
		return nil
	}
	return string(doc)
}

// ScanUsageTotals reads rows of (session_id, calls, input, output, cache
// read, cache write, reasoning, cost), one per session, into a map, and
// closes rows.
func ScanUsageTotals(rows *sql.Rows) (map[string]sessiondb.UsageTotals, error) {
	defer rows.Close()
	out := map[string]sessiondb.UsageTotals{}
	for rows.Next() {
		var id string
		var t sessiondb.UsageTotals
		if err := rows.Scan(&id, &t.Calls, &t.InputTokens, &t.OutputTokens, &t.CacheReadTokens,
			&t.CacheWriteTokens, &t.ReasoningTokens, &t.Cost, &t.Unpriced); err != nil {
			return nil, err
		}
		out[id] = t
	}
	return out, rows.Err()
}

// CostSQL is the cost of the usage row u as every total counts it: u.cost,
// or 0 when it is outside ±sessiondb.MaxCost or not a number (PostgreSQL's
// NaN compares above every number), so that a stored absurd cost cannot
// make a total infinite (SQLite) or fail with an overflow (PostgreSQL).
// It holds no placeholder.
const CostSQL = `(CASE WHEN u.cost BETWEEN -1e15 AND 1e15 THEN u.cost ELSE 0.0 END)`

// BadCostSQL counts the usage rows u whose cost CostSQL counts as 0
// although they hold one (sessionctl doctor).
const BadCostSQL = `SELECT count(*) FROM usage u WHERE NOT (u.cost BETWEEN -1e15 AND 1e15)`

// UnpricedSQL counts, summed over the usage rows u, the calls whose cost
// is unknown (sessiondb.UsageTotals.Unpriced): estimated at 0 while they
// counted tokens. It holds no placeholder.
const UnpricedSQL = `CAST(coalesce(sum(CASE WHEN u.cost_estimated AND u.cost = 0
	AND u.input_tokens + u.output_tokens + u.cache_read_tokens + u.cache_write_tokens > 0 THEN 1 ELSE 0 END), 0) AS BIGINT)`

// Execer is what both backends' write transactions offer (*sqlx.Tx, and
// pgstore's transaction, which rebinds ? placeholders to $n).
type Execer interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
}

// DeleteUsage deletes every usage row of session id (Commit.ReplaceUsage)
// and returns how many there were.
func DeleteUsage(ctx context.Context, tx Execer, id string) (int64, error) {
	res, err := tx.ExecContext(ctx, `DELETE FROM usage WHERE session_id = ?`, id)
	if err != nil {
		return 0, fmt.Errorf("usage of %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("usage of %s: %w", id, err)
	}
	return n, nil
}

// UsageColumns are the columns of a usage row, in the order of the values
// UsageRows returns; UsageColumnCount is how many.
const (
	UsageColumns = `session_id, seq, call_id, provider, model, input_tokens, output_tokens, cache_read_tokens,
		cache_write_tokens, cache_write_1h_tokens, reasoning_tokens, cost, cost_estimated, created_at`
	UsageColumnCount = 14
)

// usageRow is u's values for UsageColumns, after the check that u.Seq
// lies in 0..lastSeq.
func usageRow(id string, lastSeq int64, u sessiondb.Usage, created string) ([]any, error) {
	if u.Seq < 0 || u.Seq > lastSeq {
		return nil, fmt.Errorf("usage of %s: %w: seq %d outside 0..%d", id, sessiondb.ErrInvalid, u.Seq, lastSeq)
	}
	var seq any
	if u.Seq > 0 {
		seq = u.Seq
	}
	return []any{id, seq, NullString(u.CallID), u.Provider, u.Model, u.InputTokens, u.OutputTokens, u.CacheReadTokens,
		u.CacheWriteTokens, u.CacheWrite1hTokens, u.ReasoningTokens, u.Cost, u.CostEstimated, created}, nil
}

// UsageRows returns the values (UsageColumns) of rows us of session id,
// checked as InsertUsage checks each, for a writer that inserts many at
// once into a ledger that holds none of their call IDs (sessioncopy's
// Write, into a session it just created, from a dump whose call IDs are
// distinct). created gives a row's stored time.
func UsageRows(id string, lastSeq int64, us []sessiondb.Usage, created func(sessiondb.Usage) string) ([][]any, error) {
	rows := make([][]any, len(us))
	for i, u := range us {
		r, err := usageRow(id, lastSeq, u, created(u))
		if err != nil {
			return nil, err
		}
		rows[i] = r
	}
	return rows, nil
}

// usageChunks are the row counts of InsertUsages' multi-row INSERTs: a run
// of rows is written in chunks of these sizes, largest first, so that a
// connection prepares at most len(usageChunks) distinct texts (sqlstore
// keeps its prepared statements in a bounded cache). 64 rows are 896
// bound values, far below SQLite's and PostgreSQL's limits.
var usageChunks = [...]int{64, 16, 4, 1}

// usageInserts holds the INSERT text for each of usageChunks.
var usageInserts = func() map[int]string {
	m := map[int]string{}
	for _, n := range usageChunks {
		m[n] = InsertSQL("usage", UsageColumns, UsageColumnCount, n)
	}
	return m
}()

// InsertSQL is a multi-row INSERT into table of rows rows of ncols
// values each, in the order of cols, with ? placeholders.
func InsertSQL(table, cols string, ncols, rows int) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", ncols), ", ") + ")"
	return `INSERT INTO ` + table + ` (` + cols + `) VALUES ` + row + strings.Repeat(", "+row, rows-1)
}

// InsertUsages adds us to session id's usage ledger, exactly as calling
// InsertUsage for each in turn would (same checks, same rows in the same
// order, the usage triggers run in the same order), with multi-row
// INSERTs instead of a statement per row: each SQLite statement inside a
// savepoint copies every page it first touches to the statement journal,
// and a usage row touches the table, its three indexes and the
// usage_quarters rollup its trigger updates (issue 42: the per-row INSERT
// was 9 % of an import's CPU). created gives a row's stored time.
//
// A row with a CallID replaces the session's row of that CallID. Rows
// waiting to be inserted are written first when the replaced row may be
// one of them or when the ledger holds a row to replace (a probe, where
// InsertUsage ran the DELETE): the DELETE then runs where InsertUsage
// would have run it.
func InsertUsages(ctx context.Context, tx Tx, id string, lastSeq int64, us []sessiondb.Usage, created func(sessiondb.Usage) string) error {
	var pending [][]any
	calls := map[string]bool{}
	flush := func() error {
		for len(pending) > 0 {
			n := usageChunks[len(usageChunks)-1]
			for _, c := range usageChunks {
				if c <= len(pending) {
					n = c
					break
				}
			}
			args := make([]any, 0, n*UsageColumnCount)
			for _, r := range pending[:n] {
				args = append(args, r...)
			}
			if _, err := tx.ExecContext(ctx, usageInserts[n], args...); err != nil {
				return fmt.Errorf("usage of %s: %w", id, err)
			}
			pending = pending[n:]
		}
		clear(calls)
		return nil
	}
	for _, u := range us {
		row, err := usageRow(id, lastSeq, u, created(u))
		if err != nil {
			return err
		}
		if u.CallID != "" {
			replace := true // with nothing waiting, the DELETE runs as InsertUsage's
			if len(pending) > 0 && !calls[u.CallID] {
				replace, err = usageCallExists(ctx, tx, id, u.CallID)
				if err != nil {
					return err
				}
			}
			if replace {
				if err := flush(); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `DELETE FROM usage WHERE session_id = ? AND call_id = ?`, id, u.CallID); err != nil {
					return fmt.Errorf("usage of %s: %w", id, err)
				}
			}
			calls[u.CallID] = true
		}
		pending = append(pending, row)
	}
	return flush()
}

// usageCallExists reports whether session id's ledger holds a row of
// call callID.
func usageCallExists(ctx context.Context, tx Tx, id, callID string) (bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT 1 FROM usage WHERE session_id = ? AND call_id = ?`, id, callID)
	if err != nil {
		return false, fmt.Errorf("usage of %s: %w", id, err)
	}
	defer rows.Close()
	found := rows.Next()
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("usage of %s: %w", id, err)
	}
	return found, nil
}

// InsertUsage adds u to session id's usage ledger, created being its
// stored time. lastSeq is the session's LastSeq after the commit's
// appends: u.Seq must lie in 0..lastSeq. A row with a CallID replaces the
// session's row of that CallID (see sessiondb.Usage.CallID).
func InsertUsage(ctx context.Context, tx Execer, id string, lastSeq int64, u sessiondb.Usage, created string) error {
	row, err := usageRow(id, lastSeq, u, created)
	if err != nil {
		return err
	}
	if u.CallID != "" {
		if _, err := tx.ExecContext(ctx, `DELETE FROM usage WHERE session_id = ? AND call_id = ?`, id, u.CallID); err != nil {
			return fmt.Errorf("usage of %s: %w", id, err)
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO usage (`+UsageColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, row...)
	if err != nil {
		return fmt.Errorf("usage of %s: %w", id, err)
	}
	return nil
}
