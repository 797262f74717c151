package jsonlimport

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// writeBigClaudeSession writes a deterministic Claude Code transcript of
// at least size bytes at path: turns of a user prompt, one to four tool
// calls with their results (of one of results words, drawn at random) and
// an answer, each line hanging off the previous one. It returns the lines
// and the longest.
func writeBigClaudeSession(tb testing.TB, path string, size int64, results []int) (lines int, longest int) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("alpha beta gamma delta render cache index parse commit buffer stream token vector query shard")
	text := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String()
	}
	sid := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	parent := any(nil)
	var written int64
	t0 := time.Date(2026, 1, 12, 9, 0, 0, 0, time.UTC)
	emit := func(m map[string]any) {
		lines++
		uuid := fmt.Sprintf("%08x-0000-4000-8000-000000000000", lines)
		m["parentUuid"], m["isSidechain"], m["userType"], m["cwd"], m["sessionId"] = parent, false, "external", "/home/dev/proj", sid
		m["version"], m["gitBranch"], m["uuid"] = "2.1.202", "main", uuid
		m["timestamp"] = t0.Add(time.Duration(lines) * time.Second).Format("2006-01-02T15:04:05.000Z")
		parent = uuid
		b, err := json.Marshal(m)
		if err != nil {
			tb.Fatal(err)
		}
		longest = max(longest, len(b))
		w.Write(b)
		w.WriteByte('\n')
		written += int64(len(b)) + 1
	}
	usage := map[string]any{"input_tokens": 10, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 5000, "output_tokens": 50}
	for turn := 0; written < size; turn++ {
		emit(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text(5 + rng.IntN(55))}})
		for k := range 1 + rng.IntN(4) {
			tid := fmt.Sprintf("toolu_%d_%d", turn, k)
			emit(map[string]any{"type": "assistant", "requestId": fmt.Sprintf("req_%d_%d", turn, k), "message": map[string]any{
				"id": fmt.Sprintf("msg_%d_%d", turn, k), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
				"content":     []any{map[string]any{"type": "tool_use", "id": tid, "name": "Bash", "input": map[string]any{"command": text(8)}}},
				"stop_reason": "tool_use", "usage": usage}})
			emit(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": tid, "content": text(results[rng.IntN(len(results))])}}}})
		}
		emit(map[string]any{"type": "assistant", "requestId": fmt.Sprintf("req_%d", turn), "message": map[string]any{
			"id": fmt.Sprintf("msg_%d", turn), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
			"content":     []any{map[string]any{"type": "text", "text": text(10 + rng.IntN(290))}},
			"stop_reason": "end_turn", "usage": usage}})
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return lines, longest
}

// watchedStore is a store that records, at each commit, the bytes of
// bodies it carries and (heap true) the live heap after a collection.
type watchedStore struct {
	sessiondb.Store
	heap bool

	mu          sync.Mutex
	commits     int
	maxBodies   int
	maxHeap     uint64
	totalBodies int
}

func (s *watchedStore) see(cs []sessiondb.SessionCommit) {
	n := 0
	for _, c := range cs {
		for _, e := range c.Commit.Append {
			n += len(e.Body)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commits++
	s.maxBodies = max(s.maxBodies, n)
	s.totalBodies += n
	if s.heap {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		s.maxHeap = max(s.maxHeap, ms.HeapAlloc)
	}
}

func (s *watchedStore) Commit(ctx context.Context, id string, c sessiondb.Commit) (sessiondb.Session, error) {
	s.see([]sessiondb.SessionCommit{{ID: id, Commit: c}})
	return s.Store.Commit(ctx, id, c)
}

func (s *watchedStore) CommitMany(ctx context.Context, cs []sessiondb.SessionCommit) ([]sessiondb.Session, error) {
	s.see(cs)
	return s.Store.CommitMany(ctx, cs)
}

// withChunkSize sets chunkSize for the test.
func withChunkSize(t *testing.T, n int64) {
	old := chunkSize
	chunkSize = n
	t.Cleanup(func() { chunkSize = old })
}

// heapNow returns the live heap after a collection.
func heapNow() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// importLarge imports the file at path (size bytes) with chunks of chunk
// bytes and returns what the store saw and the heap's growth over the
// import at its largest (at a commit).
func importLarge(t *testing.T, path string, chunk int64, follow *Follow) (*watchedStore, Report, uint64) {
	t.Helper()
	withChunkSize(t, chunk)
	// The background indexer is off: its batches are the store's memory,
	// taken at moments that vary from run to run, not the importer's.
	db := filepath.Join(t.TempDir(), "s.db")
	st, err := sqlstore.Open(db, &sqlstore.Options{IndexDelay: -1, Durability: sqlstore.DurabilityNormal})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := &watchedStore{Store: st, heap: true}
	base := heapNow()
	rep, err := Import(context.Background(), s, []string{path}, Options{Jobs: 1, Follow: follow})
	if err != nil {
		t.Fatal(err)
	}
	return s, rep, s.maxHeap - min(base, s.maxHeap)
}

// TestImportLargeFileStreams: a Claude Code transcript much larger than a
// chunk is imported a chunk at a time: no commit carries more than a
// chunk and a line of bodies, and the heap at a commit stays far below
// the file's size, where the import of the file in one piece holds it all
// (the same measure, which shows that it can fail). The result is the
// same session as that of the one-piece import.
func TestImportLargeFileStreams(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-00000000abcd.jsonl")
	const size = 2 << 20
	// Long lines (tool results of up to 8,000 words): the bodies, not
	// the reader's state per line, are what a one-piece import holds.
	lines, longest := writeBigClaudeSession(t, path, size, []int{200, 2000, 8000})
	since := time.Now().Add(-time.Second)

	const chunk = 64 << 10
	importLarge(t, path, chunk, nil) // what is allocated once (compiled patterns) is not measured
	whole, wrep, wholeHeap := importLarge(t, path, 1<<40, nil)
	for _, follow := range []*Follow{nil, NewFollow()} {
		parts, prep, partsHeap := importLarge(t, path, chunk, follow)
		t.Logf("one piece: %d commit(s), %d bytes of bodies at most, heap +%d KiB; chunks (follow %v): %d commits, %d bytes at most, heap +%d KiB",
			whole.commits, whole.maxBodies, wholeHeap>>10, follow != nil, parts.commits, parts.maxBodies, partsHeap>>10)
		if wrep.Entries != lines || prep.Entries != lines || wrep.Files != 1 || prep.Files != 1 || prep.Sessions != 1 || len(prep.Problems) != 0 {
			t.Fatalf("lines %d; one piece %+v; chunks %+v", lines, wrep, prep)
		}
		if whole.commits != 1 || whole.maxBodies < size*9/10 {
			t.Fatalf("the one-piece import made %d commits of at most %d bytes", whole.commits, whole.maxBodies)
		}
		if parts.maxBodies > chunk+longest || parts.commits < size/(chunk+longest) {
			t.Errorf("chunked import: %d commits, one of %d bytes of bodies (chunk %d, longest line %d)", parts.commits, parts.maxBodies, chunk, longest)
		}
		if partsHeap > size/4 || wholeHeap < size || partsHeap > wholeHeap/4 {
			t.Errorf("chunked import held %d KiB more heap at a commit (one piece: %d KiB; file %d KiB)", partsHeap>>10, wholeHeap>>10, size>>10)
		}
		if d := cmp.Diff(jsonltest.GrowthSnapshot(t, whole.Store, since), jsonltest.GrowthSnapshot(t, parts.Store, since)); d != "" {
			t.Errorf("chunked import differs from the one-piece import (-whole +chunks):\n%s", clipDiff(d, 3000))
		}
		// Imported again unchanged: nothing to do.
		again, err := Import(context.Background(), parts, []string{path}, Options{Jobs: 1, Follow: follow})
		if err != nil || again.Unchanged != 1 || again.Entries != 0 {
			t.Errorf("re-import: %+v, %v", again, err)
		}
	}
}

// TestImportChunkedFixtures imports every Claude Code fixture in chunks of
// a few hundred bytes (a chunk of a line or two) and compares with one
// import of each whole file.
func TestImportChunkedFixtures(t *testing.T) {
	cases := growthCases(t, []string{"../testdata/claudecode/projects"}, false)
	if len(cases) == 0 {
		t.Fatal("no fixtures")
	}
	for _, c := range cases {
		dir := t.TempDir()
		copyTree(t, c.root, dir)
		path := filepath.Join(dir, c.rel)
		since := time.Now().Add(-time.Second)
		withChunkSize(t, 1<<40)
		once := openStore(t)
		if _, err := Import(context.Background(), once, []string{path}, Options{Jobs: 1}); err != nil {
			t.Fatal(err)
		}
		chunks := &watchedStore{Store: openStore(t)}
		withChunkSize(t, 300)
		if _, err := Import(context.Background(), chunks, []string{path}, Options{Jobs: 1}); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, chunks.Store, since)); d != "" {
			t.Errorf("%s in %d chunks differs from one import (-once +chunks):\n%s", c.rel, chunks.commits, clipDiff(d, 3000))
		}
	}
}

// TestImportLargeClaudeCodeSession is TestImportLargeFileStreams at the
// size of the transcript issue 42 reports (a 400 MB session), with the
// default chunk size; it logs the process's peak RSS.
func TestImportLargeClaudeCodeSession(t *testing.T) {
	longtest.Skip(t, "writes and imports a 400 MB transcript (minutes)")
	path := filepath.Join(t.TempDir(), "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-00000000abcd.jsonl")
	const size = 400 << 20
	lines, longest := writeBigClaudeSession(t, path, size, []int{20, 200, 2000})
	s := &watchedStore{Store: openStore(t), heap: true}
	base := heapNow()
	t0 := time.Now()
	rep, err := Import(context.Background(), s, []string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d lines, %d entries in %d commits of at most %d bytes of bodies, heap +%d MiB at most, %s; VmHWM %s",
		lines, rep.Entries, s.commits, s.maxBodies, (s.maxHeap-min(base, s.maxHeap))>>20, time.Since(t0), vmHWM())
	if rep.Entries != lines || s.maxBodies > int(chunkSize)+longest {
		t.Errorf("entries %d of %d lines; a commit of %d bytes", rep.Entries, lines, s.maxBodies)
	}
	if grown := s.maxHeap - min(base, s.maxHeap); grown > 256<<20 {
		t.Errorf("the heap grew by %d MiB at a commit", grown>>20)
	}
}

// vmHWM returns the process's peak RSS as /proc/self/status says it.
func vmHWM() string {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:"))
		}
	}
	return "?"
}

// TestRestartAppendToLargeFile: after a restart (a new Follow), the first
// append to a large transcript rebuilds the reader's state a chunk at a
// time (a replay, no whole re-read holding the file) and appends what one
// import of the grown file gives.
func TestRestartAppendToLargeFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-00000000abcd.jsonl")
	const size = 2 << 20
	writeBigClaudeSession(t, path, size, []int{200, 2000, 8000})
	since := time.Now().Add(-time.Second)
	s, _, _ := importLarge(t, path, 64<<10, NewFollow())

	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	last["parentUuid"], last["uuid"], last["type"] = last["uuid"], "ffffffff-0000-4000-8000-000000000000", "user"
	last["message"] = map[string]any{"role": "user", "content": "one more question"}
	delete(last, "requestId")
	add, _ := json.Marshal(last)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(append(add, '\n'))
	f.Close()

	restarted := NewFollow()
	base := heapNow()
	s.maxHeap = 0
	rep, err := Import(context.Background(), s, []string{path}, Options{Jobs: 1, Follow: restarted})
	if err != nil {
		t.Fatal(err)
	}
	st := restarted.Stats()
	grown := s.maxHeap - min(base, s.maxHeap)
	t.Logf("%+v; %+v; heap +%d KiB at the commit", rep, st, grown>>10)
	if rep.Entries != 1 || st.Replays != 1 || st.Rereads != 0 {
		t.Errorf("append after a restart: %d entries, %+v (want 1 entry, a replay, no re-read)", rep.Entries, st)
	}
	if grown > size/4 {
		t.Errorf("the heap grew by %d KiB at the append's commit (file %d KiB)", grown>>10, size>>10)
	}
	once := openStore(t)
	withChunkSize(t, 1<<40)
	if _, err := Import(context.Background(), once, []string{path}, Options{Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, s.Store, since)); d != "" {
		t.Errorf("append after a restart differs from one import of the grown file (-once +appended):\n%s", clipDiff(d, 3000))
	}
}

// TestUnchangedByStat: a file whose inode, size and modification time are
// those recorded is unchanged without being read (no prefix hash, even
// under a new Follow); the same bytes count changed once its time moves
// and its content differs.
func TestUnchangedByStat(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, mustAbs(t, ccTestdata), dir)
	path := filepath.Join(dir, "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000002.jsonl")
	s := openStore(t)
	picoImport(t, s, Options{Jobs: 1}, path)
	f := NewFollow()
	rep := picoImport(t, s, Options{Jobs: 1, Follow: f}, path)
	if rep.Unchanged != 1 || f.Stats().FullHashes != 0 {
		t.Fatalf("re-import of an unchanged file: %+v, %+v (want unchanged, no hash)", rep, f.Stats())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), "Rename the package.", "Rename the packages", 1)
	if edited == string(b) {
		t.Fatal("fixture changed: nothing to edit")
	}
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * time.Second)
	os.Chtimes(path, later, later)
	rep = picoImport(t, s, Options{Jobs: 1, Follow: f}, path)
	if rep.Unchanged != 0 || rep.Sessions != 1 || f.Stats().FullHashes != 1 {
		t.Errorf("re-import of a file rewritten to the same size: %+v, %+v", rep, f.Stats())
	}
}

// TestRestartAppendFromSavedState: a watcher whose Follow keeps its
// readers' states in a directory (NewFollowIn) writes them there when it
// stops; after a restart, the first append to a large transcript
// continues from the saved state: the reader resumes from the offset (no
// replay of the file, no re-read), the state file is used once, and the
// session equals one import of the grown file.
func TestRestartAppendFromSavedState(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-00000000abcd.jsonl")
	stateDir := filepath.Join(dir, "follow")
	const size = 1 << 20
	writeBigClaudeSession(t, path, size, []int{200, 2000, 8000})
	since := time.Now().Add(-time.Second)
	first := NewFollowIn(stateDir)
	s, _, _ := importLarge(t, path, 64<<10, first)
	appendUserLine(t, path, 1)
	if _, err := Import(context.Background(), s, []string{path}, Options{Jobs: 1, Follow: first}); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	saved, _ := filepath.Glob(filepath.Join(stateDir, "*"))
	if len(saved) != 1 {
		t.Fatalf("states saved: %q, want one", saved)
	}

	appendUserLine(t, path, 2)
	restarted := NewFollowIn(stateDir)
	rep, err := Import(context.Background(), s, []string{path}, Options{Jobs: 1, Follow: restarted})
	if err != nil {
		t.Fatal(err)
	}
	st := restarted.Stats()
	t.Logf("%+v; %+v", rep, st)
	if rep.Entries != 1 || st.Resumes != 1 || st.Replays != 0 || st.Rereads != 0 {
		t.Errorf("append after a restart: %d entries, %+v (want 1 entry, resumed from the saved state: no replay, no re-read)", rep.Entries, st)
	}
	if left, _ := filepath.Glob(filepath.Join(stateDir, "*")); len(left) != 0 {
		t.Errorf("states left after the restart's import: %q", left)
	}

	// A state that does not decode is not used: the file is replayed.
	appendUserLine(t, path, 3)
	if _, err := Import(context.Background(), s, []string{path}, Options{Jobs: 1, Follow: restarted}); err != nil {
		t.Fatal(err)
	}
	if err := restarted.Close(); err != nil {
		t.Fatal(err)
	}
	saved, _ = filepath.Glob(filepath.Join(stateDir, "*"))
	if len(saved) != 1 {
		t.Fatalf("states saved: %q, want one", saved)
	}
	if err := os.WriteFile(saved[0], []byte("not a state"), 0o600); err != nil {
		t.Fatal(err)
	}
	appendUserLine(t, path, 4)
	again := NewFollowIn(stateDir)
	if _, err := Import(context.Background(), s, []string{path}, Options{Jobs: 1, Follow: again}); err != nil {
		t.Fatal(err)
	}
	if st := again.Stats(); st.Replays != 1 || st.Resumes != 0 {
		t.Errorf("a damaged state: %+v, want a replay", st)
	}

	once := openStore(t)
	withChunkSize(t, 1<<40)
	if _, err := Import(context.Background(), once, []string{path}, Options{Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, s.Store, since)); d != "" {
		t.Errorf("appends across restarts differ from one import of the grown file (-once +appended):\n%s", clipDiff(d, 3000))
	}
}
