package watch

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/pinode"
)

// TestPiSessionWrittenLive lets pi's own SessionManager (node, live.mjs)
// write a session turn by turn while the watcher follows its folder: the
// session must end up as one import of the final file gives it, with the
// messages pi itself resumes, and its last words must be searchable.
func TestPiSessionWrittenLive(t *testing.T) {
	node, script := pinode.Script(t, "live.mjs")
	root := t.TempDir()
	dir := filepath.Join(root, "sessions", "--home-dev-proj--")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	st := newStore(t, t.TempDir())
	r := startWatch(t, st, Options{Paths: []string{root}})
	cmd := exec.Command(node, script, dir, "12", "60")
	cmd.Dir = filepath.Dir(script)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("live.mjs: %v", err)
	}
	var res struct {
		File     string `json:"file"`
		Messages int    `json:"messages"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("live.mjs printed %q: %v", out, err)
	}
	waitFor(t, "pi's session", func() bool { return caughtUp(st, res.File) })
	got := view(t, st)
	compareViews(t, got, oneShot(t, root))
	if len(got) != 1 {
		t.Fatalf("%d sessions, want 1", len(got))
	}
	for id, v := range got {
		n := 0
		for _, e := range v.Transcript {
			if strings.HasPrefix(e, sessiondb.KindMessage+" ") {
				n++
			}
		}
		if n != res.Messages {
			t.Errorf("session %s: %d messages in the transcript, pi resumes %d", id, n, res.Messages)
		}
	}
	hits, err := st.Search(context.Background(), "kangaroo11", sessiondb.SearchOptions{})
	if err != nil || len(hits) != 1 {
		t.Errorf("search for the last answer: %d hits, %v", len(hits), err)
	}
	if imports := r.of(EventImport); len(imports) < 2 {
		t.Errorf("%d import events: the session was not followed as pi wrote it", len(imports))
	}
}
