package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
)

// Row is an entry with the columns a backend stores derived from it.
type Row struct {
	Kind, Role string
	// Text is the value bound to the text column: Dialect.EntryText's
	// decision (backend.TextStore.Arg; nil is NULL), made when the entry
	// is described, before the write transaction (see DescribeAll).
	Text any
	// Body is the entry's body, not copied: it becomes a string (the
	// bound value, TEXT, not a BLOB) only in the INSERT that writes it
	// (EntryInserts), so that a CommitMany described before its
	// transaction does not hold a second copy of every body of the batch.
	Body      []byte
	CreatedAt time.Time
	// preview is the entry's preview (CutPreview of its extracted text)
	// when it is a user message, nil otherwise.
	preview *string
}

// DescribeAll derives the stored columns of entries (Driver.Describe, then
// ts decides what the text column holds). Callers run it before
// Driver.Write, in the writing goroutine: the extraction (a JSON decode of
// every body) and the text decision (a scan of every body on SQLite) are
// then done by the writers in parallel, and the one goroutine that
// serialises every write only runs the statements. A panic in a custom
// extractor becomes an error, as it would inside Driver.Write.
func DescribeAll(d Driver, ts backend.TextStore, entries []sessiondb.Entry) (rows []Row, err error) {
	defer func() {
		if p := recover(); p != nil {
			rows, err = nil, fmt.Errorf("describe entries: internal error: %v", p)
		}
	}()
	rows = make([]Row, len(entries))
	for i, e := range entries {
		kind, role, text := d.Describe(e)
		rows[i] = Row{Kind: kind, Role: role, Text: ts.Arg(text, e.Body), Body: e.Body, CreatedAt: e.CreatedAt}
		if isUserMessage(kind, role) {
			p := CutPreview(text)
			rows[i].preview = &p
		}
	}
	return rows, nil
}

// DescribeParallelMin is the number of entries from which describeMany
// spreads the work over the CPUs: below it, starting goroutines costs more
// than it saves.
const DescribeParallelMin = 256

// describeMany is DescribeAll for each commit of a CommitMany, on up to
// GOMAXPROCS goroutines when the batch is large (an import's batch of
// sessions): the caller of CommitMany (the importer's writer loop) waits
// for the write anyway, and the parsers that feed it are then mostly
// idle.
func describeMany(d Driver, ts backend.TextStore, commits []sessiondb.SessionCommit) ([][]Row, error) {
	out := make([][]Row, len(commits))
	total := 0
	for _, sc := range commits {
		total += len(sc.Commit.Append)
	}
	workers := min(runtime.GOMAXPROCS(0), len(commits))
	if total < DescribeParallelMin || workers < 2 {
		for i, sc := range commits {
			rows, err := DescribeAll(d, ts, sc.Commit.Append)
			if err != nil {
				return nil, fmt.Errorf("session %q (commit %d): %w", sc.ID, i, err)
			}
			out[i] = rows
		}
		return out, nil
	}
	var next atomic.Int64
	errs := make([]error, len(commits))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(commits) {
					return
				}
				out[i], errs[i] = DescribeAll(d, ts, commits[i].Commit.Append)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("session %q (commit %d): %w", commits[i].ID, i, err)
		}
	}
	return out, nil
}

// CountMessages counts the rows that are messages (see
// backend.IsMessageKind).
func CountMessages(rows []Row) int64 {
	var n int64
	for _, r := range rows {
		if backend.IsMessageKind(r.Kind) {
			n++
		}
	}
	return n
}

// InsertChunk is how many entries one INSERT statement writes (7 or 8
// parameters each, far below SQLite's 32766-parameter and PostgreSQL's
// 65535-parameter limits).
const InsertChunk = 512

// EntryInsert is one multi-row INSERT of the entries First..Last.
type EntryInsert struct {
	Query       string
	Args        []any
	First, Last int64
}

// EntryInserts writes the INSERTs that append rows to session id after
// lastSeq, InsertChunk rows each: multi-row INSERTs, not a statement per
// entry (each statement costs SQLite a step of the VM and a statement
// journal, and PostgreSQL a round trip). ts names the text column
// (Dialect.EntryText; each row's value was decided by DescribeAll). firstRowID, when positive, is
// the row id of the first row, the others following it (see
// Dialect.NextEntryID); 0 lets the database assign ids.
func EntryInserts(id string, lastSeq, firstRowID int64, ts backend.TextStore, rows []Row, now time.Time) []EntryInsert {
	return EntryInsertsOf([]EntryRun{{ID: id, LastSeq: lastSeq, Rows: rows, Now: now}}, firstRowID, ts)
}

// EntryRun is the rows one commit appends to one session: EntryInserts'
// arguments, for EntryInsertsOf.
type EntryRun struct {
	ID      string
	LastSeq int64 // the session's LastSeq before the rows
	Rows    []Row
	Now     time.Time // the commit's time: CreatedAt of a row without one
}

// EntryInsertsOf is EntryInserts for the rows of several commits, in
// order, a statement holding rows of several sessions when they fit in
// one chunk (SQLite's group committer appends a batch of sessions with
// one INSERT). First and Last of a statement are the seqs of its first
// and last row, which name a range only when the statement holds one
// session's rows.
func EntryInsertsOf(runs []EntryRun, firstRowID int64, ts backend.TextStore) []EntryInsert {
	row, cols, per := "(?, ?, ?, ?, ?, ?, ?)", "", 7
	if firstRowID > 0 {
		row, cols, per = "(?, ?, ?, ?, ?, ?, ?, ?)", "id, ", 8
	}
	total := 0
	for _, r := range runs {
		total += len(r.Rows)
	}
	out := make([]EntryInsert, 0, (total+InsertChunk-1)/InsertChunk)
	var args []any
	var first, last int64
	flush := func() {
		n := len(args) / per
		q := `INSERT INTO entries (` + cols + `session_id, seq, kind, role, ` + ts.Col() + `, body, created_at) VALUES ` +
			row + strings.Repeat(", "+row, n-1)
		out = append(out, EntryInsert{Query: q, Args: args, First: first, Last: last})
		args = nil
	}
	for _, r := range runs {
		seq := r.LastSeq
		for _, e := range r.Rows {
			if args == nil {
				args = make([]any, 0, per*min(InsertChunk, total))
				first = seq + 1
			}
			seq++
			if firstRowID > 0 {
				args = append(args, firstRowID)
				firstRowID++
			}
			args = append(args, r.ID, seq, e.Kind, e.Role, e.Text, string(e.Body), FormatTime(OrNow(e.CreatedAt, r.Now)))
			last = seq
			total--
			if len(args) == per*InsertChunk {
				flush()
			}
		}
	}
	if len(args) > 0 {
		flush()
	}
	return out
}

// Finish is what a commit that changed its session leaves to write on the
// session row (Driver.FinishCommit).
type Finish struct {
	// Changed: the commit wrote something; the row's Sequence goes up by
	// one and the fields below are stored. When false nothing is written
	// and the session is returned as committed.
	Changed                           bool
	LastSeq, MessageCount, EntryCount int64
	UpdatedAt                         time.Time
	// Reread: the commit created the session or changed its metadata, so
	// the returned session must be read back, not updated in memory.
	Reread bool
	// Preview is the session's new preview (see preview.go): with
	// SetPreview the value stored (nil: NULL), without it a value stored
	// only where the row has none (nil: the preview stays). PreviewSQL
	// writes the clause.
	Preview    any
	SetPreview bool
}

// Appender is a Driver with its own write for a commit that only appends
// (AppendOnly), rows being c.Append described: SQLite submits it to its
// group committer as a request the committer may merge with the other
// appends of its batch, one UPDATE … RETURNING and one INSERT for all of
// them (sqlstore's appendMany).
type Appender interface {
	WriteAppend(ctx context.Context, id string, c sessiondb.Commit, rows []Row) (sessiondb.Session, error)
}

// AppendOnly reports whether c only appends entries and replaces
// documents and usage, on an existing session: the common write of an
// agent's turn. Any other field (including one added to Commit later)
// takes the general path.
func AppendOnly(c sessiondb.Commit) bool {
	rest := c
	rest.ExpectSequence, rest.Append, rest.State, rest.ClearState = nil, nil, nil, false
	rest.Interrupt, rest.ClearInterrupt, rest.Usage, rest.Now = nil, false, nil, time.Time{}
	// A commit without entries may change nothing, which the general path
	// turns into a no-op; one with entries always changes the session.
	return len(c.Append) > 0 && reflect.ValueOf(rest).IsZero()
}

// Commit implements sessiondb.Store: every part of c in one transaction,
// one Sequence bump.
func (e *Engine) Commit(ctx context.Context, id string, c sessiondb.Commit) (sessiondb.Session, error) {
	if err := sessiondb.ValidateCommit(id, c); err != nil {
		return sessiondb.Session{}, fmt.Errorf("commit %q: %w", id, err)
	}
	// Derive kind, role and text of the new entries here, in the caller's
	// goroutine and outside the transaction: concurrent writers then
	// extract in parallel, and SQLite's committer, which serialises every
	// write, only inserts.
	rows, err := DescribeAll(e.d, e.sql.EntryText, c.Append)
	if err != nil {
		return sessiondb.Session{}, fmt.Errorf("commit %q: %w", id, err)
	}
	if a, ok := e.d.(Appender); ok && AppendOnly(c) {
		return a.WriteAppend(ctx, id, c, rows)
	}
	var out sessiondb.Session
	err = e.d.Write(ctx, func(tx Tx) (err error) {
		out, err = ApplyCommit(ctx, e.d, e.sql.EntryText, tx, id, c, rows)
		return err
	})
	return out, err
}

// CommitMany implements sessiondb.Store: the commits in order, in one
// transaction, after Driver.LockCommits and the usage groups' locks
// (UsageGroupLocker).
func (e *Engine) CommitMany(ctx context.Context, commits []sessiondb.SessionCommit) ([]sessiondb.Session, error) {
	if err := sessiondb.ValidateCommitMany(commits); err != nil {
		return nil, fmt.Errorf("commit many: %w", err)
	}
	// Every commit's entries are described before the transaction, off
	// the writer (see DescribeAll). On SQLite a row holds no extracted
	// text where the body's content gives it (the common message), so a
	// batch holds little more than its bodies, which the caller holds
	// anyway.
	rows, err := describeMany(e.d, e.sql.EntryText, commits)
	if err != nil {
		return nil, fmt.Errorf("commit many: %w", err)
	}
	out := make([]sessiondb.Session, len(commits))
	err = e.d.Write(ctx, func(tx Tx) error {
		if err := e.d.LockCommits(ctx, tx, commits); err != nil {
			return err
		}
		if err := lockManyUsageGroups(ctx, e.d, tx, commits); err != nil {
			return err
		}
		for i, sc := range commits {
			sess, err := ApplyCommit(ctx, e.d, e.sql.EntryText, tx, sc.ID, sc.Commit, rows[i])
			if err != nil {
				return fmt.Errorf("commit many: session %q (commit %d): %w", sc.ID, i, err)
			}
			out[i] = sess
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// applyCommit is ApplyCommit with the entries of c described here, for
// the writes that build their commit from what they read inside the
// transaction (SaveFull, Restore).
func (e *Engine) applyCommit(ctx context.Context, tx Tx, id string, c sessiondb.Commit) (sessiondb.Session, error) {
	rows, err := DescribeAll(e.d, e.sql.EntryText, c.Append)
	if err != nil {
		return sessiondb.Session{}, err
	}
	return ApplyCommit(ctx, e.d, e.sql.EntryText, tx, id, c, rows)
}

// ApplyCommit is the one write path: every public write method builds a
// Commit (possibly after reading inside the same transaction) and applies
// it here, rows[i] being c.Append[i] described (DescribeAll with ts, which
// also describes the entries of c.History). c must have passed
// sessiondb.ValidateCommit. A commit that changes nothing writes nothing
// (see sessiondb.Commit): no Sequence bump.
func ApplyCommit(ctx context.Context, d Driver, ts backend.TextStore, tx Tx, id string, c sessiondb.Commit, rows []Row) (sessiondb.Session, error) {
	if c.Delete {
		return deleteSession(ctx, d, tx, id, c.ExpectSequence)
	}
	now := OrNow(c.Now, time.Now())
	create := c.Create
	if create != nil {
		cr := *create
		cr.ID = id
		if err := d.InsertSession(ctx, tx, cr, now, c.ShadowAliases); err != nil {
			return sessiondb.Session{}, err
		}
	} else if c.CreateIfMissing != nil {
		cr := *c.CreateIfMissing
		cr.ID = id
		created, err := d.InsertSessionIfMissing(ctx, tx, cr, now, c.ShadowAliases)
		if err != nil {
			return sessiondb.Session{}, err
		}
		if created {
			create = c.CreateIfMissing
		}
	}
	sess, err := d.LockSession(ctx, tx, id)
	if err != nil {
		return sessiondb.Session{}, err
	}
	if c.ExpectSequence != nil && *c.ExpectSequence != sess.Sequence {
		return sessiondb.Session{}, &sessiondb.ConflictError{SessionID: id, Expected: *c.ExpectSequence, Current: sess.Sequence}
	}
	if err := lockUsageGroups(ctx, d, tx, id, c, now); err != nil {
		return sessiondb.Session{}, err
	}
	if err := checkSourceExpectation(ctx, d, tx, c); err != nil {
		return sessiondb.Session{}, err
	}
	changed := create != nil
	updated := now
	if create != nil && c.Now.IsZero() {
		updated = sess.UpdatedAt // the creator's UpdatedAt (or its CreatedAt)
	}
	metaChanged := false
	if c.Meta != nil {
		if c.Meta.Aliases != nil {
			// LockSession may not have read them (see Driver).
			if sess.Aliases, err = sessionAliases(ctx, tx, id); err != nil {
				return sessiondb.Session{}, err
			}
		}
		p, err := backend.EffectivePatch(sess, c.Meta)
		if err != nil {
			return sessiondb.Session{}, fmt.Errorf("patch %s: %w", id, err)
		}
		if err := backend.CheckForkSeq(ctx, tx, sess, p); err != nil {
			return sessiondb.Session{}, err
		}
		if backend.PatchChanges(sess, p) {
			if err := applyPatch(ctx, d, tx, id, p); err != nil {
				return sessiondb.Session{}, err
			}
			changed, metaChanged = true, true
		}
		if !c.Meta.UpdatedAt.IsZero() {
			updated = c.Meta.UpdatedAt
		}
	}
	compactions := c.Compactions
	if c.History != nil {
		var h sessiondb.Commit
		if err := HistoryCommit(ctx, d, tx, id, c.History, &h); err != nil {
			return sessiondb.Session{}, err
		}
		hrows, err := DescribeAll(d, ts, h.Append)
		if err != nil {
			return sessiondb.Session{}, err
		}
		rows = append(hrows, rows...)
		compactions = append(h.Compactions, c.Compactions...)
	}
	var before backend.Before // the transcript before a compaction of this commit
	if len(compactions) > 0 || c.KeepLast != nil {
		if before, err = backend.ReadBefore(ctx, tx, sess); err != nil {
			return sessiondb.Session{}, err
		}
	}
	lastSeq := sess.LastSeq
	if len(rows) > 0 {
		if lastSeq, err = d.InsertEntries(ctx, tx, id, lastSeq, rows, now); err != nil {
			return sessiondb.Session{}, err
		}
		changed = true
	}
	var cut *sessiondb.Compaction // the last compaction recorded: it defines the transcript
	for _, cp := range compactions {
		if _, err := InsertCompaction(ctx, d, tx, id, lastSeq, cp, now); err != nil {
			return sessiondb.Session{}, err
		}
		changed, cut = true, &cp
	}
	if c.KeepLast != nil {
		cp, err := KeepLastCompaction(ctx, tx, id, lastSeq, *c.KeepLast)
		if err != nil {
			return sessiondb.Session{}, err
		}
		if cp != nil {
			if _, err := InsertCompaction(ctx, d, tx, id, lastSeq, *cp, now); err != nil {
				return sessiondb.Session{}, err
			}
			changed, cut = true, cp
		}
	}
	messages := sess.MessageCount + CountMessages(rows)
	preview, setPreview := AppendPreview(rows), false
	if cut != nil {
		// The transcript now starts at cut.KeepFromSeq: its first user
		// message is the first among the old entries from there, or else
		// among this commit's (which follow them).
		if preview, err = PreviewFrom(ctx, tx, id, cut.KeepFromSeq, sess.LastSeq); err != nil {
			return sessiondb.Session{}, err
		}
		if preview == nil {
			preview = rowsPreview(rows, sess.LastSeq+1, cut.KeepFromSeq)
		}
		setPreview = true
		// The count reads only entries up to the old LastSeq, all of them
		// inserted before this commit (an INSERT the driver holds back for
		// FinishCommit is not needed).
		kinds := make([]string, len(rows))
		for i, r := range rows {
			kinds[i] = r.Kind
		}
		messages, err = backend.CutMessages(ctx, tx, id, before, kinds, cut.KeepFromSeq, backend.CountMessages(cut.Summary))
		if err != nil {
			return sessiondb.Session{}, err
		}
	}
	for _, doc := range []struct {
		table string
		doc   json.RawMessage
		clear bool
	}{{"states", c.State, c.ClearState}, {"interrupts", c.Interrupt, c.ClearInterrupt}} {
		if doc.doc == nil && !doc.clear {
			continue
		}
		stored, err := GetDoc(ctx, tx, doc.table, id)
		if err != nil {
			return sessiondb.Session{}, err
		}
		if doc.clear && stored == nil || doc.doc != nil && stored != nil && bytes.Equal(doc.doc, stored) {
			continue // already so
		}
		if err := PutDoc(ctx, tx, doc.table, id, doc.doc, doc.clear, now); err != nil {
			return sessiondb.Session{}, err
		}
		changed = true
	}
	if c.ReplaceUsage {
		n, err := backend.DeleteUsage(ctx, tx, id)
		if err != nil {
			return sessiondb.Session{}, err
		}
		changed = changed || n > 0
		if _, err := tx.ExecContext(ctx, `DELETE FROM usage_cumulative WHERE session_id = ?`, id); err != nil {
			return sessiondb.Session{}, err
		}
	}
	if len(c.Usage) > 0 {
		if err := InsertUsages(ctx, tx, id, lastSeq, c.Usage, now); err != nil {
			return sessiondb.Session{}, err
		}
		changed = true
	}
	for _, u := range c.CumulativeUsage {
		added, err := insertCumulativeUsage(ctx, tx, id, lastSeq, u, now)
		if err != nil {
			return sessiondb.Session{}, err
		}
		changed = changed || added
	}
	changed = changed || c.Revise
	if c.Source != nil {
		if err := putSourceFile(ctx, tx, id, *c.Source, now); err != nil {
			return sessiondb.Session{}, err
		}
		changed = true
	}
	return d.FinishCommit(ctx, tx, id, sess, Finish{Changed: changed, LastSeq: lastSeq, MessageCount: messages,
		EntryCount: sess.EntryCount + int64(len(rows)), UpdatedAt: updated, Reread: create != nil || metaChanged,
		Preview: preview, SetPreview: setPreview})
}

// InsertUsage adds u to session id's usage ledger (backend.InsertUsage),
// stamped now unless u has its own time.
func InsertUsage(ctx context.Context, tx Tx, id string, lastSeq int64, u sessiondb.Usage, now time.Time) error {
	return backend.InsertUsage(ctx, tx, id, lastSeq, u, FormatTime(OrNow(u.CreatedAt, now)))
}

// InsertUsages adds us to session id's usage ledger as InsertUsage adds
// each in turn, with multi-row INSERTs (backend.InsertUsages).
func InsertUsages(ctx context.Context, tx Tx, id string, lastSeq int64, us []sessiondb.Usage, now time.Time) error {
	return backend.InsertUsages(ctx, tx, id, lastSeq, us, func(u sessiondb.Usage) string { return FormatTime(OrNow(u.CreatedAt, now)) })
}

// applyPatch writes a resolved metadata patch (backend.EffectivePatch).
func applyPatch(ctx context.Context, d Driver, tx Tx, id string, p *sessiondb.MetaPatch) error {
	var sets []string
	var args []any
	if p.Title != nil {
		sets, args = append(sets, "title = ?"), append(args, *p.Title)
	}
	if p.Summary != nil {
		sets, args = append(sets, "summary = ?"), append(args, *p.Summary)
	}
	if p.Scope != nil {
		sets, args = append(sets, "scope = ?"), append(args, backend.JSONOrNull(p.Scope))
	}
	if p.Attrs != nil {
		sets, args = append(sets, "attrs = ?"), append(args, backend.JSONOrNull(p.Attrs))
	}
	if p.Version != nil {
		sets, args = append(sets, "version = ?"), append(args, *p.Version)
	}
	if p.ForkSeq != nil {
		sets, args = append(sets, "fork_seq = ?"), append(args, *p.ForkSeq)
	}
	if p.Project != nil {
		sets, args = append(sets, "project = ?"), append(args, backend.NullString(*p.Project))
	}
	if p.Machine != nil {
		sets, args = append(sets, "machine = ?"), append(args, backend.NullString(*p.Machine))
	}
	if len(sets) > 0 {
		args = append(args, id)
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET `+strings.Join(sets, ", ")+` WHERE id = ?`, args...); err != nil {
			return err
		}
	}
	if p.Aliases != nil {
		return d.SetAliases(ctx, tx, id, *p.Aliases)
	}
	return nil
}

// sessionAliases reads a session's aliases, in order.
func sessionAliases(ctx context.Context, tx Tx, id string) ([]string, error) {
	var out []string
	err := tx.SelectContext(ctx, &out, `SELECT alias FROM session_aliases WHERE session_id = ? ORDER BY id`, id)
	if len(out) == 0 {
		out = nil
	}
	return out, err
}
