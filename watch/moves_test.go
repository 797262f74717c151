package watch

import (
	"path/filepath"
	"strings"
	"testing"

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
func TestFolderMovedThenAppended(t *testing.T) {
	root := t.TempDir()
	st := newStore(t, t.TempDir())
	startWatch(t, st, Options{Paths: []string{root}})
	ls := lines(readFile(t, filepath.Join(codexDay, rollout1)))
	h := len(ls) / 2
	a := filepath.Join(root, "sessions", "2026", "01", "10", rollout1)
	b := filepath.Join(root, "moved", "2026", "01", "10", rollout1)
	runWriter(t, []step{{Op: "append", File: a, Data: bytesJoin(ls[:h])}})
	waitFor(t, "the first half", func() bool { return caughtUp(st, a) })
	steps := []step{{Op: "rename", File: filepath.Join(root, "sessions"), To: filepath.Join(root, "moved"), Sleep: 300}}
	steps = append(steps, appendSteps(b, bytesJoin(ls[h:]), 20, 2, 80)...)
	runWriter(t, steps)
	waitFor(t, "the moved file", func() bool { return caughtUp(st, b) })
	want := oneShot(t, root)
	waitFor(t, "transcripts", func() bool { return sameTranscripts(view(t, st), want) })
	compareTranscripts(t, view(t, st), want)
}

// TestFileMovedThenAppended: a file is moved to another folder of
// the tree (same name), then appended to.
func TestFileMovedThenAppended(t *testing.T) {
	root := t.TempDir()
	st := newStore(t, t.TempDir())
	startWatch(t, st, Options{Paths: []string{root}})
	ls := lines(readFile(t, filepath.Join(codexDay, rollout1)))
	h := len(ls) / 2
	a := filepath.Join(root, "sessions", "2026", "01", "10", rollout1)
	b := filepath.Join(root, "sessions", "2026", "01", "11", rollout1)
	runWriter(t, []step{{Op: "append", File: a, Data: bytesJoin(ls[:h])}})
	waitFor(t, "the first half", func() bool { return caughtUp(st, a) })
	steps := []step{{Op: "rename", File: a, To: b}}
	steps = append(steps, appendSteps(b, bytesJoin(ls[h:]), 10, 2, 80)...)
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
	st := newStore(t, t.TempDir())
	startWatch(t, st, Options{Paths: []string{root}})
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
