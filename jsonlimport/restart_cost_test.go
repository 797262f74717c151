package jsonlimport

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestRestartAppendCost measures (no assertion on time) what the first
// append to a large Claude Code transcript costs after a restart (a new
// Follow, as a restarted watcher has), against the same append when the
// Follow kept the reader's state: wall time, CPU time and what the
// Follow counted. SESSIONDB_RESTART_MB sets the transcript's size (100
// by default). Issue 42 item 3.
func TestRestartAppendCost(t *testing.T) {
	longtest.Skip(t, "writes and imports a transcript of 100 MB or more")
	mb := 100
	if v, err := strconv.Atoi(os.Getenv("SESSIONDB_RESTART_MB")); err == nil && v > 0 {
		mb = v
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-00000000abcd.jsonl")
	lines, _ := writeBigClaudeSession(t, path, int64(mb)<<20, []int{20, 200, 2000})
	st, err := sqlstore.Open(filepath.Join(dir, "s.db"), &sqlstore.Options{IndexDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	stateDir := filepath.Join(dir, "follow")
	kept := NewFollowIn(stateDir)
	t0 := time.Now()
	if _, err := Import(ctx, st, []string{path}, Options{Jobs: 1, Follow: kept}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d MiB, %d lines: first import %s", mb, lines, time.Since(t0).Round(time.Millisecond))
	step := func(i int, what string, follow *Follow) {
		appendUserLine(t, path, i)
		before := follow.Stats()
		c0, w0 := cpuNow(), time.Now()
		rep, err := Import(ctx, st, []string{path}, Options{Jobs: 1, Follow: follow})
		if err != nil {
			t.Fatal(err)
		}
		after := follow.Stats()
		t.Logf("%s: %d entries, wall %s, CPU %s; hashes +%d, resumes +%d, replays +%d, rereads +%d",
			what, rep.Entries, time.Since(w0).Round(time.Millisecond), (cpuNow() - c0).Round(time.Millisecond),
			after.FullHashes-before.FullHashes, after.Resumes-before.Resumes, after.Replays-before.Replays, after.Rereads-before.Rereads)
	}
	step(0, "append, state kept in memory", kept)
	c0, w0 := cpuNow(), time.Now()
	if err := kept.Close(); err != nil {
		t.Fatal(err)
	}
	var saved int64
	files, _ := filepath.Glob(filepath.Join(stateDir, "*"))
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			saved += fi.Size()
		}
	}
	t.Logf("stop: states saved in %s (CPU %s), %d file(s), %d bytes", time.Since(w0).Round(time.Millisecond), (cpuNow() - c0).Round(time.Millisecond), len(files), saved)
	restarted := NewFollowIn(stateDir)
	step(1, "first append after a restart, from the saved state", restarted)
	step(2, "next append", restarted)
	step(3, "first append after a restart without saved states (a new Follow: replay)", NewFollow())
}

// appendUserLine appends a user line to the Claude Code transcript at
// path, a child of its last line.
func appendUserLine(t *testing.T, path string, i int) {
	t.Helper()
	last := lastLine(t, path)
	var m map[string]any
	if err := json.Unmarshal(last, &m); err != nil {
		t.Fatal(err)
	}
	m["parentUuid"], m["uuid"], m["type"] = m["uuid"], "ffffffff-0000-4000-8000-"+strconv.FormatInt(int64(100000000000+i), 10), "user"
	m["message"] = map[string]any{"role": "user", "content": "one more question " + strconv.Itoa(i)}
	delete(m, "requestId")
	b, _ := json.Marshal(m)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
}

// lastLine returns the last line of the file at path (without its newline).
func lastLine(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	n := min(fi.Size(), 1<<20)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, fi.Size()-n); err != nil {
		t.Fatal(err)
	}
	buf = buf[:len(buf)-1]
	for i := len(buf) - 1; i >= 0; i-- {
		if buf[i] == '\n' {
			return buf[i+1:]
		}
	}
	return buf
}

// cpuNow is the CPU time (user+sys, all threads) the process used so far.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
