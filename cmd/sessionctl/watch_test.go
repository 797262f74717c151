package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/sessionview"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// startWatchCmd runs `sessionctl watch` in-process until the returned stop
// function cancels it (as SIGINT does); stop returns the exit code.
func startWatchCmd(t *testing.T, db string, args ...string) (*syncBuffer, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"--db", db, "watch"}, args...), strings.NewReader(""), &stdout, &stderr)
	}()
	stopped := false
	stop := func() int {
		if stopped {
			return 0
		}
		stopped = true
		cancel()
		code := <-done
		if s := stderr.String(); s != "" {
			t.Errorf("watch wrote to stderr: %q", s)
		}
		return code
	}
	t.Cleanup(func() { stop() })
	return &stdout, stop
}

func waitOutput(t *testing.T, out *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the output:\n%s", want, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitEntries waits until db's sessions hold n log entries in all.
func waitEntries(t *testing.T, db string, n int64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var got int64
		withStore(t, db, func(st *sqlstore.Store) {
			infos, _, err := st.List(context.Background(), sessiondb.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, si := range infos {
				got += si.EntryCount
			}
		})
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d entries in the database, want %d", got, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func appendTo(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
}

// TestWatchJSONLines checks the --json contract: one object per line, each
// with time and event; one "import" object per file imported, with path,
// format, session, new, entries, problems and notes; "stopped" last.
func TestWatchJSONLines(t *testing.T) {
	db, dir := tempDB(t), t.TempDir()
	f := filepath.Join(dir, "chat.jsonl")
	appendTo(t, f, `{"role":"user","content":"first"}`+"\n")
	out, stop := startWatchCmd(t, db, "--json", dir)
	waitOutput(t, out, `"event":"catch-up"`)
	appendTo(t, f, `{"role":"assistant","content":"second"}`+"\n")
	waitOutput(t, out, `"catch_up":true`)
	deadline := time.Now().Add(time.Minute)
	for strings.Count(out.String(), `"event":"import"`) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if code := stop(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var kinds []string
	for _, l := range lines {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON object: %q", l)
		}
		var kind, at string
		_ = json.Unmarshal(m["event"], &kind)
		_ = json.Unmarshal(m["time"], &at)
		if _, err := time.Parse(time.RFC3339Nano, at); err != nil {
			t.Errorf("line without a time: %q", l)
		}
		kinds = append(kinds, kind)
		if kind != "import" {
			continue
		}
		for _, k := range []string{"path", "format", "session", "new", "entries", "problems", "notes"} {
			if _, ok := m[k]; !ok {
				t.Errorf("import line without %q: %s", k, l)
			}
		}
		var e struct {
			Path     string                `json:"path"`
			Format   string                `json:"format"`
			Session  string                `json:"session"`
			Entries  int                   `json:"entries"`
			New      bool                  `json:"new"`
			Problems []jsonlimport.Problem `json:"problems"`
		}
		_ = json.Unmarshal([]byte(l), &e)
		var catchUp struct {
			CatchUp bool `json:"catch_up"`
		}
		_ = json.Unmarshal([]byte(l), &catchUp)
		wantNew := catchUp.CatchUp // the first line, imported by the catch-up at the start
		if e.Path != f || e.Format != "picoclaw" || e.Session != "chat" || e.Entries != 1 || e.New != wantNew || e.Problems == nil {
			t.Errorf("import line %s", l)
		}
	}
	if got := strings.Join(kinds, ","); got != "watching,import,catch-up,import,stopped" {
		t.Errorf("events %s, want watching,import (the catch-up's file),catch-up,import,stopped", got)
	}
}

// TestWatchQuietLog checks that the human log names new sessions and
// deletions but not every append, and makes data visible.
func TestWatchQuietLog(t *testing.T) {
	db, dir := tempDB(t), t.TempDir()
	out, stop := startWatchCmd(t, db, dir)
	waitOutput(t, out, "caught up")
	f := filepath.Join(dir, "evil\x1b[2J", "chat.jsonl")
	appendTo(t, f, `{"role":"user","content":"one"}`+"\n")
	waitOutput(t, out, "new picoclaw session")
	for i := range 5 {
		appendTo(t, f, fmt.Sprintf(`{"role":"user","content":"more %d"}`+"\n", i))
		time.Sleep(80 * time.Millisecond)
	}
	// The deletion must come after the watcher read the last append (on a
	// loaded machine it may not have yet, and a deleted file's last lines
	// cannot be read).
	waitEntries(t, db, 6)
	if err := os.Remove(f); err != nil {
		t.Fatal(err)
	}
	waitOutput(t, out, "deleted ")
	if code := stop(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	log := out.String()
	if strings.Contains(log, "\x1b") {
		t.Errorf("raw escape byte in the log: %q", log)
	}
	if strings.Count(log, "\n") > 8 {
		t.Errorf("the log is not quiet:\n%s", log)
	}
	for _, want := range []string{"watching 1 paths", "caught up", "new picoclaw session", `evil\x1b[2J`, "appended 5 entries to 1 sessions", "stopped"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

func TestWatchUsageErrors(t *testing.T) {
	db := tempDB(t)
	sessionctl(t, db, "watch", "--format", "nope", t.TempDir()).mustFail(t, exitUsage, "unknown --format")
	sessionctl(t, db, "watch", "--poll-interval", "0s", t.TempDir()).mustFail(t, exitUsage, "--poll-interval")
	sessionctl(t, db, "watch", filepath.Join(t.TempDir(), "missing")).mustFail(t, exitError, "cannot read")
}

// TestWatchSIGTERM sends SIGTERM to a real `sessionctl watch` while files
// are being appended to: it must exit 0 with "stopped" last, leave a sound
// database, and a new watcher must bring it to exactly what one import of
// the final files gives.
func TestWatchSIGTERM(t *testing.T) {
	bin := buildSessionctl(t)
	db, dir := tempDB(t), t.TempDir()
	cmd := exec.Command(bin, "--db", db, "watch", dir)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitOutput(t, &out, "caught up")
	for i := range 300 {
		appendTo(t, filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i%5)), fmt.Sprintf(`{"role":"user","content":"line %d"}`+"\n", i))
		if i == 200 {
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
		time.Sleep(time.Millisecond)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, out.String())
	}
	if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); !strings.HasSuffix(lines[len(lines)-1], "stopped") {
		t.Errorf("last line %q, want stopped", lines[len(lines)-1])
	}
	withStore(t, db, func(st *sqlstore.Store) {}) // opens and runs the integrity checks of Open
	out2, stop := startWatchCmd(t, db, dir)
	waitOutput(t, out2, "caught up")
	stop()
	got := readView(t, db)
	one := tempDB(t)
	sessionctl(t, one, "import", dir).mustSucceed(t)
	want := readView(t, one)
	for _, d := range sessionview.Compare(got, want) {
		t.Errorf("%s", d)
	}
	if len(want) != 5 {
		t.Errorf("%d sessions, want 5", len(want))
	}
}

func readView(t *testing.T, db string) map[string]sessionview.Session {
	t.Helper()
	var v map[string]sessionview.Session
	withStore(t, db, func(st *sqlstore.Store) {
		var err error
		if v, err = sessionview.Read(context.Background(), st); err != nil {
			t.Fatal(err)
		}
	})
	return v
}

// TestServeWatch runs the viewer and a watcher in one process: a line
// appended to a followed file becomes searchable through the viewer's API.
func TestServeWatch(t *testing.T) {
	db, dir := tempDB(t), t.TempDir()
	f := filepath.Join(dir, "live.jsonl")
	appendTo(t, f, `{"role":"user","content":"hello"}`+"\n")
	base := startServe(t, db, "--watch-path", dir)
	appendTo(t, f, `{"role":"assistant","content":"the ocelot sleeps"}`+"\n")
	deadline := time.Now().Add(time.Minute)
	for {
		code, body := httpGet(t, base+"api/search?q="+url.QueryEscape("ocelot"))
		if code == 200 && strings.Contains(body, `"live"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the appended line never became searchable: %d %s", code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
