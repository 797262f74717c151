package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var (
	ccProject = filepath.Join("..", "testdata", "claudecode", "projects", "-home-dev-proj")
	codexHome = filepath.Join("..", "testdata", "codex", "codex-home")
)

// TestFollowsAgentsWritingInAChildProcess lets a child process write
// Claude Code- and Codex-shaped session files line by line into folders
// it creates after the watcher started (a project folder, a sub-agent
// folder, a Codex day folder), a third of the lines in two halves with a
// pause between them (a torn write). The database must end up holding
// what one import of the final files gives, and no half line may have
// been reported. The writer's pauses are short (5 ms a line, 40 ms
// between the halves of a line), and so are the watcher's (Settle 20 ms,
// NewSettle 50 ms: no file here has side files written after it): the
// files are imported many times while written, half lines included.
func TestFollowsAgentsWritingInAChildProcess(t *testing.T) {
	root := t.TempDir()
	st := newStore(t)
	r := startWatch(t, st, Options{Paths: []string{root}, Settle: 20 * time.Millisecond, NewSettle: 50 * time.Millisecond})

	cc := filepath.Join(root, "claude", "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000004.jsonl")
	agent := filepath.Join(root, "claude", "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000005", "subagents", "agent-ffee0011.jsonl")
	rollout := filepath.Join(root, "codex", "sessions", "2026", "01", "10", "rollout-2026-01-10T09-00-00-019f26cb-0000-7000-8000-000000000001.jsonl")
	var steps []step
	steps = append(steps, appendSteps(cc, readFile(t, filepath.Join(ccProject, filepath.Base(cc))), 5, 3, 40)...)
	steps = append(steps, appendSteps(agent, readFile(t, filepath.Join(ccProject, "5c2d8e41-0000-4000-8000-000000000005", "subagents", "agent-ffee0011.jsonl")), 5, 3, 40)...)
	steps = append(steps, appendSteps(rollout, readFile(t, filepath.Join(codexHome, "sessions", "2026", "01", "10", filepath.Base(rollout))), 5, 3, 40)...)
	runWriter(t, steps)

	waitFor(t, "the watcher to import every line", func() bool { return caughtUp(st, cc, agent, rollout) })
	compareViews(t, view(t, st), oneShot(t, root))
	// The files' own defects are reported as one import reports them;
	// nothing about lines being written.
	known := map[string]bool{}
	for _, p := range oneShotProblems(t, root) {
		known[p.String()] = true
	}
	for _, p := range r.problems() {
		if !known[p.String()] {
			t.Errorf("problem reported while the files were being written: %s", p)
		}
	}
	news := map[string]int{}
	for _, e := range r.of(EventImport) {
		if e.New {
			news[e.Path]++
		}
		if e.Session == "" || e.Format == "" {
			t.Errorf("import event without session or format: %+v", e)
		}
	}
	for _, f := range []string{cc, agent, rollout} {
		if news[f] != 1 {
			t.Errorf("%s: %d import events with New, want 1", f, news[f])
		}
	}
}

// TestCoalescesBursts writes three bursts of 100 lines each, line by line,
// to one file. Each burst must be imported in a few transactions, not one
// per line: the session's Sequence counts its commits. The bursts are 300
// ms apart, more than MaxDelay (250 ms) and NewSettle (50 ms here, the
// file having no side files): each is settled on its own.
func TestCoalescesBursts(t *testing.T) {
	root := t.TempDir()
	st := newStore(t)
	r := startWatch(t, st, Options{Paths: []string{root}, NewSettle: 50 * time.Millisecond})
	f := filepath.Join(root, "burst.jsonl")
	var steps []step
	for b := range 3 {
		for i := range 100 {
			st := step{Op: "append", File: f, Data: fmt.Appendf(nil, `{"role":"user","content":"burst %d line %d"}`+"\n", b, i)}
			if i == 99 && b < 2 {
				st.Sleep = 300
			}
			steps = append(steps, st)
		}
	}
	runWriter(t, steps)
	waitFor(t, "the three bursts", func() bool { return caughtUp(st, f) })
	sf, err := st.SourceFile(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Get(context.Background(), sf.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if s.LastSeq != 300 {
		t.Fatalf("log holds %d entries, want 300", s.LastSeq)
	}
	imports := len(r.of(EventImport))
	t.Logf("300 lines in 3 bursts: %d commits, %d import events", s.Sequence, imports)
	if s.Sequence > 30 || imports > 30 {
		t.Errorf("300 lines written in 3 bursts took %d commits (%d import events): bursts are not coalesced", s.Sequence, imports)
	}
}

// TestReplacedAndTruncatedFiles replaces a followed file (written beside it
// and renamed over it) and then rewrites it shorter in place: each time
// the session's transcript becomes what one import of the new file gives
// (the importer's rule for a changed source), and the old rows stay in
// the log.
func TestReplacedAndTruncatedFiles(t *testing.T) {
	root := t.TempDir()
	st := newStore(t)
	startWatch(t, st, Options{Paths: []string{root}, NewSettle: noSideFiles})
	f := filepath.Join(root, "chat.jsonl")
	msg := func(i int) string { return fmt.Sprintf(`{"role":"user","content":"message %d"}`+"\n", i) }
	var first, second, third string
	for i := range 6 {
		first += msg(i)
	}
	for i := 10; i < 14; i++ {
		second += msg(i)
	}
	third = msg(20)
	runWriter(t, []step{{Op: "append", File: f, Data: []byte(first)}})
	waitFor(t, "the first version", func() bool { return caughtUp(st, f) })

	for _, v := range []struct {
		op, data string
	}{{"replace", second}, {"truncate", third}} {
		runWriter(t, []step{{Op: v.op, File: f, Data: []byte(v.data)}})
		waitFor(t, v.op, func() bool {
			got := view(t, st)
			want := oneShot(t, f)
			for id, w := range want {
				if strings.Join(got[id].Transcript, "\n") != strings.Join(w.Transcript, "\n") {
					return false
				}
			}
			return true
		})
	}
	for id, v := range view(t, st) {
		if len(v.Log) != 6+4+1 {
			t.Errorf("session %s: log of %d rows, want the 11 rows of the three versions", id, len(v.Log))
		}
	}
}

// TestDeletedFilesKeepTheirSessions deletes a followed file and then a
// folder of them: each is reported (EventDeleted, with its session) and
// every session stays.
func TestDeletedFilesKeepTheirSessions(t *testing.T) {
	root := t.TempDir()
	copyTree(t, codexHome, filepath.Join(root, "codex"))
	st := newStore(t)
	r := startWatch(t, st, Options{Paths: []string{root}})
	before := view(t, st)
	if len(before) != 4 {
		t.Fatalf("%d sessions imported at start, want the 4 Codex samples", len(before))
	}
	one := filepath.Join(root, "codex", "sessions", "2025", "05", "02", "rollout-2025-05-02T10-00-00-019f26cb-0000-7000-8000-000000000002.jsonl")
	day := filepath.Join(root, "codex", "sessions", "2026", "01", "10")
	runWriter(t, []step{{Op: "remove", File: one}})
	waitFor(t, "the file's deleted event", func() bool { return len(r.of(EventDeleted)) >= 1 })
	runWriter(t, []step{{Op: "removeall", File: day}})
	waitFor(t, "three deleted events", func() bool { return len(r.of(EventDeleted)) >= 3 })
	deleted := map[string]string{}
	for _, e := range r.of(EventDeleted) {
		deleted[e.Path] = e.Session
		if len(e.Notes) != 1 || !strings.Contains(e.Notes[0].Reason, "kept") {
			t.Errorf("deleted event without its note: %+v", e)
		}
	}
	if deleted[one] != "019f26cb-0000-7000-8000-000000000002" {
		t.Errorf("deleted events %v: want %s with its session", deleted, one)
	}
	if len(deleted) != 3 {
		t.Errorf("deleted events for %d files, want 3: %v", len(deleted), deleted)
	}
	compareViews(t, view(t, st), before)
}

// TestTornTailWaitsForQuiet writes half a line that is completed soon
// (never reported) and then half a line that is left as it is (reported
// once, as torn, when the file has been quiet for TornAfter). NewSettle
// is shorter than the pause in the middle of line 2, so that the file is
// imported meanwhile (the file has no side files to wait for), and
// TornAfter three times that pause.
func TestTornTailWaitsForQuiet(t *testing.T) {
	root := t.TempDir()
	st := newStore(t)
	r := startWatch(t, st, Options{Paths: []string{root}, NewSettle: 50 * time.Millisecond, TornAfter: time.Second})
	f := filepath.Join(root, "codex.jsonl")
	data := readFile(t, filepath.Join(codexHome, "sessions", "2026", "01", "10", "rollout-2026-01-10T09-00-00-019f26cb-0000-7000-8000-000000000001.jsonl"))
	ls := lines(data)
	l2 := ls[1]
	steps := []step{
		{Op: "append", File: f, Data: ls[0]},
		{Op: "append", File: f, Data: l2[:len(l2)/2], Sleep: 300}, // imported meanwhile: line 1 only
		{Op: "append", File: f, Data: l2[len(l2)/2:]},
	}
	runWriter(t, steps)
	waitFor(t, "two lines", func() bool { return caughtUp(st, f) })
	l3 := ls[2]
	runWriter(t, []step{{Op: "append", File: f, Data: l3[:len(l3)/2]}})
	waitFor(t, "the torn line to be reported", func() bool { return len(r.of(EventTorn)) > 0 })
	torn := r.of(EventTorn)
	if len(torn) != 1 || len(torn[0].Problems) != 1 || torn[0].Problems[0].Line != 3 || torn[0].Path != f {
		t.Fatalf("torn events %+v, want one for line 3 of %s", torn, f)
	}
	for _, e := range r.of(EventImport) {
		if len(e.Problems) > 0 {
			t.Errorf("import reported problems while lines were being written: %+v", e.Problems)
		}
	}
	// Completed at last: imported, not reported again.
	runWriter(t, []step{{Op: "append", File: f, Data: l3[len(l3)/2:]}})
	waitFor(t, "three lines", func() bool { return caughtUp(st, f) })
	if n := len(r.of(EventTorn)); n != 1 {
		t.Errorf("%d torn events, want 1", n)
	}
}

// TestPollFollowsEverything runs the watcher with Poll: new folders and
// files, appends, a replaced file and a deleted one are followed.
func TestPollFollowsEverything(t *testing.T) {
	root := t.TempDir()
	st := newStore(t)
	r := startWatch(t, st, Options{Paths: []string{root}, Poll: true, PollInterval: 50 * time.Millisecond})
	w := r.of(EventWatching)
	if len(w) != 1 || w[0].Mode != "poll" || len(r.of(EventFallback)) != 1 {
		t.Fatalf("watching %+v, fallbacks %+v: want every directory polled, said once", w, r.of(EventFallback))
	}
	rollout := filepath.Join(root, "sessions", "2026", "01", "12", "rollout-2026-01-12T09-00-00-019f26cb-0000-7000-8000-000000000003.jsonl")
	runWriter(t, appendSteps(rollout, readFile(t, filepath.Join(codexHome, "sessions", "2026", "01", "12", filepath.Base(rollout))), 30, 0, 0))
	waitFor(t, "the polled file", func() bool { return caughtUp(st, rollout) })
	compareViews(t, view(t, st), oneShot(t, root))
	runWriter(t, []step{{Op: "remove", File: rollout}})
	waitFor(t, "the deletion", func() bool { return len(r.of(EventDeleted)) == 1 })
}

// TestSideFilesFollowed changes side files after their sessions were
// imported: a Claude Code tool-results file appears in the session's
// folder, and a picoclaw session gets more lines and its .meta.json
// rewritten (written beside it and renamed over, as picoclaw does). Each
// session is imported again with them, as one import of the final files
// reads them.
func TestSideFilesFollowed(t *testing.T) {
	root := t.TempDir()
	st := newStore(t)
	r := startWatch(t, st, Options{Paths: []string{root}})
	proj := filepath.Join(root, "-home-dev-proj")
	cc := filepath.Join(proj, "5c2d8e41-0000-4000-8000-000000000001.jsonl")
	tool := filepath.Join(proj, "5c2d8e41-0000-4000-8000-000000000001", "tool-results", "toolu_01.txt")
	pico := filepath.Join(root, "pico", "agent_main_cli_direct_alice.jsonl")
	meta := strings.TrimSuffix(pico, ".jsonl") + ".meta.json"
	picoSrc := filepath.Join("..", "testdata", "samples", "picoclaw", "agent_main_cli_direct_alice")
	picoLines := lines(readFile(t, picoSrc+".jsonl"))
	// Claude Code writes an oversized tool output to tool-results/ before
	// the lines that name its tool call: the transcript's first lines, the
	// file once they are imported, then the rest once the file is.
	ccLines := lines(readFile(t, filepath.Join(ccProject, filepath.Base(cc))))
	runWriter(t, []step{
		{Op: "append", File: cc, Data: bytesJoin(ccLines[:3])},
		{Op: "append", File: pico, Data: picoLines[0]},
		{Op: "replace", File: meta, Data: []byte(`{"key":"agent:main:cli:direct:alice","summary":"","skip":0,"count":1}`)},
	})
	// Caught up, and the imports' events recorded (an event comes just
	// after its transaction), so that the next one is the tool file's.
	imported := func(p string) bool {
		for _, e := range r.of(EventImport) {
			if e.Path == p {
				return true
			}
		}
		return false
	}
	waitFor(t, "the first lines", func() bool { return caughtUp(st, cc, pico) && imported(cc) && imported(pico) })
	seen := len(r.of(EventImport))
	runWriter(t, []step{
		{Op: "append", File: tool, Data: readFile(t, filepath.Join(ccProject, "5c2d8e41-0000-4000-8000-000000000001", "tool-results", "toolu_01.txt"))},
	})
	// The session is imported again with it (nothing names it yet: a note).
	waitFor(t, "the tool-results file", func() bool {
		for _, e := range r.of(EventImport)[seen:] {
			if e.Path == cc {
				return true
			}
		}
		return false
	})
	runWriter(t, []step{
		{Op: "append", File: cc, Data: bytesJoin(ccLines[3:])},
		{Op: "append", File: pico, Data: bytesJoin(picoLines[1:])},
		{Op: "replace", File: meta, Data: readFile(t, picoSrc+".meta.json")},
	})
	want := oneShot(t, root)
	waitFor(t, "the side files", func() bool {
		got := view(t, st)
		for id, w := range want {
			if strings.Join(got[id].Transcript, "\n") != strings.Join(w.Transcript, "\n") || got[id].Title != w.Title {
				if os.Getenv("WATCH_DEBUG") != "" {
					t.Logf("%s: %d vs %d, %q vs %q", id, len(got[id].Transcript), len(w.Transcript), got[id].Title, w.Title)
				}
				return false
			}
		}
		return true
	})
	got := view(t, st)
	var toolEntry bool
	for _, l := range got["5c2d8e41-0000-4000-8000-000000000001"].Log {
		toolEntry = toolEntry || strings.Contains(l, "tool-result-file")
	}
	if !toolEntry {
		t.Errorf("the tool-results file added later is not in the session's log")
	}
	compareViews(t, got, want)
}

func bytesJoin(bs [][]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

// TestPathThatAppearsLater follows a path that does not exist at start.
func TestPathThatAppearsLater(t *testing.T) {
	root := filepath.Join(t.TempDir(), "later")
	st := newStore(t)
	r := startWatch(t, st, Options{Paths: []string{root}, MissingInterval: 50 * time.Millisecond})
	f := filepath.Join(root, "deep", "chat.jsonl")
	runWriter(t, []step{{Op: "append", File: f, Data: []byte(`{"role":"user","content":"hello"}` + "\n")}})
	waitFor(t, "the path that appeared", func() bool { return caughtUp(st, f) })
	// Followed from then on.
	runWriter(t, []step{{Op: "append", File: f, Data: []byte(`{"role":"assistant","content":"hi"}` + "\n")}})
	waitFor(t, "the line appended to it", func() bool { return caughtUp(st, f) })
	compareViews(t, view(t, st), oneShot(t, root))
	if w := r.of(EventWatching); len(w) != 1 || len(w[0].Roots) != 1 {
		t.Errorf("watching events %+v", w)
	}
}

// TestWatchLimitFallsBackToPolling makes adding a watch fail with ENOSPC
// after three directories (as inotify_add_watch does at the limit): the
// fallback is said once and the other directories are still followed.
// TestWatchLimitInUserNamespace does the same with the real kernel limit.
func TestWatchLimitFallsBackToPolling(t *testing.T) {
	root := t.TempDir()
	for i := range 6 {
		if err := os.MkdirAll(filepath.Join(root, fmt.Sprintf("d%d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	added := 0
	st := newStore(t)
	r := startWatch(t, st, Options{Paths: []string{root}, PollInterval: 50 * time.Millisecond, NewSettle: noSideFiles, addWatch: func(string) error {
		if added == 3 {
			return fmt.Errorf("inotify_add_watch: %w", syscall.ENOSPC)
		}
		added++
		return nil
	}})
	w := r.of(EventWatching)
	if len(w) != 1 || w[0].Dirs != 7 || w[0].Polled != 4 || w[0].Mode != "events+poll" {
		t.Fatalf("watching %+v: want 7 directories, 4 polled", w)
	}
	f := filepath.Join(root, "d5", "x.jsonl")
	g := filepath.Join(root, "d5", "new", "y.jsonl")
	runWriter(t, []step{{Op: "append", File: f, Data: []byte(`{"role":"user","content":"polled"}` + "\n")},
		{Op: "append", File: g, Data: []byte(`{"role":"user","content":"in a new folder"}` + "\n")}})
	waitFor(t, "files in polled directories", func() bool { return caughtUp(st, f, g) })
	if n := len(r.of(EventFallback)); n != 1 {
		t.Errorf("%d fallback events, want the limit said once", n)
	}
}

// TestStopsBetweenTransactions cancels the watcher while a child writes:
// Run returns nil, and whatever it had imported is whole (a new watcher
// catches up to exactly what one import gives).
func TestStopsBetweenTransactions(t *testing.T) {
	root := t.TempDir()
	st := newStore(t)
	r := startWatch(t, st, Options{Paths: []string{root}})
	var steps []step
	for i := range 400 {
		steps = append(steps, step{Op: "append", File: filepath.Join(root, fmt.Sprintf("f%d.jsonl", i%4)), Data: fmt.Appendf(nil, `{"role":"user","content":"line %d"}`+"\n", i), Sleep: 1})
	}
	cmd := startWriter(t, steps)
	time.Sleep(150 * time.Millisecond)
	r.stop(t)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := r.of(EventStopped); len(got) != 1 {
		t.Errorf("%d stopped events", len(got))
	}
	r2 := startWatch(t, st, Options{Paths: []string{root}})
	_ = r2
	compareViews(t, view(t, st), oneShot(t, root))
}

func TestRunRefusesBadOptions(t *testing.T) {
	st := newStore(t)
	for _, o := range []Options{{}, {Paths: []string{t.TempDir()}, Format: "nope"}} {
		if err := Run(context.Background(), st, o); err == nil {
			t.Errorf("Run(%+v) = nil, want an error", o)
		}
	}
	if err := Run(context.Background(), st, Options{}); err == nil || !strings.Contains(err.Error(), "no path") {
		t.Errorf("no path: %v", err)
	}
}

// TestLostEventsRescan: when the kernel's event queue overflows, the
// changes it dropped are found by looking at everything again. The
// watcher here gets no events at all (its watches are fakes), so only the
// rescan can find the file.
func TestLostEventsRescan(t *testing.T) {
	root := t.TempDir()
	st := newStore(t)
	var w *watcher
	caught := make(chan struct{}, 4)
	var fallbacks []string
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, st, Options{Paths: []string{root}, addWatch: func(string) error { return nil }, Events: func(e Event) {
			switch e.Kind {
			case EventCatchUp:
				caught <- struct{}{}
			case EventFallback:
				fallbacks = append(fallbacks, e.Message)
			}
		}}, &w)
	}()
	<-caught
	f := filepath.Join(root, "sub", "chat.jsonl")
	runWriter(t, []step{{Op: "append", File: f, Data: []byte(`{"role":"user","content":"unseen"}` + "\n")}})
	time.Sleep(200 * time.Millisecond)
	if caughtUp(st, f) {
		t.Fatal("imported without any event: the test's watches are not fakes")
	}
	w.q.lost()
	<-caught
	if !caughtUp(st, f) {
		t.Errorf("the rescan after lost events did not import %s", f)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(fallbacks) != 1 || !strings.Contains(fallbacks[0], "overflowed") {
		t.Errorf("fallback events %q: want the overflow said", fallbacks)
	}
}

// TestCatchUpReportsWhatImportReports: at the start, files no format
// claims are problems (or notes) as for `import`, but an empty directory
// to follow is not: it is an archive before its first session.
func TestCatchUpReportsWhatImportReports(t *testing.T) {
	root := t.TempDir()
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "mystery.jsonl"), []byte(`{"what":"no format"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := newStore(t)
	r := startWatch(t, st, Options{Paths: []string{root, empty}})
	c := r.of(EventCatchUp)[0]
	if len(c.Report.Problems) != 1 || !strings.Contains(c.Report.Problems[0].Reason, "unknown format") {
		t.Errorf("catch-up problems %v, want the unknown .jsonl only", c.Report.Problems)
	}
	if len(c.Report.Notes) != 1 || c.Report.Skipped != 1 {
		t.Errorf("catch-up notes %v (skipped %d), want notes.txt", c.Report.Notes, c.Report.Skipped)
	}
}
