package storetest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
)

// Session.MessageCount and Session.EntryCount are kept by the store, not
// counted on read: these tests check the kept values against a recount
// from Load, Entries and Compactions.
func countTests() []testCase {
	tests := []testCase{{name: "MessageKinds", fn: testCountsMessageKinds}}
	for i, seed := range countsSeeds() {
		tests = append(tests, testCase{name: fmt.Sprintf("RandomOps-%d", i+1), fn: func(t *testing.T, s sessiondb.Store) {
			testCountsRandomOps(t, s, seed)
		}})
	}
	return tests
}

// isMessage is the rule the tests recount with, written out here rather
// than borrowed from a backend: KindMessage and KindCustom are messages,
// every other kind is not.
func isMessage(e sessiondb.Entry) bool {
	return e.Kind == sessiondb.KindMessage || e.Kind == sessiondb.KindCustom
}

func countOf(es []sessiondb.Entry) int64 {
	var n int64
	for _, e := range es {
		if isMessage(e) {
			n++
		}
	}
	return n
}

// testCountsMessageKinds: MessageCount counts messages (kinds message and
// custom, an empty kind being message), summary messages by the same
// rule; EntryCount counts rows.
func testCountsMessageKinds(t *testing.T, s sessiondb.Store) {
	es := []sessiondb.Entry{
		{Kind: sessiondb.KindMessage, Body: raw(msgBody(1))},
		{Kind: sessiondb.KindCustom, Body: raw(`{"custom":1}`)},
		{Body: raw(msgBody(3))}, // empty kind: a message
		{Kind: "progress", Body: raw(`{"p":1}`)},
		{Kind: "model_change", Body: raw(`{"model":"x"}`)},
		{Kind: sessiondb.KindMessagePart, Body: raw(`{"role":"assistant","content":[{"type":"text","text":"more"}]}`)},
		{Kind: "label", Body: raw(`{"label":"l"}`)},
		{Kind: "file-history-snapshot", Body: raw(`{"snapshot":{}}`)},
	}
	got, err := s.Commit(bg(t), "k", sessiondb.Commit{CreateIfMissing: &sessiondb.Session{}, Append: es})
	if err != nil {
		t.Fatal(err)
	}
	wantCounts(t, s, "k", got, 3, 8, "after appending 3 messages and 5 other entries")
	// The transcript keeps entries 2..8 behind a summary of a message and
	// a label: custom + the summary's message.
	got, err = s.Compact(bg(t), "k", sessiondb.Compaction{KeepFromSeq: 2,
		Summary: []sessiondb.Entry{{Body: raw(`{"role":"user","content":"summary"}`)}, {Kind: "label", Body: raw(`{"l":2}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	wantCounts(t, s, "k", got, 3, 8, "after a compaction keeping 2..8 with a 2-entry summary")
	// Truncate keeps entries, whatever their kind: the last 3 are none.
	if got, err = s.Truncate(bg(t), "k", 3); err != nil {
		t.Fatal(err)
	}
	if tr := mustLoad(t, s, "k", sessiondb.LoadOptions{}); len(tr) != 3 {
		t.Errorf("Truncate(3) left %d transcript entries", len(tr))
	}
	wantCounts(t, s, "k", got, 0, 8, "after Truncate(3) of bookkeeping entries")
	if removed, err := s.Prune(bg(t), "k"); err != nil || removed != 5 {
		t.Fatalf("Prune removed %d rows, %v; want 5", removed, err)
	}
	wantCounts(t, s, "k", mustGet(t, s, "k"), 0, 3, "after Prune")
}

// wantCounts checks the counts of the Session a write returned and of
// every read against messages and entries, and against a recount.
func wantCounts(t *testing.T, s sessiondb.Store, id string, returned sessiondb.Session, messages, entries int64, what string) {
	t.Helper()
	if returned.MessageCount != messages || returned.EntryCount != entries {
		t.Errorf("%s: the write returned counts %d/%d, want %d/%d", what, returned.MessageCount, returned.EntryCount, messages, entries)
	}
	if _, err := checkCounts(t, s, id); err != nil {
		t.Errorf("%s: %v", what, err)
	}
	if g := mustGet(t, s, id); g.MessageCount != messages || g.EntryCount != entries {
		t.Errorf("%s: Get counts %d/%d, want %d/%d", what, g.MessageCount, g.EntryCount, messages, entries)
	}
}

// recount counts a session's messages and entries from what the store
// returns: MessageCount from Load, and again from Compactions and Entries
// (the current compaction's summary, then the entries from its
// KeepFromSeq); EntryCount from Entries. It fails when the two message
// counts disagree.
func recount(t *testing.T, s sessiondb.Store, id string) (messages, entries int64, err error) {
	ctx := bg(t)
	tr, err := s.Load(ctx, id, sessiondb.LoadOptions{})
	if err != nil {
		return 0, 0, fmt.Errorf("Load(%q): %w", id, err)
	}
	log, err := s.Entries(ctx, id, 0, 0)
	if err != nil {
		return 0, 0, fmt.Errorf("Entries(%q): %w", id, err)
	}
	cps, err := s.Compactions(ctx, id)
	if err != nil {
		return 0, 0, fmt.Errorf("Compactions(%q): %w", id, err)
	}
	keep, again := int64(1), int64(0)
	if len(cps) > 0 {
		cur := cps[len(cps)-1]
		keep, again = cur.KeepFromSeq, countOf(cur.Summary)
	}
	for _, e := range log {
		if e.Seq >= keep && isMessage(e) {
			again++
		}
	}
	messages = countOf(tr)
	if messages != again {
		return 0, 0, fmt.Errorf("%s: Load holds %d messages, Compactions and Entries %d", id, messages, again)
	}
	return messages, int64(len(log)), nil
}

// checkCounts compares Get, LoadFull and (when the store has it) Lookup
// with a recount of session id.
func checkCounts(t *testing.T, s sessiondb.Store, id string) (recounted sessiondb.Session, err error) {
	m, n, err := recount(t, s, id)
	if err != nil {
		return recounted, err
	}
	ctx := bg(t)
	g, err := s.Get(ctx, id)
	if err != nil {
		return recounted, fmt.Errorf("Get(%q): %w", id, err)
	}
	if g.MessageCount != m || g.EntryCount != n {
		return recounted, fmt.Errorf("%s: Get says %d messages, %d entries; a recount %d, %d", id, g.MessageCount, g.EntryCount, m, n)
	}
	f, err := s.LoadFull(ctx, id, sessiondb.LoadOptions{LastN: 3})
	if err != nil {
		return recounted, fmt.Errorf("LoadFull(%q): %w", id, err)
	}
	if f.Session.MessageCount != m || f.Session.EntryCount != n {
		return recounted, fmt.Errorf("%s: LoadFull says %d messages, %d entries; a recount %d, %d", id, f.Session.MessageCount, f.Session.EntryCount, m, n)
	}
	if lk, ok := s.(sessiondb.SessionLookup); ok {
		l, err := lk.Lookup(ctx, id)
		if err != nil {
			return recounted, fmt.Errorf("Lookup(%q): %w", id, err)
		}
		if l.MessageCount != m || l.EntryCount != n {
			return recounted, fmt.Errorf("%s: Lookup says %d messages, %d entries; a recount %d, %d", id, l.MessageCount, l.EntryCount, m, n)
		}
	}
	return g, nil
}

// countsSeeds are the seeds of the RandomOps tests (each on its own store,
// in parallel): fixed ones, so that a failure can be replayed, and one
// from the clock, so that every run explores a new sequence too.
// $SESSIONDB_COUNTS_SEED runs that seed alone (an invalid value runs seed
// 0, which fails with a message saying so).
func countsSeeds() []uint64 {
	if env := os.Getenv("SESSIONDB_COUNTS_SEED"); env != "" {
		seed, err := strconv.ParseUint(env, 10, 64)
		if err != nil {
			return []uint64{0}
		}
		return []uint64{seed}
	}
	if !longtest.Enabled() {
		// The quick run: one fixed seed and one new one.
		return []uint64{1, uint64(time.Now().UnixNano())}
	}
	return []uint64{1, 2, 3, uint64(time.Now().UnixNano())}
}

// countsOpsPerSeed is how many random operations RandomOps runs per seed:
// 300 in the long run, 120 in the quick one (see internal/longtest).
var countsOpsPerSeed = longtest.Size(120, 300)

// testCountsRandomOps runs seeded random sequences of writes — appends of
// mixed kinds, commits with KeepLast, compactions with and without summaries
// of mixed kinds (several in one commit too), SetHistory (both as a new
// history and as an extension of the transcript), History with Append and
// KeepLast, Truncate, Prune, Fork at random points, checkpoint Restore in
// place and as a fork, CommitMany (some refused whole by a stale
// sequence), PutSession of a dump (as a copy, and in place with wrong
// counts in its Session), Delete and invalid writes — and after every one
// checks that the kept counts of every session (what Get, LoadFull, Lookup
// and List return, and what the write returned) equal a recount.
func testCountsRandomOps(t *testing.T, s sessiondb.Store, seed uint64) {
	if seed == 0 {
		t.Fatalf("SESSIONDB_COUNTS_SEED=%q is not a seed (a positive integer)", os.Getenv("SESSIONDB_COUNTS_SEED"))
	}
	r := &countsRun{t: t, s: s, seed: seed, rng: rand.New(rand.NewPCG(seed, seed^0x5e55))}
	r.run(countsOpsPerSeed)
	if !t.Failed() {
		t.Logf("seed %d: %d operations, each followed by a recount of every session: %v", seed, countsOpsPerSeed, r.done)
	}
}

type countsRun struct {
	t    *testing.T
	s    sessiondb.Store
	seed uint64
	rng  *rand.Rand
	ids  []string // live sessions
	cps  []string // checkpoints saved (some may be gone)
	made int      // sessions and checkpoints named so far
	body int      // bodies written so far
	step int
	op   string         // the operation running, for failure messages
	kind string         // its kind, for the tally
	done map[string]int // operations that succeeded, by kind (logged)
}

func (r *countsRun) fatalf(format string, args ...any) {
	r.t.Helper()
	r.t.Fatalf("seed %d, step %d (%s): %s\nreplay with SESSIONDB_COUNTS_SEED=%d and -run '/Counts/RandomOps'",
		r.seed, r.step, r.op, fmt.Sprintf(format, args...), r.seed)
}

// kinds are drawn for entries and summary messages; messages are the
// most common, as in real logs.
var randomKinds = []string{"", sessiondb.KindMessage, sessiondb.KindMessage, sessiondb.KindMessage, sessiondb.KindCustom,
	"progress", "model_change", sessiondb.KindMessagePart, "label", "file-history-snapshot", "turn_context"}

func (r *countsRun) entries(n int) []sessiondb.Entry {
	es := make([]sessiondb.Entry, n)
	for i := range es {
		r.body++
		es[i] = sessiondb.Entry{Kind: randomKinds[r.rng.IntN(len(randomKinds))],
			Body: raw(fmt.Sprintf(`{"role":"user","content":"body %d"}`, r.body))}
	}
	return es
}

func (r *countsRun) newID() string {
	r.made++
	return fmt.Sprintf("r%d", r.made)
}

func (r *countsRun) pick() string { return r.ids[r.rng.IntN(len(r.ids))] }

func (r *countsRun) get(id string) sessiondb.Session {
	r.t.Helper()
	g, err := r.s.Get(bg(r.t), id)
	if err != nil {
		r.fatalf("Get(%q): %v", id, err)
	}
	return g
}

// wrote checks the Session a write returned against a recount.
func (r *countsRun) wrote(got sessiondb.Session, err error) {
	r.t.Helper()
	if err != nil {
		r.fatalf("%v", err)
	}
	m, n, err := recount(r.t, r.s, got.ID)
	if err != nil {
		r.fatalf("%v", err)
	}
	if got.MessageCount != m || got.EntryCount != n {
		r.fatalf("%s: the write returned %d messages, %d entries; a recount %d, %d", got.ID, got.MessageCount, got.EntryCount, m, n)
	}
	r.tally()
}

// tally counts the current operation as done, by kind.
func (r *countsRun) tally() { r.done[r.kind]++ }

// refused checks that a write failed with one of the errors allowed.
func (r *countsRun) refused(err error, allowed ...error) {
	r.t.Helper()
	if err == nil {
		r.fatalf("succeeded; want one of %v", allowed)
	}
	for _, a := range allowed {
		if errors.Is(err, a) {
			return
		}
	}
	r.fatalf("%v; want one of %v", err, allowed)
}

func (r *countsRun) run(ops int) {
	ctx := bg(r.t)
	r.done = map[string]int{}
	for i := 0; i < 3; i++ {
		id := r.newID()
		r.op = "create " + id
		r.kind = "create"
		r.wrote(r.s.Commit(ctx, id, sessiondb.Commit{CreateIfMissing: &sessiondb.Session{}, Append: r.entries(r.rng.IntN(8))}))
		r.ids = append(r.ids, id)
	}
	for r.step = 1; r.step <= ops; r.step++ {
		r.once()
		r.checkAll()
	}
}

// once runs one random operation.
func (r *countsRun) once() {
	ctx := bg(r.t)
	id := r.pick()
	sess := r.get(id)
	last := sess.LastSeq
	p := r.rng.IntN(100)
	if len(r.ids) > 8 {
		p = 93 // forks and copies made many sessions: delete one
	}
	switch {
	case p < 25:
		r.op = "append to " + id
		r.kind = "append"
		r.wrote(r.s.Append(ctx, id, r.entries(1+r.rng.IntN(5))...))
	case p < 32:
		keep := r.rng.IntN(int(sess.EntryCount) + 3)
		r.op = fmt.Sprintf("commit to %s: append and keep the last %d", id, keep)
		r.kind = "append+keep-last"
		r.wrote(r.s.Commit(ctx, id, sessiondb.Commit{Append: r.entries(r.rng.IntN(4)), KeepLast: sessiondb.Keep(keep)}))
	case p < 42:
		appended := r.entries(r.rng.IntN(3))
		end := last + int64(len(appended))
		cp := sessiondb.Compaction{KeepFromSeq: 1 + r.rng.Int64N(end+1)}
		if r.rng.IntN(2) == 0 {
			cp.Summary = r.entries(1 + r.rng.IntN(3))
		}
		r.op = fmt.Sprintf("compact %s from %d (%d summary messages, %d appended)", id, cp.KeepFromSeq, len(cp.Summary), len(appended))
		r.kind = "compact"
		if len(appended) == 0 {
			r.wrote(r.s.Compact(ctx, id, cp))
		} else {
			r.wrote(r.s.Commit(ctx, id, sessiondb.Commit{Append: appended, Compactions: []sessiondb.Compaction{cp}}))
		}
	case p < 45:
		// Two compactions in one commit: the second defines the transcript.
		a := sessiondb.Compaction{KeepFromSeq: 1 + r.rng.Int64N(last+1), Summary: r.entries(r.rng.IntN(3))}
		b := sessiondb.Compaction{KeepFromSeq: 1 + r.rng.Int64N(last+1), Summary: r.entries(r.rng.IntN(3))}
		r.op = fmt.Sprintf("commit two compactions to %s (from %d, then %d)", id, a.KeepFromSeq, b.KeepFromSeq)
		r.kind = "two compactions"
		r.wrote(r.s.Commit(ctx, id, sessiondb.Commit{Compactions: []sessiondb.Compaction{a, b}}))
	case p < 51:
		var history []sessiondb.Entry
		if r.rng.IntN(2) == 0 {
			// The transcript and more: only the tail is appended when the
			// transcript has no summary.
			for _, e := range mustLoad(r.t, r.s, id, sessiondb.LoadOptions{}) {
				history = append(history, sessiondb.Entry{Kind: e.Kind, Body: e.Body})
			}
		}
		history = append(history, r.entries(r.rng.IntN(5))...)
		r.op = fmt.Sprintf("set the history of %s (%d entries)", id, len(history))
		r.kind = "set history"
		r.wrote(r.s.SetHistory(ctx, id, history))
	case p < 54:
		keep := r.rng.IntN(6)
		r.op = fmt.Sprintf("commit to %s: history, append, keep the last %d", id, keep)
		r.kind = "history+append+keep-last"
		r.wrote(r.s.Commit(ctx, id, sessiondb.Commit{History: r.entries(r.rng.IntN(5)), Append: r.entries(r.rng.IntN(3)), KeepLast: sessiondb.Keep(keep)}))
	case p < 60:
		keep := r.rng.IntN(int(sess.EntryCount) + 3)
		r.op = fmt.Sprintf("truncate %s to %d", id, keep)
		r.kind = "truncate"
		r.wrote(r.s.Truncate(ctx, id, keep))
	case p < 66:
		r.op = "prune " + id
		r.kind = "prune"
		removed, err := r.s.Prune(ctx, id)
		if err != nil {
			r.fatalf("%v", err)
		}
		if after := r.get(id); after.EntryCount != sess.EntryCount-removed {
			r.fatalf("Prune removed %d rows: EntryCount %d -> %d", removed, sess.EntryCount, after.EntryCount)
		}
		if removed > 0 {
			r.tally()
		}
	case p < 71:
		at := r.rng.Int64N(last + 1)
		child := r.newID()
		r.op = fmt.Sprintf("fork %s at %d as %s", id, at, child)
		r.kind = "fork"
		got, err := r.s.Fork(ctx, id, at, child)
		if err != nil {
			r.refused(err, sessiondb.ErrInvalid) // entries pruned since
			return
		}
		r.wrote(got, nil)
		r.ids = append(r.ids, child)
	case p < 76:
		cp := sessiondb.Checkpoint{ID: r.newID() + "-cp", SessionID: id, AtSeq: r.rng.Int64N(last + 1)}
		r.op = fmt.Sprintf("checkpoint %s at %d", id, cp.AtSeq)
		r.kind = "checkpoint"
		if _, err := r.s.SaveCheckpoint(ctx, cp); err != nil {
			r.fatalf("%v", err)
		}
		r.cps = append(r.cps, cp.ID)
		r.tally()
	case p < 82:
		if len(r.cps) == 0 {
			return
		}
		cp := r.cps[r.rng.IntN(len(r.cps))]
		opts := sessiondb.RestoreOptions{AsFork: r.rng.IntN(2) == 0}
		if opts.AsFork {
			opts.NewID = r.newID()
		}
		r.op = fmt.Sprintf("restore %s (as fork: %v)", cp, opts.AsFork)
		r.kind = "restore"
		got, err := r.s.Restore(ctx, cp, opts)
		if err != nil {
			// Its session was deleted; or (ErrInvalid) the checkpoint was
			// saved after a prune, on a transcript whose rows are gone.
			r.refused(err, sessiondb.ErrNotFound, sessiondb.ErrInvalid)
			return
		}
		r.wrote(got, nil)
		if opts.AsFork {
			r.ids = append(r.ids, opts.NewID)
		}
	case p < 88:
		r.commitMany()
	case p < 93:
		r.putSession(id)
	case p < 95:
		if len(r.ids) <= 2 {
			return
		}
		r.op = "delete " + id
		r.kind = "delete"
		if err := r.s.Delete(ctx, id); err != nil {
			r.fatalf("%v", err)
		}
		r.ids = slices.DeleteFunc(r.ids, func(x string) bool { return x == id })
		r.tally()
	case p < 97:
		if len(r.ids) >= 6 {
			return
		}
		nid := r.newID()
		r.op = "create " + nid
		r.kind = "create"
		r.wrote(r.s.Commit(ctx, nid, sessiondb.Commit{CreateIfMissing: &sessiondb.Session{}, History: r.entries(r.rng.IntN(6))}))
		r.ids = append(r.ids, nid)
	default:
		// Invalid writes change nothing.
		r.op = "invalid writes to " + id
		r.kind = "invalid writes"
		_, err := r.s.Commit(ctx, id, sessiondb.Commit{Append: r.entries(2), Compactions: []sessiondb.Compaction{{KeepFromSeq: last + 4}}})
		r.refused(err, sessiondb.ErrInvalid)
		_, err = r.s.Commit(ctx, id, sessiondb.Commit{ExpectSequence: sessiondb.Expect(sess.Sequence + 7), Append: r.entries(1), KeepLast: sessiondb.Keep(0)})
		r.refused(err, sessiondb.ErrConflict)
		if after := r.get(id); after.Sequence != sess.Sequence {
			r.fatalf("refused writes moved Sequence %d -> %d", sess.Sequence, after.Sequence)
		}
		r.tally()
	}
}

// commitMany commits to two or three sessions in one call; one time in
// five the last commit carries a stale sequence and nothing is written.
func (r *countsRun) commitMany() {
	ctx := bg(r.t)
	n := 2 + r.rng.IntN(2)
	var cs []sessiondb.SessionCommit
	for range n {
		id := r.pick()
		c := sessiondb.Commit{Append: r.entries(r.rng.IntN(4))}
		switch r.rng.IntN(3) {
		case 0:
			c.KeepLast = sessiondb.Keep(r.rng.IntN(5))
		case 1:
			// Within what the log holds before any commit of this call.
			c.Compactions = []sessiondb.Compaction{{KeepFromSeq: 1 + r.rng.Int64N(r.get(id).LastSeq+1), Summary: r.entries(r.rng.IntN(2))}}
		}
		cs = append(cs, sessiondb.SessionCommit{ID: id, Commit: c})
	}
	stale := r.rng.IntN(5) == 0
	if stale {
		cs[n-1].Commit.ExpectSequence = sessiondb.Expect(r.get(cs[n-1].ID).Sequence + 3)
	}
	r.op = fmt.Sprintf("commit many (%d commits, stale: %v)", n, stale)
	r.kind = "commit many"
	before := map[string]sessiondb.Session{}
	for _, c := range cs {
		before[c.ID] = r.get(c.ID)
	}
	got, err := r.s.CommitMany(ctx, cs)
	if stale {
		r.refused(err, sessiondb.ErrConflict)
		for id, b := range before {
			if a := r.get(id); a.Sequence != b.Sequence || a.MessageCount != b.MessageCount || a.EntryCount != b.EntryCount {
				r.fatalf("a refused CommitMany changed %s: %+v -> %+v", id, b, a)
			}
		}
		r.op = "commit many refused"
		r.kind = "commit many refused"
		r.tally()
		return
	}
	if err != nil {
		r.fatalf("%v", err)
	}
	// The last commit to each session returned it as the call left it.
	lastOf := map[string]sessiondb.Session{}
	for i, c := range cs {
		lastOf[c.ID] = got[i]
	}
	for _, g := range lastOf {
		r.wrote(g, nil)
	}
}

// putSession writes a dump of id: as a copy under a new ID, or back in
// place with counts in its Session that are wrong (PutSession keeps what
// it stores, not what the dump claims).
func (r *countsRun) putSession(id string) {
	c, ok := r.s.(sessiondb.Copier)
	if !ok {
		return
	}
	ctx := bg(r.t)
	d, err := c.DumpSession(ctx, id)
	if err != nil {
		r.fatalf("DumpSession(%q): %v", id, err)
	}
	d.Session.MessageCount, d.Session.EntryCount = 12345, 54321
	if r.rng.IntN(2) == 0 {
		r.op = "put a dump of " + id + " back in place"
		r.kind = "put in place"
		r.wrote(c.PutSession(ctx, d, sessiondb.Expect(d.Session.Sequence)))
		return
	}
	nid := r.newID()
	r.op = "put a dump of " + id + " as " + nid
	r.kind = "put as copy"
	d.Session.ID = nid
	for i := range d.Checkpoints {
		// A checkpoint ID is global: the copy's are its own.
		d.Checkpoints[i].ID = nid + "-" + d.Checkpoints[i].ID
		d.Checkpoints[i].SessionID = nid
		r.cps = append(r.cps, d.Checkpoints[i].ID)
	}
	r.wrote(c.PutSession(ctx, d, sessiondb.Expect(0)))
	r.ids = append(r.ids, nid)
}

// checkAll compares every live session's kept counts, as Get, LoadFull,
// Lookup and List return them, with a recount.
func (r *countsRun) checkAll() {
	r.t.Helper()
	listed := map[string]sessiondb.SessionInfo{}
	cursor := ""
	for {
		page, next, err := r.s.List(bg(r.t), sessiondb.ListOptions{Limit: 50, Cursor: cursor})
		if err != nil {
			r.fatalf("List: %v", err)
		}
		for _, in := range page {
			listed[in.ID] = in
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if len(listed) != len(r.ids) {
		r.fatalf("List returns %d sessions, want %d", len(listed), len(r.ids))
	}
	for _, id := range r.ids {
		g, err := checkCounts(r.t, r.s, id)
		if err != nil {
			r.fatalf("%v", err)
		}
		if in := listed[id]; in.MessageCount != g.MessageCount || in.EntryCount != g.EntryCount {
			r.fatalf("%s: List says %d messages, %d entries; Get %d, %d", id, in.MessageCount, in.EntryCount, g.MessageCount, g.EntryCount)
		}
	}
}

// WriteCountsFixture writes sessions through s as RandomOps does (ops
// seeded random writes of every kind: mixed kinds, compactions with mixed
// summaries, truncations, prunes, forks, restores, copies), checking the
// counts after each. Backends use it to fill a database before they take
// its schema back to a version without kept counts, then check with
// CheckKeptCounts that migrating up again counts what the store kept.
//
// Three sessions are written as well, whatever the seed: "fixture-empty"
// (no entries), "fixture-bookkeeping" (entries, none a message) and
// "fixture-compacted" (two compactions, the older one with more summary
// messages than the current one, and a log of mixed kinds).
func WriteCountsFixture(t *testing.T, s sessiondb.Store, seed uint64, ops int) {
	t.Helper()
	r := &countsRun{t: t, s: s, seed: seed, rng: rand.New(rand.NewPCG(seed, seed^0x5e55))}
	r.run(ops)
	ctx := bg(t)
	for _, c := range []sessiondb.SessionCommit{
		{ID: "fixture-empty", Commit: sessiondb.Commit{CreateIfMissing: &sessiondb.Session{}}},
		{ID: "fixture-bookkeeping", Commit: sessiondb.Commit{CreateIfMissing: &sessiondb.Session{}, Append: []sessiondb.Entry{
			{Kind: "progress", Body: raw(`{}`)}, {Kind: sessiondb.KindMessagePart, Body: raw(`{}`)}}}},
		{ID: "fixture-compacted", Commit: sessiondb.Commit{CreateIfMissing: &sessiondb.Session{},
			Append: []sessiondb.Entry{sessiondb.Message(msgBody(1)), {Kind: "label", Body: raw(`{}`)}, sessiondb.Message(msgBody(3)),
				{Kind: sessiondb.KindCustom, Body: raw(`{}`)}, {Kind: "progress", Body: raw(`{}`)}, sessiondb.Message(msgBody(6))},
			Compactions: []sessiondb.Compaction{
				{KeepFromSeq: 2, Summary: entriesOf(msgBody(10), msgBody(11), msgBody(12))},
				{KeepFromSeq: 3, Summary: []sessiondb.Entry{{Kind: "label", Body: raw(`{}`)}, sessiondb.Message(msgBody(13))}},
			}}},
	} {
		if _, err := s.Commit(ctx, c.ID, c.Commit); err != nil {
			t.Fatalf("Commit(%q): %v", c.ID, err)
		}
	}
	for id, want := range map[string][2]int64{"fixture-empty": {0, 0}, "fixture-bookkeeping": {0, 2}, "fixture-compacted": {4, 6}} {
		if g := mustGet(t, s, id); g.MessageCount != want[0] || g.EntryCount != want[1] {
			t.Errorf("%s: counts %d/%d, want %d/%d", id, g.MessageCount, g.EntryCount, want[0], want[1])
		}
	}
}

// CheckKeptCounts compares the counts of every session of s, as Get,
// LoadFull, Lookup and List return them, with a recount from Load,
// Entries and Compactions, and returns the sessions as Get returns them,
// by ID.
func CheckKeptCounts(t *testing.T, s sessiondb.Store) map[string]sessiondb.Session {
	t.Helper()
	out := map[string]sessiondb.Session{}
	cursor := ""
	for {
		page, next, err := s.List(bg(t), sessiondb.ListOptions{Limit: 100, Cursor: cursor})
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		for _, in := range page {
			g, err := checkCounts(t, s, in.ID)
			if err != nil {
				t.Error(err)
				g = in.Session
			}
			if in.MessageCount != g.MessageCount || in.EntryCount != g.EntryCount {
				t.Errorf("%s: List says %d messages, %d entries; Get %d, %d", in.ID, in.MessageCount, in.EntryCount, g.MessageCount, g.EntryCount)
			}
			out[in.ID] = g
		}
		if next == "" {
			return out
		}
		cursor = next
	}
}
