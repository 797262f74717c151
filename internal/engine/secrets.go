package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/secrets"
)

// Secrets (see "Secrets" in sessiondb's package doc): the scan that
// records spans, the reads that apply them, the listing and the scrub,
// once for both backends.

const (
	// scanBatchBytes bounds the bodies one ScanSecrets step reads (at
	// least one entry): about a quarter of a second of scanning, and the
	// memory the step holds.
	scanBatchBytes = 4 << 20
	// scanBatchRows bounds the entries one step reads per session.
	scanBatchRows = 2000
	// scanBatchSessions bounds the sessions one step looks at.
	scanBatchSessions = 256
	// scanQuietRecheck bounds how long a step that finds no new entry
	// since the last quiet one trusts that nothing is pending.
	scanQuietRecheck = 10 * time.Second
)

// redactKey is the context key under which the Redacted view passes its
// engine to the reads it runs: a read whose context holds it redacts
// inside its own read transaction, so spans and bodies come from one
// snapshot.
type redactKey struct{}

// redactor returns the engine of a redacting read, nil when the read is
// not redacted.
func redactor(ctx context.Context) *Engine {
	e, _ := ctx.Value(redactKey{}).(*Engine)
	return e
}

// haveSecretTables reports whether the schema has the secret tables (a
// store opened without migrating an older schema has none: every read
// then scans what it reads).
func (e *Engine) haveSecretTables(ctx context.Context, tx Tx) (bool, error) {
	var n int
	if err := tx.GetContext(ctx, &n, e.sql.TableExists, "secret_scans"); err != nil {
		return false, err
	}
	return n > 0, nil
}

// scannedThrough returns the seq up to which session id's entries were
// scanned by the current rule set (0: none).
func (e *Engine) scannedThrough(ctx context.Context, tx Tx, id string) (int64, error) {
	ok, err := e.haveSecretTables(ctx, tx)
	if err != nil || !ok {
		return 0, err
	}
	var through int64
	var rules string
	err = tx.QueryRowxContext(ctx, `SELECT through_seq, rules FROM secret_scans WHERE session_id = ?`, id).Scan(&through, &rules)
	if errors.Is(err, sql.ErrNoRows) || rules != secrets.Default().Version() {
		return 0, nil
	}
	return through, err
}

// redactEntryRows masks the secrets of rows of session id, in place, when
// ctx is a redacting read: rows the scan has seen get their stored spans,
// the others are scanned now.
func redactEntryRows(ctx context.Context, tx Tx, id string, rows []entryRow) error {
	e := redactor(ctx)
	if e == nil || len(rows) == 0 {
		return nil
	}
	through, err := e.scannedThrough(ctx, tx, id)
	if err != nil {
		return err
	}
	lo, hi := rows[0].Seq, rows[0].Seq
	for _, r := range rows {
		lo, hi = min(lo, r.Seq), max(hi, r.Seq)
	}
	spans := map[int64][]secrets.Span{}
	if through >= lo {
		if spans, err = storedSpans(ctx, tx, id, lo, min(hi, through)); err != nil {
			return err
		}
	}
	det := secrets.Default()
	for i := range rows {
		if rows[i].Seq <= through {
			rows[i].Body = secrets.Redact(rows[i].Body, spans[rows[i].Seq])
		} else {
			rows[i].Body = det.RedactJSON(rows[i].Body)
		}
	}
	return nil
}

// storedSpans reads the stored spans of session id's entries lo..hi, by
// seq.
func storedSpans(ctx context.Context, tx Tx, id string, lo, hi int64) (map[int64][]secrets.Span, error) {
	spans := map[int64][]secrets.Span{}
	q, err := tx.QueryContext(ctx, `SELECT e.seq, p.start_byte, p.end_byte, p.rule FROM secret_spans p
		JOIN entries e ON e.id = p.entry_id WHERE e.session_id = ? AND e.seq BETWEEN ? AND ?`, id, lo, hi)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	for q.Next() {
		var seq int64
		var s secrets.Span
		if err := q.Scan(&seq, &s.Start, &s.End, &s.Rule); err != nil {
			return nil, err
		}
		spans[seq] = append(spans[seq], s)
	}
	return spans, q.Err()
}

// redactSummary masks the secrets of a summary message's body when ctx is
// a redacting read. Summary messages are few (the current compaction's)
// and not scanned in the background: they are scanned when read.
func redactSummary(ctx context.Context, body []byte) []byte {
	if redactor(ctx) == nil {
		return body
	}
	return secrets.Default().RedactJSON(body)
}

// hits turns a backend's hit rows into hits, each text cut to a snippet
// around terms. In a redacting read, a hit's title is redacted, and so is
// its text where its body holds a secret: the text is derived again from
// the redacted body (Driver.Describe), and a hit whose terms no longer
// all occur in it is dropped — it matched only inside a secret, and
// showing it would let a query probe a secret one character at a time —
// or, with keepWithheld, returned as a Withheld hit holding nothing.
func (e *Engine) hits(ctx context.Context, tx Tx, rows []HitRow, terms []string, keepWithheld bool) ([]sessiondb.Hit, error) {
	if redactor(ctx) != nil {
		var err error
		if rows, err = e.redactHits(ctx, tx, rows, terms, keepWithheld); err != nil {
			return nil, err
		}
	}
	return Hits(rows, terms), nil
}

func (e *Engine) redactHits(ctx context.Context, tx Tx, rows []HitRow, terms []string, keepWithheld bool) ([]HitRow, error) {
	det := secrets.Default()
	through := map[string]int64{}
	out := rows[:0:0]
	for _, r := range rows {
		r.SessionTitle = det.RedactText(r.SessionTitle)
		var body []byte
		var spans []secrets.Span
		if r.Summary {
			if err := tx.GetContext(ctx, &body, `SELECT body FROM summary_messages WHERE id = ?`, r.ID); err != nil {
				return nil, err
			}
			spans = det.FindJSON(body)
		} else {
			t, ok := through[r.SessionID]
			if !ok {
				var err error
				if t, err = e.scannedThrough(ctx, tx, r.SessionID); err != nil {
					return nil, err
				}
				through[r.SessionID] = t
			}
			if r.Seq <= t {
				q, err := tx.QueryContext(ctx, `SELECT start_byte, end_byte, rule FROM secret_spans WHERE entry_id = ?`, r.ID)
				if err != nil {
					return nil, err
				}
				for q.Next() {
					var s secrets.Span
					if err := q.Scan(&s.Start, &s.End, &s.Rule); err != nil {
						q.Close()
						return nil, err
					}
					spans = append(spans, s)
				}
				q.Close()
				if err := q.Err(); err != nil {
					return nil, err
				}
				if len(spans) > 0 {
					if err := tx.GetContext(ctx, &body, `SELECT body FROM entries WHERE id = ?`, r.ID); err != nil {
						return nil, err
					}
				}
			} else {
				if err := tx.GetContext(ctx, &body, `SELECT body FROM entries WHERE id = ?`, r.ID); err != nil {
					return nil, err
				}
				spans = det.FindJSON(body)
			}
		}
		if len(spans) > 0 {
			_, _, text := e.d.Describe(sessiondb.Entry{Kind: r.Kind, Role: r.Role, Body: secrets.Redact(body, spans)})
			folded := foldString(text)
			all := true
			for _, t := range terms {
				all = all && strings.Contains(folded, foldString(t))
			}
			if !all {
				if keepWithheld {
					out = append(out, HitRow{withheld: true})
				}
				continue
			}
			r.Snippet = text
		}
		out = append(out, r)
	}
	return out, nil
}

// Redacted returns the redacting view of s, a store whose engine is e
// (sessiondb.SecretKeeper.Redacted): reads of the log go through e with
// the redacting context; documents and metadata, which are read whole and
// are small, are scanned as they are returned.
func Redacted(s sessiondb.Store, e *Engine) sessiondb.Store { return redacted{s, e} }

type redacted struct {
	sessiondb.Store
	e *Engine
}

var (
	_ sessiondb.SessionLookup = redacted{}
	_ sessiondb.SecretKeeper  = redacted{}
	_ sessiondb.EntryClipper  = redacted{}
)

func (r redacted) ctx(ctx context.Context) context.Context {
	return context.WithValue(ctx, redactKey{}, r.e)
}

func redactSession(s sessiondb.Session) sessiondb.Session {
	det := secrets.Default()
	s.Title = det.RedactText(s.Title)
	s.Summary = det.RedactText(s.Summary)
	s.Scope = redactDoc(s.Scope)
	s.Attrs = redactDoc(s.Attrs)
	return s
}

func redactDoc(doc json.RawMessage) json.RawMessage {
	if len(doc) == 0 {
		return doc
	}
	return secrets.Default().RedactJSON(doc)
}

func (r redacted) Get(ctx context.Context, id string) (sessiondb.Session, error) {
	s, err := r.Store.Get(ctx, id)
	return redactSession(s), err
}

func (r redacted) Lookup(ctx context.Context, idOrAlias string) (sessiondb.Session, error) {
	if l, ok := r.Store.(sessiondb.SessionLookup); ok {
		s, err := l.Lookup(ctx, idOrAlias)
		return redactSession(s), err
	}
	id, err := r.Store.Resolve(ctx, idOrAlias)
	if err != nil {
		return sessiondb.Session{}, err
	}
	return r.Get(ctx, id)
}

func (r redacted) List(ctx context.Context, opts sessiondb.ListOptions) ([]sessiondb.SessionInfo, string, error) {
	infos, next, err := r.Store.List(ctx, opts)
	for i := range infos {
		infos[i].Session = redactSession(infos[i].Session)
		// The preview is a prefix of a body's text: masked as a title is
		// (a secret cut by the prefix's end may go unrecognised; a
		// session that was scrubbed has its preview cut from the masked
		// body).
		infos[i].Preview = secrets.Default().RedactText(infos[i].Preview)
	}
	return infos, next, err
}

func (r redacted) Load(ctx context.Context, id string, opts sessiondb.LoadOptions) ([]sessiondb.Entry, error) {
	return r.Store.Load(r.ctx(ctx), id, opts)
}

func (r redacted) Entries(ctx context.Context, id string, from, to int64) ([]sessiondb.Entry, error) {
	return r.Store.Entries(r.ctx(ctx), id, from, to)
}

// EntriesClipped implements sessiondb.EntryClipper, redacting.
func (r redacted) EntriesClipped(ctx context.Context, id string, from, to int64, max int) ([]sessiondb.ClippedEntry, error) {
	return r.e.EntriesClipped(r.ctx(ctx), id, from, to, max)
}

func (r redacted) LoadFull(ctx context.Context, id string, opts sessiondb.LoadOptions) (sessiondb.Full, error) {
	f, err := r.Store.LoadFull(r.ctx(ctx), id, opts)
	f.Session = redactSession(f.Session)
	f.State = redactDoc(f.State)
	f.Interrupt = redactDoc(f.Interrupt)
	return f, err
}

func (r redacted) Search(ctx context.Context, query string, opts sessiondb.SearchOptions) ([]sessiondb.Hit, error) {
	return r.Store.Search(r.ctx(ctx), query, opts)
}

func (r redacted) Compactions(ctx context.Context, id string) ([]sessiondb.Compaction, error) {
	cs, err := r.Store.Compactions(r.ctx(ctx), id)
	for i := range cs {
		cs[i].Details = redactDoc(cs[i].Details)
	}
	return cs, err
}

func (r redacted) LoadState(ctx context.Context, id string) (json.RawMessage, error) {
	doc, err := r.Store.LoadState(ctx, id)
	return redactDoc(doc), err
}

func (r redacted) LoadInterrupt(ctx context.Context, id string) (json.RawMessage, error) {
	doc, err := r.Store.LoadInterrupt(ctx, id)
	return redactDoc(doc), err
}

func redactCheckpoint(cp sessiondb.Checkpoint) sessiondb.Checkpoint {
	cp.Label = secrets.Default().RedactText(cp.Label)
	cp.State = redactDoc(cp.State)
	return cp
}

func (r redacted) LoadCheckpoint(ctx context.Context, id string) (sessiondb.Checkpoint, error) {
	cp, err := r.Store.LoadCheckpoint(ctx, id)
	return redactCheckpoint(cp), err
}

func (r redacted) ListCheckpoints(ctx context.Context, sessionID string) ([]sessiondb.Checkpoint, error) {
	cps, err := r.Store.ListCheckpoints(ctx, sessionID)
	for i := range cps {
		cps[i] = redactCheckpoint(cps[i])
	}
	return cps, err
}

// The view is a SecretKeeper too, so that a caller holding it can still
// list and scrub.
func (r redacted) keeper() sessiondb.SecretKeeper { return r.Store.(sessiondb.SecretKeeper) }

func (r redacted) Redacted() sessiondb.Store { return r }
func (r redacted) ScanSecrets(ctx context.Context) (bool, error) {
	return r.keeper().ScanSecrets(ctx)
}
func (r redacted) SecretStatus(ctx context.Context) (int64, error) {
	return r.keeper().SecretStatus(ctx)
}
func (r redacted) Secrets(ctx context.Context, q sessiondb.SecretQuery) ([]sessiondb.SecretFound, error) {
	return r.keeper().Secrets(ctx, q)
}
func (r redacted) Scrub(ctx context.Context, id string) (sessiondb.ScrubRecord, error) {
	return r.keeper().Scrub(ctx, id)
}
func (r redacted) Scrubs(ctx context.Context) ([]sessiondb.ScrubRecord, error) {
	return r.keeper().Scrubs(ctx)
}

// scanJob is one session's part of a ScanSecrets step.
type scanJob struct {
	id      string
	known   bool   // a secret_scans row exists
	through int64  // its through_seq
	rules   string // and rule set
	upto    int64  // the new through_seq
	from    int64  // the first seq read
	maxID   int64  // the highest row id read
	rows    []scanRow
}

type scanRow struct {
	id    int64
	body  []byte
	spans []secrets.Span
}

// ScanSecrets implements sessiondb.SecretKeeper. A step reads, in one
// read transaction, the entries after each session's scan cursor (up to
// scanBatchBytes of bodies), scans them outside any transaction, then in
// one write transaction moves each cursor — only where it is still what
// was read, so two scanners (processes) never record a session twice,
// and only where no row the step did not read has taken a read row's
// place (a copy that replaced the session meanwhile: its rows have
// higher ids), so that a cursor never covers a body nobody scanned —
// and records the spans of the entries that still exist. Steps in one
// process run one at a time (scanMu): the second reads what the first
// left.
func (e *Engine) ScanSecrets(ctx context.Context) (more bool, err error) {
	e.scanMu.Lock()
	defer e.scanMu.Unlock()
	det := secrets.Default()
	ver := det.Version()
	var jobs []*scanJob
	err = e.d.Read(ctx, func(tx Tx) error {
		jobs, more = nil, false
		if ok, err := e.haveSecretTables(ctx, tx); err != nil || !ok {
			return err
		}
		type pending struct {
			ID      string         `db:"id"`
			LastSeq int64          `db:"last_seq"`
			Through sql.NullInt64  `db:"through_seq"`
			Rules   sql.NullString `db:"rules"`
		}
		// A new entry, and nothing else, makes a session pending (its
		// seq past the session's scan cursor), and a new entry takes an
		// id above every other: with no entry above the highest id of
		// the last step that found nothing, there is nothing to look for,
		// and looking walks every session (90 ms at 45,000). Only an id
		// taken again after the highest entries were deleted (sqlstore's
		// nextEntryID, while the index lags) escapes that test: the walk
		// is made anyway once scanQuietRecheck has passed.
		var top int64
		if err := tx.GetContext(ctx, &top, `SELECT coalesce(max(id), 0) FROM entries`); err != nil {
			return err
		}
		if e.scanQuiet != 0 && top == e.scanQuiet && time.Since(e.scanQuietAt) < scanQuietRecheck {
			return nil
		}
		var ps []pending
		// From scanFrom to the end, then from the start (a session
		// before it may have grown meanwhile).
		for _, cmp := range []string{">=", "<"} {
			if cmp == "<" && e.scanFrom == "" {
				break
			}
			var part []pending
			if err := tx.SelectContext(ctx, &part, `SELECT s.id, s.last_seq, c.through_seq, c.rules FROM sessions s
				LEFT JOIN secret_scans c ON c.session_id = s.id
				WHERE s.id `+cmp+` ? AND (s.last_seq > coalesce(c.through_seq, 0) OR (c.rules IS NOT NULL AND c.rules <> ?))
				ORDER BY s.id LIMIT ?`, e.scanFrom, ver, scanBatchSessions+1-len(ps)); err != nil {
				return err
			}
			if ps = append(ps, part...); len(ps) > scanBatchSessions {
				break
			}
		}
		if len(ps) == 0 {
			e.scanQuiet, e.scanQuietAt = top, time.Now()
			return nil
		}
		if len(ps) > scanBatchSessions {
			ps, more = ps[:scanBatchSessions], true
		}
		budget := scanBatchBytes
		for _, p := range ps {
			if budget <= 0 {
				more = true
				break
			}
			j := &scanJob{id: p.ID, known: p.Through.Valid, through: p.Through.Int64, rules: p.Rules.String}
			j.from = j.through + 1
			if j.rules != ver {
				j.from = 1
			}
			rows, err := tx.QueryContext(ctx, `SELECT id, seq, body FROM entries WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?`,
				p.ID, j.from, scanBatchRows)
			if err != nil {
				return err
			}
			n, cut := 0, false
			j.upto = p.LastSeq
			for rows.Next() {
				if budget <= 0 {
					cut = true
					break
				}
				var r scanRow
				var seq int64
				if err := rows.Scan(&r.id, &seq, &r.body); err != nil {
					rows.Close()
					return err
				}
				j.rows = append(j.rows, r)
				j.upto = seq
				j.maxID = max(j.maxID, r.id)
				budget -= len(r.body)
				n++
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			if !cut && n < scanBatchRows {
				j.upto = p.LastSeq // every entry up to the end was read
			} else {
				more = true
			}
			jobs = append(jobs, j)
		}
		// The next step starts at the last session read (which may have
		// more to read: it is looked at again, and passed over if not).
		e.scanFrom = jobs[len(jobs)-1].id
		return nil
	})
	if err != nil || len(jobs) == 0 {
		return more, err
	}
	for _, j := range jobs {
		for i := range j.rows {
			j.rows[i].spans = det.FindJSON(j.rows[i].body)
		}
	}
	err = e.d.Write(ctx, func(tx Tx) error {
		for _, j := range jobs {
			// Rows the step did not read may have taken the place of
			// those it read (a copy replaced the session): they have
			// higher ids. Then the session waits for the next step.
			var newer int
			if err := tx.GetContext(ctx, &newer, `SELECT count(*) FROM entries WHERE session_id = ? AND seq BETWEEN ? AND ? AND id > ?`,
				j.id, j.from, j.upto, j.maxID); err != nil {
				return err
			}
			if newer > 0 {
				continue
			}
			var res sql.Result
			var err error
			if j.known {
				res, err = tx.ExecContext(ctx, `UPDATE secret_scans SET through_seq = ?, rules = ?
					WHERE session_id = ? AND through_seq = ? AND rules = ?`, j.upto, ver, j.id, j.through, j.rules)
			} else {
				res, err = tx.ExecContext(ctx, `INSERT INTO secret_scans (session_id, through_seq, rules)
					SELECT CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS TEXT) WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?)
					ON CONFLICT (session_id) DO NOTHING`,
					j.id, j.upto, ver, j.id)
			}
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				if err != nil {
					return err
				}
				continue // another scanner (or a scrub) went first
			}
			// Spans of an older rule set (from 1), or stale ones, go.
			if _, err := tx.ExecContext(ctx, `DELETE FROM secret_spans WHERE entry_id IN
				(SELECT id FROM entries WHERE session_id = ? AND seq >= ?)`, j.id, j.from); err != nil {
				return err
			}
			for _, r := range j.rows {
				for _, sp := range r.spans {
					if _, err := tx.ExecContext(ctx, `INSERT INTO secret_spans (entry_id, start_byte, end_byte, rule, fingerprint)
						SELECT CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT)
						WHERE EXISTS (SELECT 1 FROM entries WHERE id = ?)`,
						r.id, sp.Start, sp.End, sp.Rule, secrets.Fingerprint(r.body[sp.Start:sp.End]), r.id); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	return more, err
}

// SecretStatus implements sessiondb.SecretKeeper.
func (e *Engine) SecretStatus(ctx context.Context) (int64, error) {
	var n int64
	err := e.d.Read(ctx, func(tx Tx) error {
		ok, err := e.haveSecretTables(ctx, tx)
		if err != nil {
			return err
		}
		if !ok {
			return tx.GetContext(ctx, &n, `SELECT count(*) FROM entries`)
		}
		return tx.GetContext(ctx, &n, `SELECT count(*) FROM entries e LEFT JOIN secret_scans c ON c.session_id = e.session_id
			WHERE c.session_id IS NULL OR e.seq > c.through_seq OR c.rules <> ?`, secrets.Default().Version())
	})
	if err != nil {
		return 0, fmt.Errorf("secret status: %w", err)
	}
	return n, nil
}

// Secrets implements sessiondb.SecretKeeper: the stored spans of the
// scanned entries, the entries not scanned yet and the summary messages
// scanned now, grouped by session and fingerprint in one read
// transaction.
func (e *Engine) Secrets(ctx context.Context, q sessiondb.SecretQuery) ([]sessiondb.SecretFound, error) {
	det := secrets.Default()
	ver := det.Version()
	var out []sessiondb.SecretFound
	err := e.d.Read(ctx, func(tx Tx) error {
		out = nil
		session := q.SessionID
		if session != "" {
			var err error
			if session, err = e.resolveKey(ctx, tx, session); err != nil {
				return err
			}
		}
		type key struct{ session, fp string }
		index := map[key]int{}
		// sighting adds one sighting; body[s:e] is the secret.
		sighting := func(sessionID string, seq int64, at string, rule string, body []byte, s, e int, fp string) {
			if q.Rule != "" && rule != q.Rule {
				return
			}
			if fp == "" {
				fp = secrets.Fingerprint(body[s:e])
			}
			k := key{sessionID, fp}
			i, ok := index[k]
			if !ok {
				index[k] = len(out)
				out = append(out, sessiondb.SecretFound{SessionID: sessionID, Rule: rule, Fingerprint: fp,
					Masked: secrets.Mask(string(body[s:e])), FirstSeq: seq, FirstAt: ParseTime(at)})
				i = len(out) - 1
			}
			f := &out[i]
			f.Count++
			if seq != 0 && (f.FirstSeq == 0 || seq < f.FirstSeq) {
				f.FirstSeq, f.FirstAt, f.Rule = seq, ParseTime(at), rule
				f.Masked = secrets.Mask(string(body[s:e]))
			}
		}
		tables, err := e.haveSecretTables(ctx, tx)
		if err != nil {
			return err
		}
		filter, args := "", []any{}
		if session != "" {
			filter, args = " AND e.session_id = ?", []any{session}
		}
		if tables {
			// Stored spans, one query; the bodies of their entries are
			// read for the masked form.
			type stored struct {
				ID          int64  `db:"id"`
				SessionID   string `db:"session_id"`
				Seq         int64  `db:"seq"`
				At          string `db:"created_at"`
				Rule        string `db:"rule"`
				Fingerprint string `db:"fingerprint"`
				Start       int    `db:"start_byte"`
				End         int    `db:"end_byte"`
			}
			var spans []stored
			if err := tx.SelectContext(ctx, &spans, `SELECT e.id, e.session_id, e.seq, e.created_at, p.rule, p.fingerprint, p.start_byte, p.end_byte
				FROM secret_spans p JOIN entries e ON e.id = p.entry_id
				JOIN secret_scans c ON c.session_id = e.session_id AND e.seq <= c.through_seq AND c.rules = ?
				WHERE 1 = 1`+filter+` ORDER BY e.session_id, e.seq, p.start_byte`, append([]any{ver}, args...)...); err != nil {
				return err
			}
			var body []byte
			bodyOf := int64(-1)
			for _, s := range spans {
				if s.ID != bodyOf {
					if err := tx.GetContext(ctx, &body, `SELECT body FROM entries WHERE id = ?`, s.ID); err != nil {
						return err
					}
					bodyOf = s.ID
				}
				if s.Start < 0 || s.End > len(body) || s.Start >= s.End {
					continue
				}
				sighting(s.SessionID, s.Seq, s.At, s.Rule, body, s.Start, s.End, s.Fingerprint)
			}
		}
		// Entries not scanned yet.
		unscanned := `SELECT e.session_id, e.seq, e.created_at, e.body FROM entries e WHERE 1 = 1` + filter
		uargs := args
		if tables {
			unscanned = `SELECT e.session_id, e.seq, e.created_at, e.body FROM entries e
				LEFT JOIN secret_scans c ON c.session_id = e.session_id
				WHERE (c.session_id IS NULL OR e.seq > c.through_seq OR c.rules <> ?)` + filter
			uargs = append([]any{ver}, args...)
		}
		if err := scanRows(ctx, tx, unscanned+` ORDER BY e.session_id, e.seq`, uargs, func(sessionID string, seq int64, at string, body []byte) {
			for _, sp := range det.FindJSON(body) {
				sighting(sessionID, seq, at, sp.Rule, body, sp.Start, sp.End, "")
			}
		}); err != nil {
			return err
		}
		// Summary messages, scanned now.
		sfilter := ""
		if session != "" {
			sfilter = " WHERE c.session_id = ?"
		}
		return scanRows(ctx, tx, `SELECT c.session_id, 0, m.created_at, m.body FROM summary_messages m
			JOIN compactions c ON c.id = m.compaction_id`+sfilter+` ORDER BY c.session_id, m.id`, args,
			func(sessionID string, seq int64, at string, body []byte) {
				for _, sp := range det.FindJSON(body) {
					sighting(sessionID, 0, at, sp.Rule, body, sp.Start, sp.End, "")
				}
			})
	})
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	sortFound(out)
	return out, nil
}

// scanRows runs q (selecting session id, seq, created_at, body) and
// calls fn for each row, without holding more than one body.
func scanRows(ctx context.Context, tx Tx, q string, args []any, fn func(sessionID string, seq int64, at string, body []byte)) error {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, at string
		var seq int64
		var body []byte
		if err := rows.Scan(&id, &seq, &at, &body); err != nil {
			return err
		}
		fn(id, seq, at, body)
	}
	return rows.Err()
}

// sortFound orders findings by session, then first sighting (summary
// messages, seq 0, last), then fingerprint.
func sortFound(fs []sessiondb.SecretFound) {
	rank := func(seq int64) int64 {
		if seq == 0 {
			return 1<<63 - 1
		}
		return seq
	}
	slices.SortFunc(fs, func(a, b sessiondb.SecretFound) int {
		switch {
		case a.SessionID != b.SessionID:
			return strings.Compare(a.SessionID, b.SessionID)
		case rank(a.FirstSeq) != rank(b.FirstSeq):
			if rank(a.FirstSeq) < rank(b.FirstSeq) {
				return -1
			}
			return 1
		default:
			return strings.Compare(a.Fingerprint, b.Fingerprint)
		}
	})
}

// Scrub implements sessiondb.SecretKeeper. In one write transaction it
// reads the session's entries that hold secrets (stored spans, or a scan
// of those after the cursor) and its summary messages, and writes each
// redacted body as a new row in place of the old one (same session, seq,
// kind, role and time; a new row id): the deferred search index of SQLite
// sees a deleted row (removed from the index, trigger entries_unindex)
// and a new one (indexed), so the index no longer holds the secret's
// trigrams, and on PostgreSQL the trigram index follows the rows. The
// spans of the old rows go with them; the cursor moves to the end of the
// log, the scrub is recorded and the Sequence bumped.
func (e *Engine) Scrub(ctx context.Context, id string) (sessiondb.ScrubRecord, error) {
	det := secrets.Default()
	ver := det.Version()
	var rec sessiondb.ScrubRecord
	err := e.d.Write(ctx, func(tx Tx) error {
		rid, err := e.resolveKey(ctx, tx, id)
		if err != nil {
			return err
		}
		if ok, err := e.haveSecretTables(ctx, tx); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("%w: the schema has no secret tables (run sessionctl migrate)", sessiondb.ErrInvalid)
			}
			return err
		}
		sess, err := e.d.LockSession(ctx, tx, rid)
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		rec = sessiondb.ScrubRecord{SessionID: rid, At: now, Rules: map[string]int{}}
		through, err := e.scannedThrough(ctx, tx, rid)
		if err != nil {
			return err
		}
		type rewrite struct {
			id, seq         int64
			kind, role, at  string
			body            []byte
			compaction, pos int64
		}
		var rewrites []rewrite
		// Entries: those with stored spans, and every one after the cursor.
		rows, err := tx.QueryContext(ctx, `SELECT e.id, e.seq, e.kind, e.role, e.created_at, e.body FROM entries e
			WHERE e.session_id = ? AND (e.seq > ? OR EXISTS (SELECT 1 FROM secret_spans p WHERE p.entry_id = e.id))
			ORDER BY e.seq`, rid, through)
		if err != nil {
			return err
		}
		for rows.Next() {
			var w rewrite
			if err := rows.Scan(&w.id, &w.seq, &w.kind, &w.role, &w.at, &w.body); err != nil {
				rows.Close()
				return err
			}
			if w.seq > through {
				// Scanned here; stored spans are read below.
				spans := det.FindJSON(w.body)
				if len(spans) == 0 {
					continue
				}
				for _, s := range spans {
					rec.Rules[s.Rule]++
					rec.Secrets++
				}
				w.body = secrets.Redact(w.body, spans)
			} else {
				w.body = nil // stored spans: read after the rows are closed
			}
			rewrites = append(rewrites, w)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for i := range rewrites {
			w := &rewrites[i]
			if w.body != nil {
				continue
			}
			var body []byte
			if err := tx.GetContext(ctx, &body, `SELECT body FROM entries WHERE id = ?`, w.id); err != nil {
				return err
			}
			var spans []secrets.Span
			if err := tx.SelectContext(ctx, &spans, `SELECT rule AS "rule", start_byte AS "start", end_byte AS "end" FROM secret_spans WHERE entry_id = ?`, w.id); err != nil {
				return err
			}
			for _, s := range spans {
				rec.Rules[s.Rule]++
				rec.Secrets++
			}
			w.body = secrets.Redact(body, spans)
		}
		for _, w := range rewrites {
			if _, err := tx.ExecContext(ctx, `DELETE FROM entries WHERE id = ?`, w.id); err != nil {
				return err
			}
			kind, role, text := e.d.Describe(sessiondb.Entry{Kind: w.kind, Role: w.role, Body: w.body})
			row := Row{Kind: kind, Role: role, Text: e.sql.EntryText.Arg(text, w.body), Body: w.body, CreatedAt: ParseTime(w.at)}
			var next int64
			if e.sql.NextEntryID != "" {
				if err := tx.GetContext(ctx, &next, e.sql.NextEntryID); err != nil {
					return err
				}
			}
			for _, in := range EntryInserts(rid, w.seq-1, next, e.sql.EntryText, []Row{row}, now) {
				if _, err := tx.ExecContext(ctx, in.Query, in.Args...); err != nil {
					return fmt.Errorf("rewrite entry %d: %w", w.seq, err)
				}
			}
			rec.Entries++
		}
		// Summary messages of the session's compactions.
		var sums []rewrite
		srows, err := tx.QueryContext(ctx, `SELECT m.id, m.compaction_id, m.position, m.kind, m.role, m.created_at, m.body
			FROM summary_messages m JOIN compactions c ON c.id = m.compaction_id WHERE c.session_id = ? ORDER BY m.id`, rid)
		if err != nil {
			return err
		}
		for srows.Next() {
			var w rewrite
			if err := srows.Scan(&w.id, &w.compaction, &w.pos, &w.kind, &w.role, &w.at, &w.body); err != nil {
				srows.Close()
				return err
			}
			spans := det.FindJSON(w.body)
			if len(spans) == 0 {
				continue
			}
			for _, s := range spans {
				rec.Rules[s.Rule]++
				rec.Secrets++
			}
			w.body = secrets.Redact(w.body, spans)
			sums = append(sums, w)
		}
		srows.Close()
		if err := srows.Err(); err != nil {
			return err
		}
		for _, w := range sums {
			if _, err := tx.ExecContext(ctx, `DELETE FROM summary_messages WHERE id = ?`, w.id); err != nil {
				return err
			}
			_, role, text := e.d.Describe(sessiondb.Entry{Kind: w.kind, Role: w.role, Body: w.body})
			if _, err := tx.ExecContext(ctx, `INSERT INTO summary_messages (compaction_id, position, kind, role, text, body, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?)`, w.compaction, w.pos, w.kind, role, text, string(w.body), w.at); err != nil {
				return fmt.Errorf("rewrite summary message: %w", err)
			}
			rec.Entries++
		}
		// Everything up to the end of the log is scanned now.
		if _, err := tx.ExecContext(ctx, `INSERT INTO secret_scans (session_id, through_seq, rules) VALUES (?, ?, ?)
			ON CONFLICT (session_id) DO UPDATE SET through_seq = excluded.through_seq, rules = excluded.rules`, rid, sess.LastSeq, ver); err != nil {
			return err
		}
		if rec.Entries == 0 {
			return nil
		}
		rules, err := json.Marshal(rec.Rules)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO scrubs (session_id, scrubbed_at, entries, secrets, rules) VALUES (?, ?, ?, ?, ?)`,
			rid, FormatTime(now), rec.Entries, rec.Secrets, string(rules)); err != nil {
			return err
		}
		// The preview is cut from a body rewritten here: find it again.
		cur, err := currentCompaction(ctx, tx, rid)
		if err != nil {
			return err
		}
		preview, err := PreviewFrom(ctx, tx, rid, cur.KeepFromSeq, sess.LastSeq)
		if err != nil {
			return err
		}
		_, err = e.d.FinishCommit(ctx, tx, rid, sess, Finish{Changed: true, LastSeq: sess.LastSeq,
			MessageCount: sess.MessageCount, EntryCount: sess.EntryCount, UpdatedAt: sess.UpdatedAt,
			Preview: preview, SetPreview: true})
		return err
	})
	if err != nil {
		return sessiondb.ScrubRecord{}, fmt.Errorf("scrub %s: %w", id, err)
	}
	return rec, nil
}

// Scrubs implements sessiondb.SecretKeeper.
func (e *Engine) Scrubs(ctx context.Context) ([]sessiondb.ScrubRecord, error) {
	var out []sessiondb.ScrubRecord
	err := e.d.Read(ctx, func(tx Tx) error {
		out = nil
		if ok, err := e.haveSecretTables(ctx, tx); err != nil || !ok {
			return err
		}
		var rows []struct {
			SessionID string `db:"session_id"`
			At        string `db:"scrubbed_at"`
			Entries   int    `db:"entries"`
			Secrets   int    `db:"secrets"`
			Rules     string `db:"rules"`
		}
		if err := tx.SelectContext(ctx, &rows, `SELECT session_id, scrubbed_at, entries, secrets, rules FROM scrubs ORDER BY id`); err != nil {
			return err
		}
		for _, r := range rows {
			rec := sessiondb.ScrubRecord{SessionID: r.SessionID, At: ParseTime(r.At), Entries: r.Entries, Secrets: r.Secrets}
			if err := json.Unmarshal([]byte(r.Rules), &rec.Rules); err != nil {
				return fmt.Errorf("scrub record of %s: %w", r.SessionID, err)
			}
			out = append(out, rec)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scrubs: %w", err)
	}
	return out, nil
}
