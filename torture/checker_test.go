package torture

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// opInfo is one operation as the oracle logs tell it.
type opInfo struct {
	r   record // the intent, with the results of the ack/fail merged in
	st  string // ack, fail or unknown (intent only: maybe committed)
	inc string
	// start is when the intent was logged; end when the outcome was logged,
	// or, for an unknown op, when its process died (MaxInt64 while alive).
	start, end int64
}

type oracle struct {
	openBusy   int
	ops        map[string]*opInfo
	bySid      map[string][]*opInfo // ops targeting a session (Sid), and forks by New
	imports    []*opInfo
	violations []string
	unexpected []string
}

// loadOracle reads every oracle log in dir. deaths maps a worker
// incarnation to the time its process was seen dead; incarnations not in it
// are alive (stopped) during the check.
func loadOracle(dir string, deaths map[string]int64) (*oracle, error) {
	files, err := filepath.Glob(filepath.Join(dir, "oracle-*.jsonl"))
	if err != nil {
		return nil, err
	}
	o := &oracle{ops: map[string]*opInfo{}, bySid: map[string][]*opInfo{}}
	for _, f := range files {
		inc := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "oracle-"), ".jsonl")
		recs, err := readOracle(f)
		if err != nil {
			return nil, err
		}
		death, dead := deaths[inc]
		if !dead {
			death = math.MaxInt64
		}
		for _, r := range recs {
			switch r.T {
			case "violation":
				o.violations = append(o.violations, fmt.Sprintf("%s: %s %s", inc, r.Sid, r.Err))
			case "note":
				if strings.HasPrefix(r.Err, "open-busy") {
					o.openBusy++
				}
			case "intent":
				oi := &opInfo{r: r, st: "unknown", inc: inc, start: r.Time, end: death}
				o.ops[r.Op] = oi
				if r.Sid != "" {
					o.bySid[r.Sid] = append(o.bySid[r.Sid], oi)
				}
				if r.New != "" {
					o.bySid[r.New] = append(o.bySid[r.New], oi)
				}
				if r.Kind == opImport {
					o.imports = append(o.imports, oi)
				}
			case "ack", "fail":
				oi := o.ops[r.Op]
				if oi == nil {
					return nil, fmt.Errorf("%s: outcome of %s without intent", f, r.Op)
				}
				start := oi.start
				oi.r, oi.st, oi.start, oi.end = r, r.T, start, r.Time
				if r.T == "fail" && r.Class == "unexpected" {
					o.unexpected = append(o.unexpected, fmt.Sprintf("%s %s on %s: %s", r.Op, r.Kind, r.Sid, r.Err))
				}
			}
		}
	}
	return o, nil
}

// checkStats summarises one check.
type checkStats struct {
	Ops, Acked, Failed, Unknown int
	Sessions, Entries, Imported int
	ImportRaces                 int // imports lost to the known jsonlimport create race
	OpenBusy                    int // Opens that failed with the known first-open SQLITE_BUSY
	// Busy is set when a read of the check failed with ErrBusy: a worker
	// stopped (SIGSTOP) while it held WAL locks can keep the checker's
	// read from starting; the driver then lets the workers run on and
	// checks again.
	Busy bool
}

type checker struct {
	ctx   context.Context
	store *sqlstore.Store
	o     *oracle
	ref   [][]byte // the sample's transcript as a private import gives it
	errs  []string
	busy  bool // an error above was ErrBusy
}

func (c *checker) errorf(format string, args ...any) {
	for _, a := range args {
		if err, ok := a.(error); ok && errors.Is(err, sessiondb.ErrBusy) {
			c.busy = true
		}
	}
	if len(c.errs) < 60 {
		c.errs = append(c.errs, fmt.Sprintf(format, args...))
	}
}

// checkDatabase runs every invariant against the database at dbPath and the
// oracle logs in dir. Workers must be dead or stopped while it runs.
func checkDatabase(dbPath, dir string, deaths map[string]int64, ref [][]byte) (checkStats, []string) {
	var st checkStats
	o, err := loadOracle(dir, deaths)
	if err != nil {
		return st, []string{fmt.Sprintf("oracle: %v", err)}
	}
	st.OpenBusy = o.openBusy
	for _, op := range o.ops {
		st.Ops++
		switch op.st {
		case "ack":
			st.Acked++
		case "fail":
			st.Failed++
			if op.r.Class == "import-race" {
				st.ImportRaces++
			}
		default:
			st.Unknown++
		}
	}
	// No background indexer: the checker reads, and at Close an indexer
	// would wait out the busy timeout for the index file's write lock,
	// which a stopped worker may hold (2 minutes of a 30-second workload).
	// Search still finds every row: it scans what is not indexed yet.
	store, err := sqlstore.Open(dbPath, &sqlstore.Options{IndexDelay: -1})
	if err != nil {
		st.Busy = errors.Is(err, sessiondb.ErrBusy)
		return st, []string{fmt.Sprintf("open %s after the crash: %v", dbPath, err)}
	}
	defer store.Close()
	c := &checker{ctx: context.Background(), store: store, o: o, ref: ref}
	for _, v := range o.violations {
		c.errorf("worker saw a violation: %s", v)
	}
	for _, u := range o.unexpected {
		c.errorf("unexpected error: %s", u)
	}
	c.pragmas()
	infos := c.listAll()
	existing := map[string]sessiondb.SessionInfo{}
	for _, in := range infos {
		existing[in.ID] = in
	}
	for _, in := range infos {
		switch {
		case strings.HasPrefix(in.ID, "p-"), strings.HasPrefix(in.ID, "u-"):
			st.Sessions++
			st.Entries += int(in.EntryCount)
			c.session(in, existing)
		case in.SourceFormat != "":
			st.Imported++
			c.imported(in)
		default:
			c.errorf("session %s: neither the workload's nor imported", in.ID)
		}
	}
	c.missing(existing)
	c.importOps(existing)
	c.searchFinds(infos)
	st.Busy = c.busy
	return st, c.errs
}

// searchFinds checks that search finds log rows after the crash, whether
// the killed worker indexed them or not (the index is in its own file,
// written by its own connection; a kill can land between a batch of the
// index file and the database's write that follows it): for the last
// three rows of up to 60 of the workload's sessions, a search for the
// row's operation id, restricted to its session, must return the row.
func (c *checker) searchFinds(infos []sessiondb.SessionInfo) {
	checked := 0
	for _, in := range infos {
		if checked >= 60 || !(strings.HasPrefix(in.ID, "p-") || strings.HasPrefix(in.ID, "u-")) {
			continue
		}
		checked++
		rows, err := c.store.Entries(c.ctx, in.ID, 0, 0)
		if err != nil {
			c.errorf("search check: entries of %s: %v", in.ID, err)
			continue
		}
		for _, e := range rows[max(0, len(rows)-3):] {
			tg, err := parseBody(e.Body)
			if err != nil || len([]rune(tg.Op)) < 3 {
				continue // not a workload body, or too short a term for the index
			}
			hits, err := c.store.Search(c.ctx, tg.Op, sessiondb.SearchOptions{SessionID: in.ID, Limit: sessiondb.MaxSearchLimit})
			if err != nil {
				c.errorf("search check: Search(%q) in %s: %v", tg.Op, in.ID, err)
				continue
			}
			found := false
			for _, h := range hits {
				found = found || (!h.Summary && h.Seq == e.Seq)
			}
			if !found {
				c.errorf("search check: Search(%q) in %s does not find seq %d, which holds it (%d hits)", tg.Op, in.ID, e.Seq, len(hits))
			}
		}
	}
}

func (c *checker) pragmas() {
	for _, q := range []string{"PRAGMA integrity_check", "PRAGMA foreign_key_check"} {
		rows, err := c.store.Query(c.ctx, q)
		if err != nil {
			c.errorf("%s: %v", q, err)
			continue
		}
		cols, _ := rows.Columns()
		var got []string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				c.errorf("%s: %v", q, err)
				break
			}
			got = append(got, fmt.Sprint(vals...))
		}
		if err := rows.Err(); err != nil {
			c.errorf("%s: %v", q, err)
		}
		rows.Close()
		if q == "PRAGMA integrity_check" && (len(got) != 1 || got[0] != "ok") {
			c.errorf("%s: %v", q, got)
		}
		if q == "PRAGMA foreign_key_check" && len(got) != 0 {
			c.errorf("%s: %v", q, got)
		}
	}
}

func (c *checker) listAll() []sessiondb.SessionInfo {
	var out []sessiondb.SessionInfo
	cursor := ""
	for {
		page, next, err := c.store.List(c.ctx, sessiondb.ListOptions{Limit: 500, Cursor: cursor})
		if err != nil {
			c.errorf("list: %v", err)
			return out
		}
		out = append(out, page...)
		if next == "" {
			return out
		}
		cursor = next
	}
}

// deletesOf returns the deletes of sid that may have committed.
func (c *checker) deletesOf(sid string) []*opInfo {
	var out []*opInfo
	for _, op := range c.o.bySid[sid] {
		if op.r.Kind == opDelete && op.r.Sid == sid && op.st != "fail" {
			out = append(out, op)
		}
	}
	return out
}

// required reports whether op's effect on sid must still be visible: no
// delete of sid can have committed after op. (Session IDs are reused only
// when SaveFull recreates a deleted session; an op that overlaps a delete
// may have landed in either incarnation, so it is not checked.)
func required(op *opInfo, deletes []*opInfo) bool {
	for _, d := range deletes {
		if d.end >= op.start {
			return false
		}
	}
	return true
}

// writesEntries reports how many fresh bodies op appended to its session.
func writesEntries(op *opInfo) int {
	switch op.r.Kind {
	case opSaveFull, opAppend, opCommitX, opPStep:
		return op.r.N
	}
	return 0
}

func (c *checker) session(in sessiondb.SessionInfo, existing map[string]sessiondb.SessionInfo) {
	sid := in.ID
	ctx := c.ctx
	ops := c.o.bySid[sid]
	deletes := c.deletesOf(sid)
	creators := 0
	for _, op := range ops {
		if op.st != "fail" && ((op.r.Kind == opSaveFull && op.r.Sid == sid) || (op.r.Kind == opFork && op.r.New == sid)) {
			creators++
		}
	}
	if creators == 0 {
		c.errorf("session %s exists but no SaveFull or Fork that could create it was attempted", sid)
	}
	full, err := c.store.LoadFull(ctx, sid, sessiondb.LoadOptions{})
	if err != nil {
		c.errorf("LoadFull %s: %v", sid, err)
		return
	}
	s := full.Session
	entries, err := c.store.Entries(ctx, sid, 0, 0)
	if err != nil {
		c.errorf("Entries %s: %v", sid, err)
		return
	}
	comps, err := c.store.Compactions(ctx, sid)
	if err != nil {
		c.errorf("Compactions %s: %v", sid, err)
		return
	}
	// Seqs are contiguous 1..LastSeq (the workload never prunes).
	if int64(len(entries)) != s.LastSeq {
		c.errorf("session %s: %d log entries, LastSeq %d", sid, len(entries), s.LastSeq)
	}
	for i, e := range entries {
		if e.Seq != int64(i+1) {
			c.errorf("session %s: entry %d has seq %d: hole or duplicate in the log", sid, i+1, e.Seq)
			break
		}
	}
	// Every body is intact and was written by an op that was attempted
	// and did not fail; the session's own commits are all or nothing.
	type pos struct{ seq, k int }
	first := map[string][]pos{}
	seenK := map[string]map[int]bool{}
	for _, e := range entries {
		t, err := parseBody(e.Body)
		if err != nil {
			c.errorf("session %s seq %d: %v", sid, e.Seq, err)
			continue
		}
		op := c.o.ops[t.Op]
		switch {
		case op == nil:
			c.errorf("session %s seq %d: body of op %s that no oracle log mentions (phantom write)", sid, e.Seq, t.Op)
		case op.st == "fail":
			c.errorf("session %s seq %d: body of op %s which failed (%s) — a failed write is visible", sid, e.Seq, t.Op, op.r.Err)
		}
		if t.Sid != sid || t.Sum {
			continue
		}
		if seenK[t.Op] == nil {
			seenK[t.Op] = map[int]bool{}
		}
		if !seenK[t.Op][t.K] {
			seenK[t.Op][t.K] = true
			first[t.Op] = append(first[t.Op], pos{int(e.Seq), t.K})
		}
	}
	for opID, ps := range first {
		op := c.o.ops[opID]
		n := 0
		if op != nil {
			n = op.r.N
		}
		ok := len(ps) == n
		for i, p := range ps {
			if p.k != i+1 || p.seq != ps[0].seq+i {
				ok = false
			}
		}
		if !ok {
			c.errorf("session %s: commit %s (%d entries) is visible in part: (seq,k) %v — a commit must be all or nothing", sid, opID, n, ps)
		}
	}
	// A commit is all or nothing across its parts too: when its state,
	// interrupt or compaction is visible, so are the entries it appended.
	partsOf := func(what, opID string) {
		op := c.o.ops[opID]
		if op == nil || op.r.Sid != sid {
			return
		}
		if n := writesEntries(op); n > 0 && len(seenK[opID]) != n {
			c.errorf("session %s: the %s of %s %s is visible but %d of the %d entries it committed with are not (half a commit)", sid, what, op.r.Kind, opID, n-len(seenK[opID]), n)
		}
	}
	if full.State != nil {
		if d, err := parseState(full.State); err == nil && d.TT.Sid == sid {
			partsOf("state", d.TT.Op)
		}
	}
	if full.Interrupt != nil {
		if t, err := parseInterrupt(full.Interrupt); err == nil && t.Sid == sid {
			partsOf("interrupt", t.Op)
		}
	}
	for _, cp := range comps {
		var d struct {
			Op string `json:"op"`
		}
		if json.Unmarshal(cp.Details, &d) == nil && d.Op != "" {
			partsOf("compaction", d.Op)
		}
	}
	// Acknowledged appends are in the log, at the positions acknowledged.
	var maxSeq, maxLast int64
	for _, op := range ops {
		if op.st != "ack" || !required(op, deletes) {
			continue
		}
		if op.r.Sid == sid || op.r.New == sid {
			if op.r.Kind != opFork || op.r.New == sid {
				maxSeq = max(maxSeq, op.r.Seq)
				maxLast = max(maxLast, op.r.Last)
			}
		}
		if op.r.Sid != sid {
			continue
		}
		n := writesEntries(op)
		for k := 1; k <= n; k++ {
			seq := op.r.Last - int64(n) + int64(k)
			want := makeBody(op.r.Op, sid, k, n, false)
			if seq < 1 || seq > int64(len(entries)) {
				c.errorf("session %s: acknowledged %s %s appended seq %d, which is not in the log (LastSeq %d)", sid, op.r.Kind, op.r.Op, seq, len(entries))
				break
			}
			if !bytes.Equal(entries[seq-1].Body, want) {
				c.errorf("session %s: acknowledged %s %s: seq %d holds %.120q, want body %d of %d of that op", sid, op.r.Kind, op.r.Op, seq, entries[seq-1].Body, k, n)
				break
			}
		}
	}
	if s.Sequence < maxSeq {
		c.errorf("session %s: Sequence %d is behind the acknowledged sequence %d (a commit was lost)", sid, s.Sequence, maxSeq)
	}
	if s.LastSeq < maxLast {
		c.errorf("session %s: LastSeq %d is behind the acknowledged LastSeq %d", sid, s.LastSeq, maxLast)
	}
	// The latest revision, when an acknowledged op produced it and knew
	// its transcript, has exactly that transcript.
	bodies := entryBodies(full.Transcript)
	for _, op := range ops {
		if op.st == "ack" && op.r.Sid == sid && op.r.TDig != "" && op.r.Seq == s.Sequence && required(op, deletes) {
			if got := digest(bodies); got != op.r.TDig || len(bodies) != op.r.TLen {
				c.errorf("session %s at sequence %d: transcript has %d entries (digest %s), but %s %s, which made this revision, committed %d (digest %s)",
					sid, s.Sequence, len(bodies), got, op.r.Kind, op.r.Op, op.r.TLen, op.r.TDig)
			}
		}
	}
	// Compactions: summaries whole and from the op named in Details;
	// acknowledged compactions present; Load agrees with Entries+Compactions.
	compByOp := map[string]sessiondb.Compaction{}
	for _, cp := range comps {
		var d struct {
			Op string `json:"op"`
		}
		_ = json.Unmarshal(cp.Details, &d)
		if d.Op != "" {
			compByOp[d.Op] = cp
			op := c.o.ops[d.Op]
			if op == nil || op.st == "fail" {
				c.errorf("session %s: compaction %d from op %s which is unknown or failed", sid, cp.ID, d.Op)
			} else if len(cp.Summary) != op.r.M {
				c.errorf("session %s: compaction %d of op %s has %d summary messages, want %d", sid, cp.ID, d.Op, len(cp.Summary), op.r.M)
			}
			for i, m := range cp.Summary {
				t, err := parseBody(m.Body)
				if err != nil || t.Op != d.Op || t.K != i+1 || !t.Sum {
					c.errorf("session %s: compaction %d summary %d is not summary %d of %s: %v %.100q", sid, cp.ID, i+1, i+1, d.Op, err, m.Body)
				}
			}
		}
	}
	for _, op := range ops {
		if op.st != "ack" || op.r.Sid != sid || op.r.Keep == 0 || op.r.Kind == opTruncate || !required(op, deletes) {
			continue
		}
		cp, ok := compByOp[op.r.Op]
		if !ok {
			c.errorf("session %s: acknowledged %s %s recorded no compaction", sid, op.r.Kind, op.r.Op)
		} else if cp.KeepFromSeq != op.r.Keep {
			c.errorf("session %s: compaction of %s keeps from %d, want %d", sid, op.r.Op, cp.KeepFromSeq, op.r.Keep)
		}
	}
	want := [][]byte{}
	keep := int64(1)
	if len(comps) > 0 {
		cur := comps[len(comps)-1]
		want = append(want, entryBodies(cur.Summary)...)
		keep = cur.KeepFromSeq
	}
	for _, e := range entries {
		if e.Seq >= keep {
			want = append(want, e.Body)
		}
	}
	if digest(want) != digest(bodies) {
		c.errorf("session %s: LoadFull transcript (%d entries) differs from the current compaction's summary + log from seq %d (%d entries)", sid, len(bodies), keep, len(want))
	}
	// State and interrupt are the last acknowledged write's, or one that
	// may have committed after it.
	c.register(sid, "state", ops, deletes, full.State, s.ParentID)
	c.register(sid, "interrupt", ops, deletes, full.Interrupt, s.ParentID)
	if strings.HasPrefix(sid, "p-") {
		if err := checkPaired(full); err != nil {
			c.errorf("paired: %v", err)
		}
	}
	// Forks carry their parent's transcript as of the fork position.
	for _, op := range ops {
		if op.r.Kind != opFork || op.r.New != sid || op.st != "ack" || !required(op, deletes) {
			continue
		}
		if s.ParentID != op.r.Sid || s.ForkSeq != op.r.ForkSeq {
			c.errorf("session %s: fork %s made it from %s at %d, but it records parent %q at %d", sid, op.r.Op, op.r.Sid, op.r.ForkSeq, s.ParentID, s.ForkSeq)
		}
		if op.r.Last > int64(len(entries)) {
			c.errorf("session %s: fork %s copied %d entries, the log has %d", sid, op.r.Op, op.r.Last, len(entries))
			continue
		}
		if _, ok := existing[op.r.Sid]; !ok || len(c.deletesOf(op.r.Sid)) > 0 || op.r.Last == 0 {
			continue
		}
		pe, err := c.store.Entries(ctx, op.r.Sid, op.r.ForkSeq-op.r.Last+1, op.r.ForkSeq)
		if err != nil {
			c.errorf("Entries of parent %s: %v", op.r.Sid, err)
			continue
		}
		if digest(entryBodies(pe)) != digest(entryBodies(entries[:op.r.Last])) {
			c.errorf("session %s: the %d entries fork %s copied differ from parent %s's seqs %d..%d", sid, op.r.Last, op.r.Op, op.r.Sid, op.r.ForkSeq-op.r.Last+1, op.r.ForkSeq)
		}
	}
}

// register checks a state or interrupt document. Its value is the op that
// wrote it ("" when absent, "copy" when a fork copied it from the parent).
// It must be the value of the acknowledged write with the highest
// Sequence, or of a write that may have committed after that one (an
// unacknowledged op still running when that one started, or one
// overlapping a delete).
func (c *checker) register(sid, which string, ops, deletes []*opInfo, doc json.RawMessage, parent string) {
	value := ""
	if doc != nil {
		var t tag
		var err error
		if which == "state" {
			var d stateDoc
			d, err = parseState(doc)
			t = d.TT
		} else {
			t, err = parseInterrupt(doc)
		}
		if err != nil {
			c.errorf("session %s %s: %v", sid, which, err)
			return
		}
		value = t.Op
		if t.Sid != sid {
			value = "copy"
		}
	}
	type writer struct {
		op    *opInfo
		value string
	}
	var ws []writer
	for _, op := range ops {
		if op.st == "fail" {
			continue
		}
		r := op.r
		switch {
		case r.Kind == opFork && r.New == sid:
			v := ""
			if which == "state" {
				v = "copy"
			}
			ws = append(ws, writer{op, v})
		case r.Sid != sid:
		case which == "state" && r.State:
			ws = append(ws, writer{op, r.Op})
		case which == "interrupt" && r.Intr == "set":
			ws = append(ws, writer{op, r.Op})
		case which == "interrupt" && r.Intr == "clear":
			ws = append(ws, writer{op, ""})
		}
	}
	var top *writer
	for i, w := range ws {
		if w.op.st == "ack" && required(w.op, deletes) && (top == nil || w.op.r.Seq > top.op.r.Seq) {
			top = &ws[i]
		}
	}
	allowed := map[string]bool{}
	if top == nil {
		allowed[""] = true
		for _, w := range ws {
			allowed[w.value] = true
		}
	} else {
		allowed[top.value] = true
		for _, w := range ws {
			if (w.op.st == "unknown" && w.op.end > top.op.start) || !required(w.op, deletes) {
				allowed[w.value] = true
			}
		}
	}
	if value == "copy" && parent == "" {
		c.errorf("session %s: %s of another session, but it is not a fork", sid, which)
	}
	if !allowed[value] {
		keys := make([]string, 0, len(allowed))
		for k := range allowed {
			keys = append(keys, fmt.Sprintf("%q", k))
		}
		sort.Strings(keys)
		last := "none"
		if top != nil {
			last = fmt.Sprintf("%s %s at sequence %d", top.op.r.Kind, top.op.r.Op, top.op.r.Seq)
		}
		c.errorf("session %s: %s was written by %q; the last acknowledged write is %s; allowed: %s (a write was lost or resurrected)",
			sid, which, value, last, strings.Join(keys, ", "))
	}
}

// missing checks the sessions that do not exist: each must have been
// deleted by a delete that may have committed after every acknowledged
// write to it, and no acknowledged delete is undone except by a later
// SaveFull.
func (c *checker) missing(existing map[string]sessiondb.SessionInfo) {
	for sid, ops := range c.o.bySid {
		deletes := c.deletesOf(sid)
		if _, ok := existing[sid]; ok {
			for _, d := range deletes {
				if d.st != "ack" {
					continue
				}
				recreated := false
				for _, op := range ops {
					if op.r.Kind == opSaveFull && op.r.Sid == sid && op.st != "fail" && op.end > d.start {
						recreated = true
					}
				}
				if !recreated {
					c.errorf("session %s exists after the acknowledged delete %s, and no SaveFull could have recreated it", sid, d.r.Op)
				}
			}
			continue
		}
		for _, op := range ops {
			if op.st != "ack" || op.r.Kind == opDelete || !required(op, deletes) {
				continue
			}
			if op.r.Kind == opFork && op.r.New != sid {
				continue // the fork's parent need not survive
			}
			c.errorf("session %s is gone, but %s %s was acknowledged (sequence %d) and no delete can have followed it", sid, op.r.Kind, op.r.Op, op.r.Seq)
			break
		}
	}
}

// imported checks a session the importer wrote: whole (the sample's
// transcript, entry for entry) and booked in the same commit.
func (c *checker) imported(in sessiondb.SessionInfo) {
	got, err := c.store.Load(c.ctx, in.ID, sessiondb.LoadOptions{})
	if err != nil {
		c.errorf("Load imported %s: %v", in.ID, err)
		return
	}
	want := c.ref
	if len(want) > 0 {
		// importSample marked the first message with the op, the name of
		// the directory it wrote the sample to.
		want = append([][]byte{markSample(want[0], filepath.Base(filepath.Dir(in.SourcePath)))}, want[1:]...)
	}
	if digest(entryBodies(got)) != digest(want) {
		c.errorf("imported session %s has %d entries, the sample gives %d, or others (a partial import?)", in.ID, len(got), len(want))
	}
	sf, err := c.store.SourceFile(c.ctx, in.SourcePath)
	if err != nil {
		c.errorf("imported session %s from %s has no source record: %v", in.ID, in.SourcePath, err)
	} else if sf.SessionID != in.ID {
		c.errorf("source record of %s names session %s, want %s", in.SourcePath, sf.SessionID, in.ID)
	}
}

func (c *checker) importOps(existing map[string]sessiondb.SessionInfo) {
	for _, op := range c.o.imports {
		sf, err := c.store.SourceFile(c.ctx, op.r.Path)
		switch {
		case errors.Is(err, sessiondb.ErrNotFound):
			if op.st == "ack" {
				c.errorf("acknowledged import %s of %s left no source record", op.r.Op, op.r.Path)
			}
		case err != nil:
			c.errorf("SourceFile %s: %v", op.r.Path, err)
		case op.st == "fail":
			c.errorf("failed import %s of %s left a source record", op.r.Op, op.r.Path)
		default:
			if _, ok := existing[sf.SessionID]; !ok {
				c.errorf("import %s of %s: source record names session %s, which does not exist", op.r.Op, op.r.Path, sf.SessionID)
			}
		}
	}
}

// saveEvidence copies a failed run's directory where it survives the test.
func saveEvidence(dir string) string {
	dst, err := os.MkdirTemp("", "torture-failed-")
	if err != nil {
		return ""
	}
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || strings.Contains(p, string(filepath.Separator)+"imports"+string(filepath.Separator)) {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if err == nil {
			_ = os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755)
			_ = os.WriteFile(filepath.Join(dst, rel), data, 0o644)
		}
		return nil
	})
	return dst
}
