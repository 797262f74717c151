package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestCopyKilledAndRerun kills a real `sessionctl copy` (SIGKILL) while it
// writes into PostgreSQL, checks that the target holds whole sessions
// only, each identical to the source's, then reruns the copy, which
// copies only the rest.
func TestCopyKilledAndRerun(t *testing.T) {
	longtest.Skip(t, "builds the binary and copies many sessions")
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL")
	}
	pg := pgURL(t)
	bin := buildSessionctl(t)

	const sessions, entries = 200, 30
	src := tempDB(t)
	st, err := sqlstore.Open(src, &sqlstore.Options{Durability: sqlstore.DurabilityNormal})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := 0; i < sessions; i++ {
		id := fmt.Sprintf("s%03d", i)
		var es []sessiondb.Entry
		for j := 0; j < entries; j++ {
			es = append(es, sessiondb.Entry{Body: json.RawMessage(fmt.Sprintf(`{"role":"user","content":"session %d turn %d %s"}`, i, j, bytes.Repeat([]byte("x"), 200))), CreatedAt: t0.Add(time.Duration(j) * time.Second)})
		}
		if _, err := st.Commit(ctx, id, sessiondb.Commit{
			Create: &sessiondb.Session{Title: id, CreatedAt: t0},
			Append: es,
			State:  json.RawMessage(fmt.Sprintf(`{"i":%d}`, i)),
			Usage:  []sessiondb.Usage{{Model: "m", InputTokens: int64(i), CreatedAt: t0}},
			Now:    t0.Add(time.Duration(i) * time.Minute),
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	want := dumps(t, src)

	raw, err := sql.Open("pgx", pg)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	count := func() int64 {
		var n int64
		if err := raw.QueryRow(`SELECT count(*) FROM sessions`).Scan(&n); err != nil {
			return -1 // not migrated yet
		}
		return n
	}

	cmd := exec.Command(bin, "copy", "--from", src, "--to", pg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for count() < 10 && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	werr := cmd.Wait()
	atKill := count()
	t.Logf("killed copy (%v) with %d of %d sessions in the target", werr, atKill, sessions)
	if atKill < 10 {
		t.Fatalf("the copy wrote %d sessions before the deadline; stderr: %s", atKill, stderr.String())
	}
	if atKill == sessions {
		t.Logf("the copy finished before the kill landed: the rerun below copies nothing")
	}

	// Whatever is in the target is whole: each session equals the
	// source's (entries, state, usage, counters).
	got := dumps(t, pg)
	if int64(len(got)) != atKill {
		t.Fatalf("target lists %d sessions, count said %d", len(got), atKill)
	}
	part := map[string]sessiondb.SessionDump{}
	for id := range got {
		part[id] = want[id]
	}
	sameDumps(t, part, got)

	// The rerun copies the rest, and only the rest.
	var tot copyTotals
	r := exec.Command(bin, "copy", "--from", src, "--to", pg, "--json")
	started := time.Now()
	out, err := r.Output()
	if err != nil {
		t.Fatalf("rerun: %v", err)
	}
	t.Logf("rerun copied %d sessions in %v (a figure, not a limit)", sessions-atKill, time.Since(started).Round(time.Millisecond))
	if err := json.Unmarshal(out, &tot); err != nil {
		t.Fatalf("rerun output: %v\n%s", err, out)
	}
	if tot.Copied != sessions-atKill || tot.Unchanged != atKill {
		t.Errorf("rerun: %+v; want %d copied and %d unchanged", tot, sessions-atKill, atKill)
	}
	sameDumps(t, want, dumps(t, pg))
	if _, err := os.Stat(src); err != nil {
		t.Fatal(err)
	}
}
