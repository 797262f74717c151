package watch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb/internal/agentrun"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/internal/scriptmodel"
	"github.com/sessiondb/sessiondb/jsonlimport"
)

// TestLiveOpencodeWatched follows opencode itself (opencode-ai 1.18.33,
// installed by testdata/gen/agents) while it writes its database: a new
// session with four tool steps, a resume that delegates to a sub-agent,
// a resume with a long answer, against internal/scriptmodel. The watcher
// imports the store as opencode writes it (its copy refreshed by what the
// -wal gained); at the end the store holds what one import of the final
// database gives, every session opencode made is there, and every
// session's usage is opencode's. With CI set, a missing opencode fails.
func TestLiveOpencodeWatched(t *testing.T) {
	longtest.Skip(t, "runs opencode three times, a minute or more")
	cache := os.Getenv("SESSIONDB_AGENTS_DIR")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "sessiondb-agents")
	}
	in, err := agentrun.Lookup("opencode").Find(cache)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v (go run ./testdata/gen/agents install)", err)
		}
		t.Skip(err)
	}
	h, err := agentrun.NewHome(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := scriptmodel.Start(scriptmodel.Options{IdleTimeout: 10 * time.Minute, MaxRequests: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if err := in.Setup(h, srv.URL()); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(h.Data, "opencode")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	st := newStore(t)
	r := startWatch(t, st, Options{Paths: []string{data}})
	ctx := context.Background()
	t1, err := in.New(t.Context(), h, srv, 5*time.Minute, "Run the tools [[tools]]")
	if err != nil {
		t.Fatalf("new session: %v", err)
	}
	for _, prompt := range []string{"Delegate to a sub-agent [[agent]]", "Write a long answer [[long]]"} {
		if _, err := in.Resume(t.Context(), h, srv, 5*time.Minute, t1.Session, prompt); err != nil {
			t.Fatalf("resume %q: %v", prompt, err)
		}
	}
	want := oneShot(t, data)
	if len(want) < 2 {
		t.Fatalf("one import of opencode's database: %d sessions, want the session and its sub-agent", len(want))
	}
	waitFor(t, "the watcher to hold what one import holds", func() bool {
		got := view(t, st)
		if len(got) != len(want) {
			return false
		}
		for id, w := range want {
			if g, ok := got[id]; !ok || len(g.Transcript) != len(w.Transcript) {
				return false
			}
		}
		return true
	})
	compareViews(t, view(t, st), want)
	for _, p := range r.problems() {
		if !strings.HasPrefix(p.Reason, jsonlimport.UnfinishedMarker) {
			t.Errorf("problem: %v", p)
		}
	}
	sess, err := st.Get(ctx, t1.Session)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("opencode %s: %d sessions followed; %s has %d log entries; %d model requests", in.Version, len(want), sess.ID, sess.LastSeq, srv.Len())
}
