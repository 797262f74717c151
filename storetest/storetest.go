package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sessiondb/sessiondb"
)

// testFunc is one conformance test. It receives a fresh, empty store.
type testFunc func(t *testing.T, s sessiondb.Store)

type testCase struct {
	name string
	fn   testFunc
	// serial tests do not call t.Parallel: they allocate a lot (a body
	// over MaxBodySize) and should not overlap their group's siblings.
	serial bool
}

type group struct {
	name  string
	tests []testCase
}

// Run runs the conformance suite against the backend built by newStore.
// newStore is called once per subtest and must return a fresh, empty store
// that is closed by a t.Cleanup it registers (a store the test closed itself
// reports ErrClosed from that second Close, which the cleanup must accept).
//
// The groups and their subtests are parallel tests, so Run returns before
// they have run: work that must follow the suite belongs in a t.Cleanup.
func Run(t *testing.T, newStore func(t *testing.T) sessiondb.Store) {
	// Concurrency first: its longest test then overlaps everything else.
	groups := []group{
		{"Concurrency", concurrencyTests()},
		{"Sessions", sessionTests()},
		{"List", listTests()},
		{"ListMore", listMoreTests()},
		{"Meta", metaTests()},
		{"Delete", deleteTests()},
		{"Log", logTests()},
		{"History", historyTests()},
		{"Compaction", compactionTests()},
		{"Prune", pruneTests()},
		{"State", stateTests()},
		{"Commit", commitTests()},
		{"CommitGains", commitGainsTests()},
		{"CommitMany", commitManyTests()},
		{"SaveFull", saveFullTests()},
		{"Fork", forkTests()},
		{"Checkpoints", checkpointTests()},
		{"Usage", usageTests()},
		{"UsageReport", usageReportTests()},
		{"Search", searchTests()},
		{"Restore", restoreTests()},
		{"BadInput", badInputTests()},
		{"Copy", copyTests()},
		{"Counts", countTests()},
		{"Secrets", secretTests()},
		{"Project", projectTests()},
		{"Seeds", seedTests()},
		{"SourceMarks", sourceMarkTests()},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range g.tests {
				t.Run(tc.name, func(t *testing.T) {
					if !tc.serial {
						t.Parallel()
					}
					s := newStore(t)
					if s == nil {
						t.Fatal("newStore returned nil")
					}
					tc.fn(t, s)
				})
			}
		})
	}
}

// ---- helpers ---------------------------------------------------------------

var base = time.Date(2025, 3, 20, 14, 30, 0, 0, time.UTC)

// idPattern is the shape of sessiondb.NewID.
var idPattern = regexp.MustCompile(`^(\d{8}_\d{6})_[0-9a-f]{32}$`)

func bg(t *testing.T) context.Context { return t.Context() }

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func msgBody(i int) string {
	return fmt.Sprintf(`{"role":"user","content":"message %d"}`, i)
}

// msgs returns messages from..to (inclusive) with bodies msgBody(i).
func msgs(from, to int) []sessiondb.Entry {
	var es []sessiondb.Entry
	for i := from; i <= to; i++ {
		es = append(es, sessiondb.Message(msgBody(i)))
	}
	return es
}

func bodies(from, to int) []string {
	var bs []string
	for i := from; i <= to; i++ {
		bs = append(bs, msgBody(i))
	}
	return bs
}

func entriesOf(bs ...string) []sessiondb.Entry {
	es := make([]sessiondb.Entry, len(bs))
	for i, b := range bs {
		es[i] = sessiondb.Message(b)
	}
	return es
}

func bodiesOf(es []sessiondb.Entry) []string {
	bs := make([]string, len(es))
	for i, e := range es {
		bs[i] = string(e.Body)
	}
	return bs
}

func seqsOf(es []sessiondb.Entry) []int64 {
	ss := make([]int64, len(es))
	for i, e := range es {
		ss[i] = e.Seq
	}
	return ss
}

func seqRange(from, to int64) []int64 {
	var ss []int64
	for i := from; i <= to; i++ {
		ss = append(ss, i)
	}
	return ss
}

func mustCreate(t *testing.T, s sessiondb.Store, id string) sessiondb.Session {
	t.Helper()
	got, err := s.Create(bg(t), sessiondb.Session{ID: id})
	if err != nil {
		t.Fatalf("Create(%q): %v", id, err)
	}
	return got
}

// mustSession creates session id holding messages 1..n.
func mustSession(t *testing.T, s sessiondb.Store, id string, n int) sessiondb.Session {
	t.Helper()
	sess := mustCreate(t, s, id)
	if n == 0 {
		return sess
	}
	return mustAppend(t, s, id, msgs(1, n)...)
}

func mustAppend(t *testing.T, s sessiondb.Store, id string, es ...sessiondb.Entry) sessiondb.Session {
	t.Helper()
	got, err := s.Append(bg(t), id, es...)
	if err != nil {
		t.Fatalf("Append(%q, %d entries): %v", id, len(es), err)
	}
	return got
}

func mustGet(t *testing.T, s sessiondb.Store, id string) sessiondb.Session {
	t.Helper()
	got, err := s.Get(bg(t), id)
	if err != nil {
		t.Fatalf("Get(%q): %v", id, err)
	}
	return got
}

func mustLoad(t *testing.T, s sessiondb.Store, id string, opts sessiondb.LoadOptions) []sessiondb.Entry {
	t.Helper()
	got, err := s.Load(bg(t), id, opts)
	if err != nil {
		t.Fatalf("Load(%q, %+v): %v", id, opts, err)
	}
	return got
}

func mustEntries(t *testing.T, s sessiondb.Store, id string, from, to int64) []sessiondb.Entry {
	t.Helper()
	got, err := s.Entries(bg(t), id, from, to)
	if err != nil {
		t.Fatalf("Entries(%q, %d, %d): %v", id, from, to, err)
	}
	return got
}

func mustCompactions(t *testing.T, s sessiondb.Store, id string) []sessiondb.Compaction {
	t.Helper()
	got, err := s.Compactions(bg(t), id)
	if err != nil {
		t.Fatalf("Compactions(%q): %v", id, err)
	}
	return got
}

func mustState(t *testing.T, s sessiondb.Store, id string) json.RawMessage {
	t.Helper()
	got, err := s.LoadState(bg(t), id)
	if err != nil {
		t.Fatalf("LoadState(%q): %v", id, err)
	}
	return got
}

func mustInterrupt(t *testing.T, s sessiondb.Store, id string) json.RawMessage {
	t.Helper()
	got, err := s.LoadInterrupt(bg(t), id)
	if err != nil {
		t.Fatalf("LoadInterrupt(%q): %v", id, err)
	}
	return got
}

// wantTranscript checks the effective transcript's bodies.
func wantTranscript(t *testing.T, s sessiondb.Store, id string, want []string) []sessiondb.Entry {
	t.Helper()
	got := mustLoad(t, s, id, sessiondb.LoadOptions{})
	if diff := cmp.Diff(want, bodiesOf(got), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Load(%q) bodies mismatch (-want +got):\n%s", id, diff)
	}
	return got
}

// wantLogSeqs checks the seqs of the raw log rows.
func wantLogSeqs(t *testing.T, s sessiondb.Store, id string, want []int64) []sessiondb.Entry {
	t.Helper()
	got := mustEntries(t, s, id, 0, 0)
	if diff := cmp.Diff(want, seqsOf(got), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Entries(%q, 0, 0) seqs mismatch (-want +got):\n%s", id, diff)
	}
	return got
}

func wantErr(t *testing.T, err, target error, what string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: got error %v, want one matching %v", what, err, target)
	}
}

func wantJSON(t *testing.T, got json.RawMessage, want, what string) {
	t.Helper()
	if string(got) != want {
		t.Errorf("%s = %q, want %q (byte for byte)", what, got, want)
	}
}

// wantUnchanged checks that a session's revision and log did not move.
func wantUnchanged(t *testing.T, s sessiondb.Store, before sessiondb.Session, what string) {
	t.Helper()
	after := mustGet(t, s, before.ID)
	if after.Sequence != before.Sequence || after.LastSeq != before.LastSeq {
		t.Errorf("%s changed the session: Sequence %d -> %d, LastSeq %d -> %d",
			what, before.Sequence, after.Sequence, before.LastSeq, after.LastSeq)
	}
}

func wantNear(t *testing.T, got time.Time, lo, hi time.Time, what string) {
	t.Helper()
	// Stores may round times; allow a little slack either side.
	lo, hi = lo.Add(-2*time.Second), hi.Add(2*time.Second)
	if got.Before(lo) || got.After(hi) {
		t.Errorf("%s = %v, want between %v and %v", what, got, lo, hi)
	}
}

func wantGeneratedID(t *testing.T, id string, lo, hi time.Time, what string) {
	t.Helper()
	m := idPattern.FindStringSubmatch(id)
	if m == nil {
		t.Errorf("%s = %q, want a NewID-shaped id (YYYYMMDD_HHMMSS_<32 hex>)", what, id)
		return
	}
	ts, err := time.Parse("20060102_150405", m[1])
	if err != nil {
		t.Errorf("%s = %q: time prefix: %v", what, id, err)
		return
	}
	wantNear(t, ts, lo.Truncate(time.Second), hi, what+" time prefix")
}

func sortedCopy(ss []string) []string {
	c := slices.Clone(ss)
	slices.Sort(c)
	return c
}

// metaDiff compares the persistent metadata of two sessions (not the
// counts, which reads and writes fill differently; testCounts checks them).
func metaDiff(want, got sessiondb.Session) string {
	return cmp.Diff(want, got,
		cmpopts.EquateEmpty(),
		cmpopts.IgnoreFields(sessiondb.Session{}, "MessageCount", "EntryCount"),
		cmpopts.SortSlices(func(a, b string) bool { return a < b }),
	)
}

func errsIs(err, target error) bool { return errors.Is(err, target) }
