package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb/internal/sessionview"
)

// TestWatchSIGKILLResumes writes Claude Code, Codex and zot sessions line
// by line (every third line in two halves) while a real `sessionctl
// watch` is SIGKILLed and started again four times: once the last
// watcher has caught up, the database must hold exactly what one import
// of the final files gives (no row twice, none lost).
func TestWatchSIGKILLResumes(t *testing.T) {
	bin := buildSessionctl(t)
	db, dir := tempDB(t), t.TempDir()
	td := filepath.Join("..", "..", "testdata")
	type file struct{ src, dst string }
	cc := filepath.Join(td, "claudecode", "projects", "-home-dev-proj")
	rollout := "rollout-2026-01-10T09-00-00-019f26cb-0000-7000-8000-000000000001.jsonl"
	zot := filepath.Join(td, "zot", "zot_home", "sessions", "70490179fb06dad3", "20261129-124252-2e54afb2.jsonl")
	files := []file{
		{filepath.Join(cc, "5c2d8e41-0000-4000-8000-000000000001.jsonl"), filepath.Join(dir, "claude", "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000001.jsonl")},
		{filepath.Join(cc, "5c2d8e41-0000-4000-8000-000000000002.jsonl"), filepath.Join(dir, "claude", "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000002.jsonl")},
		{filepath.Join(td, "codex", "codex-home", "sessions", "2026", "01", "10", rollout), filepath.Join(dir, "codex", "sessions", "2026", "01", "10", rollout)},
		{zot, filepath.Join(dir, "zot_home", "sessions", "70490179fb06dad3", filepath.Base(zot))},
	}
	// The writes, round-robin over the files; a third of the lines in two
	// halves.
	var writes []func()
	for i := 0; ; i++ {
		more := false
		for _, f := range files {
			data, err := os.ReadFile(f.src)
			if err != nil {
				t.Fatal(err)
			}
			ls := bytes.SplitAfter(data, []byte("\n"))
			if i >= len(ls) || len(ls[i]) == 0 {
				continue
			}
			more = true
			l, dst := string(ls[i]), f.dst
			if i%3 == 2 && len(l) > 8 {
				writes = append(writes, func() { appendTo(t, dst, l[:len(l)/2]) }, func() { appendTo(t, dst, l[len(l)/2:]) })
			} else {
				writes = append(writes, func() { appendTo(t, dst, l) })
			}
		}
		if !more {
			break
		}
	}
	start := func() (*exec.Cmd, *syncBuffer) {
		cmd := exec.Command(bin, "--db", db, "watch", dir)
		var out syncBuffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &out
	}
	cmd, out := start()
	waitOutput(t, out, "caught up")
	kills := 0
	for i, w := range writes {
		w()
		time.Sleep(3 * time.Millisecond)
		if i > 0 && i%(len(writes)/5) == 0 && kills < 4 {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			kills++
			cmd, out = start()
		}
	}
	waitOutput(t, out, "caught up")
	// Caught up: every file's offset is its last newline.
	deadline := time.Now().Add(time.Minute)
	for {
		got := readView(t, db)
		one := tempDB(t)
		sessionctl(t, one, "import", dir).mustSucceed(t)
		want := readView(t, one)
		diffs := sessionview.Compare(got, want)
		if len(diffs) == 0 {
			break
		}
		if time.Now().After(deadline) {
			for _, d := range diffs {
				t.Errorf("%s", d)
			}
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if kills != 4 {
		t.Errorf("%d kills, want 4", kills)
	}
}
