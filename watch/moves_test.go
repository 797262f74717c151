package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb/internal/sessionview"
)

// sameTranscripts reports whether every session of want has in got the
// transcript, usage, state and title of want (log rows may differ: old
// rows of a replaced file stay in the log).
func sameTranscripts(got, want map[string]sessionview.Session) bool {
	for _, d := range sessionview.Compare(got, want) {
		if _, ok := want[d.ID]; !ok {
			continue // a session kept after its file went
		}
		if !d.LogOnly {
			return false
		}
	}
	return true
}

func compareTranscripts(t *testing.T, got, want map[string]sessionview.Session) {
	t.Helper()
	for _, d := range sessionview.Compare(got, want) {
		if _, ok := want[d.ID]; !ok || d.LogOnly {
			continue
		}
		t.Errorf("%s", d)
	}
}

var codexDay = filepath.Join(codexHome, "sessions", "2026", "01", "10")

const rollout1 = "rollout-2026-01-10T09-00-00-019f26cb-0000-7000-8000-000000000001.jsonl"

// TestFolderMovedThenAppended: a folder being written is renamed within
// the tree (to a name that sorts before the old one), then its file gets
// more lines, some in two halves. The lines must be imported: the moved
// folder's inotify watch (by inode) is the one its new path gets, and
// dropping the old path's watch after adding the new one ended it.
//
// The lines are appended once the watcher has taken the move in (its
// import event for the new path: a copy of the old one, skipped), so that
// only the moved folder's watch can bring them. The waits are short (Settle 20 ms, a half line
// left 40 ms, a poll every 20 ms): the file has no side files, and a
// codex rollout is never waited for (NewSettle) by anything but its own
// folder's listing.
func TestFolderMovedThenAppended(t *testing.T) {
	for _, c := range []struct {
		name, to string
		poll     bool
	}{{"before", "moved", false}, {"after", "zzz", false}, {"polled", "moved", true}} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			st := newStore(t)
			r := startWatch(t, st, Options{Paths: []string{root}, Poll: c.poll, PollInterval: 20 * time.Millisecond, Settle: 20 * time.Millisecond, NewSettle: 50 * time.Millisecond})
			ls := lines(readFile(t, filepath.Join(codexDay, rollout1)))
			h := len(ls) / 2
			a := filepath.Join(root, "sessions", "2026", "01", "10", rollout1)
			b := filepath.Join(root, c.to, "2026", "01", "10", rollout1)
			runWriter(t, []step{{Op: "append", File: a, Data: bytesJoin(ls[:h])}})
			waitFor(t, "the first half", func() bool { return caughtUp(st, a) })
			runWriter(t, []step{{Op: "rename", File: filepath.Join(root, "sessions"), To: filepath.Join(root, c.to)}})
			waitFor(t, "the move taken in", func() bool {
				for _, e := range r.of(EventImport) {
					if e.Path == b {
						return true
					}
				}
				return false
			})
			runWriter(t, appendSteps(b, bytesJoin(ls[h:]), 5, 2, 40))
			waitFor(t, "the moved file", func() bool { return caughtUp(st, b) })
			want := oneShot(t, root)
			waitFor(t, "transcripts", func() bool { return sameTranscripts(view(t, st), want) })
			compareTranscripts(t, view(t, st), want)
		})
	}
}

// TestFileMovedThenAppended: a file is moved to another folder of
// the tree (same name), then appended to.
func TestFileMovedThenAppended(t *testing.T) {
	root := t.TempDir()
	st := newStore(t)
	startWatch(t, st, Options{Paths: []string{root}, Settle: 20 * time.Millisecond, NewSettle: noSideFiles})
	ls := lines(readFile(t, filepath.Join(codexDay, rollout1)))
	h := len(ls) / 2
	a := filepath.Join(root, "sessions", "2026", "01", "10", rollout1)
	b := filepath.Join(root, "sessions", "2026", "01", "11", rollout1)
	runWriter(t, []step{{Op: "append", File: a, Data: bytesJoin(ls[:h])}})
	waitFor(t, "the first half", func() bool { return caughtUp(st, a) })
	steps := []step{{Op: "rename", File: a, To: b}}
	steps = append(steps, appendSteps(b, bytesJoin(ls[h:]), 5, 2, 40)...)
	runWriter(t, steps)
	waitFor(t, "the moved file", func() bool { return caughtUp(st, b) })
	want := oneShot(t, root)
	waitFor(t, "transcripts", func() bool { return sameTranscripts(view(t, st), want) })
	compareTranscripts(t, view(t, st), want)
}

// TestDeletedThenRecreated: a file is deleted and a file of the same
// name written again with other content, line by line.
func TestDeletedThenRecreated(t *testing.T) {
	root := t.TempDir()
	st := newStore(t)
	startWatch(t, st, Options{Paths: []string{root}, NewSettle: noSideFiles})
	f := filepath.Join(root, "chat.jsonl")
	runWriter(t, []step{{Op: "append", File: f, Data: []byte(strings.Repeat(`{"role":"user","content":"old"}`+"\n", 5))}})
	waitFor(t, "v1", func() bool { return caughtUp(st, f) })
	steps := []step{{Op: "remove", File: f}}
	for i := 0; i < 8; i++ {
		steps = append(steps, step{Op: "append", File: f, Data: []byte(`{"role":"assistant","content":"new ` + string(rune('a'+i)) + `"}` + "\n"), Sleep: 5})
	}
	runWriter(t, steps)
	waitFor(t, "v2", func() bool { return caughtUp(st, f) })
	want := oneShot(t, root)
	waitFor(t, "transcripts", func() bool { return sameTranscripts(view(t, st), want) })
	compareTranscripts(t, view(t, st), want)
}

// interleave merges step lists round-robin: several agents writing at once.
func interleave(lists ...[]step) []step {
	var out []step
	for i := 0; ; i++ {
		more := false
		for _, l := range lists {
			if i < len(l) {
				out = append(out, l[i])
				more = true
			}
		}
		if !more {
			return out
		}
	}
}

// TestFormatsWrittenTogether writes zot, pi and picoclaw sessions (forks,
// branches, compactions, side files) line by line, interleaved, a third of
// the lines in two halves, into folders made after the watcher started.
// The writer pauses 1 ms a line and 15 ms between a line's halves, the
// watcher settles after 10 ms and at most 60 ms: it imports about as often
// while the files are written (60-70 times) as with the defaults and
// pauses three times as long. NewSettle keeps its default: picoclaw's
// .meta.json comes after its first line.
func TestFormatsWrittenTogether(t *testing.T) {
	root := t.TempDir()
	st := newStore(t)
	startWatch(t, st, Options{Paths: []string{root}, Settle: 10 * time.Millisecond, MaxDelay: 60 * time.Millisecond})
	var lists [][]step
	var files []string
	add := func(src, dst string) {
		files = append(files, dst)
		lists = append(lists, appendSteps(dst, readFile(t, src), 1, 3, 15))
	}
	zot := filepath.Join("..", "testdata", "zot", "zot_home", "sessions")
	for _, d := range []string{"70490179fb06dad3", "819dbc88958c1ad1"} {
		ents, err := os.ReadDir(filepath.Join(zot, d))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			add(filepath.Join(zot, d, e.Name()), filepath.Join(root, "zot_home", "sessions", d, e.Name()))
		}
	}
	for _, n := range []string{"branched.jsonl", "compaction.jsonl", "linear.jsonl"} {
		add(filepath.Join("..", "testdata", "pi", "sessions", n), filepath.Join(root, "pi", "sessions", n))
	}
	for _, n := range []string{"agent_main_cli_direct_alice", "agent_main_telegram_direct_bob"} {
		src := filepath.Join("..", "testdata", "picoclaw", n)
		add(src+".jsonl", filepath.Join(root, "pico", n+".jsonl"))
		lists = append(lists, []step{{Op: "replace", File: filepath.Join(root, "pico", n+".meta.json"), Data: readFile(t, src+".meta.json")}})
	}
	// A pi /fork copies entries its source file already holds: written
	// after it. (Written before its source has them, the fork counts the
	// copied calls as its own, as one import does when the source lacks
	// them.)
	fork := filepath.Join(root, "pi", "sessions", "fork-of-branched.jsonl")
	files = append(files, fork)
	runWriter(t, append(interleave(lists...), appendSteps(fork, readFile(t, filepath.Join("..", "testdata", "pi", "sessions", "fork-of-branched.jsonl")), 1, 3, 15)...))
	waitFor(t, "every file", func() bool { return caughtUp(st, files...) })
	want := oneShot(t, root)
	for deadline := time.Now().Add(20 * time.Second); !sameTranscripts(view(t, st), want) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	compareViews(t, view(t, st), want)
}

// TestPiForkWrittenAfterItsParent: pi's parent session is written whole,
// then its fork (whose first lines are the parent's, copied) line by line.
func TestPiForkWrittenAfterItsParent(t *testing.T) {
	root := t.TempDir()
	st := newStore(t)
	startWatch(t, st, Options{Paths: []string{root}, Settle: 20 * time.Millisecond, NewSettle: noSideFiles})
	src := filepath.Join("..", "testdata", "pi", "sessions")
	parent := filepath.Join(root, "pi", "sessions", "branched.jsonl")
	fork := filepath.Join(root, "pi", "sessions", "fork-of-branched.jsonl")
	runWriter(t, []step{{Op: "append", File: parent, Data: readFile(t, filepath.Join(src, "branched.jsonl"))}})
	waitFor(t, "the parent", func() bool { return caughtUp(st, parent) })
	runWriter(t, appendSteps(fork, readFile(t, filepath.Join(src, "fork-of-branched.jsonl")), 40, 0, 0))
	waitFor(t, "the fork", func() bool { return caughtUp(st, fork) })
	want := oneShot(t, root)
	for deadline := time.Now().Add(10 * time.Second); !sameTranscripts(view(t, st), want) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	compareViews(t, view(t, st), want)
}

// TestRewrittenWhileWritten rewrites Claude Code and Codex files being
// written (whose readers keep a parse state between imports): truncated
// in place to a prefix and continued with other lines at once, then
// replaced by rename with a longer version and appended to at once. Each
// time the transcript must become what one import of the file gives.
func TestRewrittenWhileWritten(t *testing.T) {
	root := t.TempDir()
	st := newStore(t)
	startWatch(t, st, Options{Paths: []string{root}, NewSettle: noSideFiles})
	cc := filepath.Join(root, "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000001.jsonl")
	co := filepath.Join(root, "sessions", "2026", "01", "10", rollout1)
	ccl := lines(readFile(t, filepath.Join(ccProject, filepath.Base(cc))))
	col := lines(readFile(t, filepath.Join(codexDay, rollout1)))
	check := func(what string) {
		t.Helper()
		waitFor(t, what, func() bool { return caughtUp(st, cc, co) })
		want := oneShot(t, root)
		for deadline := time.Now().Add(10 * time.Second); !sameTranscripts(view(t, st), want) && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
		compareTranscripts(t, view(t, st), want)
	}
	runWriter(t, interleave(appendSteps(cc, bytesJoin(ccl[:10]), 5, 3, 30), appendSteps(co, bytesJoin(col[:len(col)-2]), 5, 3, 30)))
	check("the first lines")
	// Truncated to a prefix, continued without some of the lines.
	runWriter(t, []step{
		{Op: "truncate", File: cc, Data: bytesJoin(ccl[:4])},
		{Op: "append", File: cc, Data: bytesJoin(ccl[6:12])},
		{Op: "truncate", File: co, Data: bytesJoin(col[:3])},
		{Op: "append", File: co, Data: bytesJoin(col[5:])},
	})
	check("the truncated files")
	// Replaced by whole versions, then appended to at once.
	runWriter(t, []step{
		{Op: "replace", File: cc, Data: bytesJoin(ccl[:14])},
		{Op: "append", File: cc, Data: bytesJoin(ccl[14:])},
		{Op: "replace", File: co, Data: bytesJoin(col[:len(col)-1])},
		{Op: "append", File: co, Data: col[len(col)-1]},
	})
	check("the replaced files")
}

// TestEditorSave: a file is saved as some editors do (the old one renamed
// to a backup name no format reads, the new one written whole under the
// old name): the session becomes the new file's.
func TestEditorSave(t *testing.T) {
	root := t.TempDir()
	st := newStore(t)
	startWatch(t, st, Options{Paths: []string{root}, NewSettle: noSideFiles})
	f := filepath.Join(root, "chat.jsonl")
	msg := func(i int) []byte {
		return []byte(`{"role":"user","content":"line ` + string(rune('a'+i)) + `"}` + "\n")
	}
	runWriter(t, []step{{Op: "append", File: f, Data: bytesJoin([][]byte{msg(0), msg(1), msg(2)})}})
	waitFor(t, "the first version", func() bool { return caughtUp(st, f) })
	runWriter(t, []step{
		{Op: "rename", File: f, To: f + "~"},
		{Op: "append", File: f, Data: bytesJoin([][]byte{msg(0), msg(3), msg(4), msg(5)})},
	})
	waitFor(t, "the saved file", func() bool { return caughtUp(st, f) })
	want := oneShot(t, root)
	for deadline := time.Now().Add(10 * time.Second); !sameTranscripts(view(t, st), want) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	compareTranscripts(t, view(t, st), want)
}

// TestRolloutRenamedOverAnother renames a Codex rollout (session 0001,
// three lines imported) over another followed rollout (session 0004), then
// appends the rest of 0001's lines to it. One import of the final files
// gives session 0001 with its whole transcript, and so must the watcher:
// the path's file now holds another session, so it continues 0001 and
// leaves 0004 as its file left it (0004's transcript became 0001's lines).
func TestRolloutRenamedOverAnother(t *testing.T) {
	root := t.TempDir()
	st := newStore(t)
	startWatch(t, st, Options{Paths: []string{root}, NewSettle: noSideFiles})
	a := filepath.Join(root, "sessions", "2026", "01", "10", rollout1)
	b := filepath.Join(root, "sessions", "2026", "01", "10", "rollout-2026-01-10T09-30-00-019f26cb-0000-7000-8000-000000000004.jsonl")
	al := lines(readFile(t, filepath.Join(codexDay, rollout1)))
	runWriter(t, []step{
		{Op: "append", File: a, Data: bytesJoin(al[:3])},
		{Op: "append", File: b, Data: readFile(t, filepath.Join(codexDay, filepath.Base(b)))},
	})
	waitFor(t, "the first versions", func() bool { return caughtUp(st, a, b) })
	runWriter(t, []step{{Op: "rename", File: a, To: b}, {Op: "append", File: b, Data: bytesJoin(al[3:])}})
	waitFor(t, "the renamed file", func() bool { return caughtUp(st, b) })
	want := oneShot(t, root)
	for deadline := time.Now().Add(10 * time.Second); !sameTranscripts(view(t, st), want) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	compareTranscripts(t, view(t, st), want)
}

// TestFolderMovedAndMadeAgain moves a folder being written within the
// tree and at once makes a folder of the old name with a new session in
// it: the moved file's new lines and the new file must both be imported
// (the old path's watches were the moved folder's, so the new folder was
// taken for one already followed, and the moved file's lines were lost).
func TestFolderMovedAndMadeAgain(t *testing.T) {
	root := t.TempDir()
	st := newStore(t)
	startWatch(t, st, Options{Paths: []string{root}, Settle: 20 * time.Millisecond, NewSettle: noSideFiles})
	ls := lines(readFile(t, filepath.Join(codexDay, rollout1)))
	h := len(ls) / 2
	a := filepath.Join(root, "sessions", "2026", "01", "10", rollout1)
	b := filepath.Join(root, "moved", "2026", "01", "10", rollout1)
	r4 := "rollout-2026-01-10T09-30-00-019f26cb-0000-7000-8000-000000000004.jsonl"
	c := filepath.Join(root, "sessions", "2026", "01", "10", r4)
	runWriter(t, []step{{Op: "append", File: a, Data: bytesJoin(ls[:h])}})
	waitFor(t, "the first half", func() bool { return caughtUp(st, a) })
	steps := []step{{Op: "rename", File: filepath.Join(root, "sessions"), To: filepath.Join(root, "moved")}}
	steps = append(steps, interleave(appendSteps(c, readFile(t, filepath.Join(codexDay, r4)), 8, 0, 0), appendSteps(b, bytesJoin(ls[h:]), 8, 0, 0))...)
	runWriter(t, steps)
	waitFor(t, "both files", func() bool { return caughtUp(st, b, c) })
	want := oneShot(t, root)
	waitFor(t, "transcripts", func() bool { return sameTranscripts(view(t, st), want) })
	compareTranscripts(t, view(t, st), want)
}

// TestRewrittenInPlaceSlowly truncates a followed Claude Code file and
// writes it again line by line in place (same lines): once caught up, the
// usage totals must be the file's (the documented exception of a
// replacement is the call count and the rows per model and day, not the
// token and cost totals).
func TestRewrittenInPlaceSlowly(t *testing.T) {
	root := t.TempDir()
	st := newStore(t)
	startWatch(t, st, Options{Paths: []string{root}, Settle: 20 * time.Millisecond, NewSettle: noSideFiles})
	cc := filepath.Join(root, "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000001.jsonl")
	ccl := readFile(t, filepath.Join(ccProject, filepath.Base(cc)))
	runWriter(t, []step{{Op: "append", File: cc, Data: ccl}})
	waitFor(t, "v1", func() bool { return caughtUp(st, cc) })
	runWriter(t, append([]step{{Op: "truncate", File: cc, Sleep: 100}}, appendSteps(cc, ccl, 10, 3, 30)...))
	waitFor(t, "v2", func() bool { return caughtUp(st, cc) })
	want := oneShot(t, root)
	for deadline := time.Now().Add(10 * time.Second); !sameTranscripts(view(t, st), want) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	compareTranscripts(t, view(t, st), want)
}
