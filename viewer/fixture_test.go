package viewer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// pwn is the marker every hostile payload tries to set. If any of them
// runs in a browser, window.__pwned is defined.
const pwn = "window.__pwned=1"

// Hostile payloads, as transcripts carry them from web pages, tool output
// and LLMs.
var hostile = []string{
	`<script>` + pwn + `</script>`,
	`<img src=x onerror="` + pwn + `">`,
	`[click me](javascript:` + pwn + `)`,
	`<svg xmlns="http://www.w3.org/2000/svg" onload="` + pwn + `"><circle r="5"/></svg>`,
	`<a href="javascript:` + pwn + `">link</a>`,
	`"><script>` + pwn + `</script>`,
	"```\n</code></pre><script>" + pwn + "</script>\n```",
	"`</code><img src=x onerror=" + pwn + ">`",
	`[x](https://example.com/" onmouseover="` + pwn + `)`,
	`<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>`,
	`<style>body{display:none}</style>`,
	"bidi: \u202Egnp.exe \u2066isolate\u2069 done",
}

// seeded names the sessions seed creates.
type seeded struct {
	st        sessiondb.Store
	hostile   string // tool calls, markdown and every payload
	compacted string // a compaction with a summary, a checkpoint
	big       string // one 10 MB body
	dbPath    string
}

// seed gives the test its own copy of the fixture database (built once
// per test process by buildFixture: committing and indexing the 10 MB body
// takes seconds under -race) and opens it.
func seed(t testing.TB) seeded {
	t.Helper()
	fixtureOnce.Do(func() { fixturePath, fixtureErr = buildFixture() })
	if fixtureErr != nil {
		t.Fatalf("build the fixture database: %v", fixtureErr)
	}
	path := filepath.Join(t.TempDir(), "viewer.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(fixturePath + suffix)
		if errors.Is(err, os.ErrNotExist) && suffix != "" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st, err := sqlstore.Open(path, &sqlstore.Options{Durability: sqlstore.DurabilityNormal})
	if err != nil {
		t.Fatalf("open the copy of the fixture: %v", err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close %s: %v", path, err)
		}
	})
	return seeded{st: st, dbPath: path, hostile: "20260320_143000_hostile", compacted: "20260319_090000_compacted", big: "20260318_080000_big"}
}

var (
	fixtureOnce sync.Once
	fixturePath string
	fixtureErr  error
	fixtureDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureDir != "" {
		_ = os.RemoveAll(fixtureDir)
	}
	os.Exit(code)
}

// buildFixture writes the sessions the handler and browser tests look at
// into a new database file and returns its path.
func buildFixture() (string, error) {
	dir, err := os.MkdirTemp("", "viewer-fixture-")
	if err != nil {
		return "", err
	}
	fixtureDir = dir
	t := &fixtureT{}
	path := filepath.Join(dir, "viewer.db")
	func() {
		defer func() {
			if v := recover(); v != nil && v != errFixture {
				panic(v)
			}
		}()
		fillFixture(t, path)
	}()
	return path, t.err
}

// fixtureT lets the fixture code keep the t.Fatal style outside a test.
type fixtureT struct{ err error }

var errFixture = errors.New("fixture failed")

func (f *fixtureT) Fatal(args ...any) { f.err = errors.New(fmt.Sprint(args...)); panic(errFixture) }
func (f *fixtureT) Fatalf(format string, args ...any) {
	f.err = fmt.Errorf(format, args...)
	panic(errFixture)
}

func fillFixture(t *fixtureT, path string) {
	ctx := context.Background()
	st, err := sqlstore.Open(path, &sqlstore.Options{Durability: sqlstore.DurabilityNormal})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := st.Close(); err != nil && t.err == nil {
			t.err = err
		}
	}()
	day := time.Date(2026, 3, 20, 14, 30, 0, 0, time.UTC)

	msg := func(role string, content any) sessiondb.Entry {
		b, err := json.Marshal(map[string]any{"role": role, "content": content})
		if err != nil {
			t.Fatal(err)
		}
		return sessiondb.Entry{Kind: sessiondb.KindMessage, Body: b}
	}
	all := strings.Join(hostile, "\n\n")
	entries := []sessiondb.Entry{
		msg("user", "Please **deploy** the `web` service; the runbook is at [docs](https://example.com/runbook).\n\n"+all),
		msg("assistant", []any{
			map[string]any{"type": "thinking", "thinking": "The user wants a deploy. " + hostile[0]},
			map[string]any{"type": "text", "text": "| step | status |\n|---|---|\n| build | ok |\n| " + hostile[1] + " | pending |\n\n```sh\nmake deploy\n" + hostile[6] + "\n```"},
			map[string]any{"type": "tool_use", "id": "call_deploy_1", "name": "bash", "input": map[string]any{"cmd": "make deploy " + hostile[3]}},
		}),
		msg("user", []any{
			map[string]any{"type": "tool_result", "tool_use_id": "call_deploy_1", "content": "deployed web v42 " + hostile[3] + " " + hostile[0]},
		}),
		msg("assistant", "Done: **web v42** is live. Say *thanks* to the pipeline. "+hostile[2]+" "+hostile[4]),
	}
	hs, err := st.Commit(ctx, "20260320_143000_hostile", sessiondb.Commit{
		Create: &sessiondb.Session{ID: "20260320_143000_hostile", Title: "deploy <script>" + pwn + "</script> \u202Etxt.exe",
			Aliases: []string{"evil<img src=x onerror=" + pwn + ">"}, Attrs: json.RawMessage(`{"model":"<script>` + pwn + `</script>"}`),
			CreatedAt: day, UpdatedAt: day},
		Append: entries,
		Usage: []sessiondb.Usage{
			{Provider: "anthropic", Model: "claude-<b>sonnet</b>", InputTokens: 1200, OutputTokens: 300, Cost: 0.42, CreatedAt: day},
			{Provider: "openai", Model: "gpt-5", InputTokens: 800, OutputTokens: 200, Cost: 0.18, CreatedAt: day.AddDate(0, 0, 1)},
		},
		Now: day,
	})
	if err != nil {
		t.Fatalf("seed hostile: %v", err)
	}
	_ = hs

	var long []sessiondb.Entry
	for i := 1; i <= 12; i++ {
		long = append(long, msg([]string{"user", "assistant"}[i%2], fmt.Sprintf("turn %d of the refactor", i)))
	}
	cs, err := st.Commit(ctx, "20260319_090000_compacted", sessiondb.Commit{
		Create: &sessiondb.Session{ID: "20260319_090000_compacted", Title: "refactor with a compaction", Aliases: []string{"refactor"},
			CreatedAt: day.AddDate(0, 0, -1), UpdatedAt: day.AddDate(0, 0, -1)},
		Append: long,
		Usage:  []sessiondb.Usage{{Provider: "anthropic", Model: "claude-haiku", InputTokens: 5000, OutputTokens: 900, Cost: 0.05, CreatedAt: day.AddDate(0, 0, -1)}},
		Now:    day.AddDate(0, 0, -1),
	})
	if err != nil {
		t.Fatalf("seed compacted: %v", err)
	}
	if _, err := st.Compact(ctx, cs.ID, sessiondb.Compaction{AtSeq: 12, KeepFromSeq: 9, TokensBefore: 9000, TokensAfter: 1200,
		Summary: []sessiondb.Entry{msg("user", "Summary: turns 1-8 renamed the package. "+hostile[0])}}); err != nil {
		t.Fatalf("compact: %v", err)
	}
	if _, err := st.SaveCheckpoint(ctx, sessiondb.Checkpoint{SessionID: cs.ID, Label: "before-rename", AtSeq: 6}); err != nil {
		t.Fatalf("checkpoint: %v", err)
	}

	huge := strings.Repeat("0123456789abcdef", 10<<20/16-8) + hostile[0]
	bs, err := st.Commit(ctx, "20260318_080000_big", sessiondb.Commit{
		Create: &sessiondb.Session{ID: "20260318_080000_big", Title: "a 10 MB tool output", CreatedAt: day.AddDate(0, 0, -2), UpdatedAt: day.AddDate(0, 0, -2)},
		Append: []sessiondb.Entry{msg("user", "cat the log"), msg("tool", huge)},
		Now:    day.AddDate(0, 0, -2),
	})
	if err != nil {
		t.Fatalf("seed big: %v", err)
	}
	_ = bs
	if err := st.CatchUpIndex(ctx); err != nil {
		t.Fatal(err)
	}
}

// server starts an httptest server for the seeded store.
func server(t testing.TB, st sessiondb.Store, opts Options) *httptest.Server {
	t.Helper()
	h, err := New(st, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func discard() *log.Logger { return log.New(io.Discard, "", 0) }
