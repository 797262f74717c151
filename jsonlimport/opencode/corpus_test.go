package opencode_test

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/opencode"
)

// The corpus opencode 1.18.33 wrote against internal/scriptmodel
// (testdata/agents/opencode and its subagent/ plan; testdata/gen/agents):
// its store as opencode left it after the last run (home.tar.gz), what
// `opencode export` printed, what opencode sent the model (requests/) and
// printed (outputs/).
var agentsDirs = []string{
	filepath.Join("..", "..", "testdata", "agents", "opencode"),
	filepath.Join("..", "..", "testdata", "agents", "opencode", "subagent"),
}

// agentsManifest is what the corpus' manifest says of its runs.
type agentsManifest struct {
	Version  string            `json:"installed_version"`
	Sessions map[string]string `json:"sessions"`
	Runs     []struct {
		Name      string `json:"name"`
		SessionID string `json:"session_id"`
		Stdout    string `json:"stdout"`
		Requests  string `json:"request_log"`
	} `json:"runs"`
	Exports []string `json:"exports"`
}

// untar unpacks a corpus home.tar.gz into a new folder and returns the
// database's path there.
func untar(t *testing.T, tarball string) string {
	t.Helper()
	f, err := os.Open(tarball)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(zr)
	db := ""
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg || strings.Contains(h.Name, "..") {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if filepath.Base(p) == "opencode.db" {
			db = p
		}
	}
	if db == "" {
		t.Fatalf("%s holds no opencode.db", tarball)
	}
	return db
}

// item is one thing of a conversation as opencode sends it to the model.
type item struct {
	Kind string // user, text, thinking, call, result
	ID   string
	Text string
}

// requestItems reads a Chat Completions request body's messages (the
// system prompt left out).
func requestItems(t *testing.T, body json.RawMessage) []item {
	t.Helper()
	var req struct {
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			Reasoning string          `json:"reasoning_content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	text := func(raw json.RawMessage) string {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		var parts []struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(raw, &parts)
		var out []string
		for _, p := range parts {
			out = append(out, p.Text)
		}
		return strings.Join(out, "\n\n")
	}
	var out []item
	for _, m := range req.Messages {
		switch m.Role {
		case "user":
			out = append(out, item{Kind: "user", Text: text(m.Content)})
		case "assistant":
			if m.Reasoning != "" {
				out = append(out, item{Kind: "thinking", Text: m.Reasoning})
			}
			if s := text(m.Content); s != "" {
				out = append(out, item{Kind: "text", Text: s})
			}
			for _, c := range m.ToolCalls {
				out = append(out, item{Kind: "call", ID: c.ID, Text: c.Function.Name + " " + compactArgs(c.Function.Arguments)})
			}
		case "tool":
			out = append(out, item{Kind: "result", ID: m.ToolCallID, Text: text(m.Content)})
		}
	}
	return out
}

func compactArgs(s string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) != nil {
		return s
	}
	return b.String()
}

// transcriptItems reads a session's transcript with the message reader,
// as the viewer, show and the MCP server do.
func transcriptItems(t *testing.T, s sessiondb.Store, id string) (items []item, calls, results int) {
	t.Helper()
	tr, err := s.Load(context.Background(), id, sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage}})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tr {
		m := jsonlimport.Understand(opencode.Name, e)
		if m.Role == "user" {
			items = append(items, item{Kind: "user", Text: m.Text})
			continue
		}
		if m.Thinking != "" {
			items = append(items, item{Kind: "thinking", Text: m.Thinking})
		}
		if m.Text != "" {
			items = append(items, item{Kind: "text", Text: m.Text})
		}
		for _, c := range m.Calls {
			items = append(items, item{Kind: "call", ID: c.ID, Text: c.Name + " " + compactArgs(c.Arguments)})
			calls++
		}
		for _, r := range m.Results {
			items = append(items, item{Kind: "result", ID: r.CallID, Text: r.Text})
			results++
		}
	}
	return items, calls, results
}

// lastRequest returns the last request of the corpus whose conversation
// is session items' (it starts with the session's first prompt), with
// tools: a title request has none.
func lastRequest(t *testing.T, dir string, m agentsManifest, first string) []item {
	t.Helper()
	var last []item
	for _, r := range m.Runs {
		f, err := os.Open(filepath.Join(dir, r.Requests))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var rec struct {
				Scenario string          `json:"scenario"`
				Body     json.RawMessage `json:"body"`
			}
			if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Scenario == "side" {
				continue
			}
			items := requestItems(t, rec.Body)
			if len(items) > 0 && items[0].Text == first {
				last = items
			}
		}
		f.Close()
	}
	return last
}

// finalText returns the text opencode printed for the last run of a
// session (its "text" events).
func finalText(t *testing.T, dir string, m agentsManifest, id string) (string, bool) {
	t.Helper()
	out := ""
	for _, r := range m.Runs {
		if r.SessionID != id {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, r.Stdout))
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, line := range bytes.Split(b, []byte("\n")) {
			var ev struct {
				Type string `json:"type"`
				Part struct {
					Text string `json:"text"`
				} `json:"part"`
			}
			if json.Unmarshal(line, &ev) == nil && ev.Type == "text" {
				texts = append(texts, ev.Part.Text)
			}
		}
		out = strings.Join(texts, "\n\n")
	}
	return out, out != ""
}

// TestOpencodeAgentsCorpus imports every store opencode wrote in the
// agents corpus and checks each session against opencode's own output:
// its transcript, read with the message reader, is what opencode sent the
// model in its last request of the session (every prompt, the hand-edited
// one as edited, every text, thinking, tool call and result, in order)
// followed by the answer it printed; its usage is opencode's (tokens and
// cost of its session row); its export is opencode's export byte for
// byte; the import has no problem and leaves the store's files as they
// were.
func TestOpencodeAgentsCorpus(t *testing.T) {
	ctx := context.Background()
	var sessions, imported, calls, paired, usageEqual int
	for _, dir := range agentsDirs {
		raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m agentsManifest
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		db := untar(t, filepath.Join(dir, "home.tar.gz"))
		before := listing(t, filepath.Dir(db))
		want := opencodeTotals(t, db)
		sessions += len(want)
		s := jsonltest.OpenStore(t)
		rep, err := jsonlimport.Import(ctx, s, []string{db}, jsonlimport.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Problems) != 0 {
			t.Errorf("%s: problems %v", dir, rep.Problems)
		}
		for id, w := range want {
			sess, err := s.Get(ctx, id)
			if err != nil {
				t.Errorf("%s: session %s not imported: %v", dir, id, err)
				continue
			}
			imported++
			items, c, r := transcriptItems(t, s, id)
			calls += c
			if c == r {
				paired += c
			} else {
				t.Errorf("%s: %d tool calls, %d results", id, c, r)
			}
			if len(items) == 0 || items[0].Kind != "user" {
				t.Errorf("%s: transcript %v", id, items)
				continue
			}
			req := lastRequest(t, dir, m, items[0].Text)
			if len(req) == 0 {
				t.Errorf("%s: no request of the corpus holds its conversation", id)
				continue
			}
			if len(req) > len(items) {
				t.Errorf("%s: opencode sent %d items, the transcript holds %d", id, len(req), len(items))
				continue
			}
			t.Logf("%s: %d items sent, %d in the transcript", id, len(req), len(items))
			if d := cmp.Diff(req, items[:len(req)]); d != "" {
				t.Errorf("%s: transcript differs from what opencode sent (-sent +transcript):\n%s", id, d)
			}
			if answer, ok := finalText(t, dir, m, id); ok {
				var rest []string
				for _, it := range items[len(req):] {
					if it.Kind == "text" {
						rest = append(rest, it.Text)
					}
				}
				if got := strings.Join(rest, "\n\n"); got != answer {
					t.Errorf("%s: answer after the last request %q, opencode printed %q", id, got, answer)
				}
			} else if sess.ParentID == "" {
				t.Errorf("%s: no run printed its answer", id)
			}
			got, err := s.UsageTotals(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			got.Calls = 0
			if math.Abs(got.Cost-w.Cost) < 1e-12 {
				got.Cost = w.Cost
			}
			if got == w {
				usageEqual++
			} else {
				t.Errorf("%s: usage %+v, opencode's %+v", id, got, w)
			}
		}
		// Export: opencode's own bytes.
		out := t.TempDir()
		for _, e := range m.Exports {
			id := strings.TrimSuffix(filepath.Base(e), ".json")
			if _, err := jsonlimport.ExportWith(ctx, s, []string{id}, opencode.Name, out, jsonlimport.ExportOptions{}); err != nil {
				t.Errorf("export %s: %v", id, err)
				continue
			}
			got, _ := os.ReadFile(filepath.Join(out, id+".json"))
			wantB, _ := os.ReadFile(filepath.Join(dir, e))
			if !bytes.Equal(got, wantB) {
				t.Errorf("%s: export differs from opencode's:\n%s", id, cmp.Diff(string(wantB), string(got)))
			}
		}
		if d := cmp.Diff(before, listing(t, filepath.Dir(db))); d != "" {
			t.Errorf("%s: the store's folder changed (-before +after):\n%s", dir, d)
		}
	}
	t.Logf("opencode corpus: %d sessions in the stores, %d imported; tool calls with results %d/%d; usage equal to opencode's %d/%d",
		sessions, imported, paired, calls, usageEqual, imported)
	if sessions == 0 || imported != sessions || usageEqual != imported || paired != calls {
		t.Errorf("%s", fmt.Sprintf("sessions %d, imported %d, usage equal %d, calls %d with results %d", sessions, imported, usageEqual, calls, paired))
	}
}

// TestOpencodeAgentsGrowth: each corpus store imported at every step
// opencode wrote it (each message added, each assistant message first
// while it was being written) ends equal to one import of the store.
func TestOpencodeAgentsGrowth(t *testing.T) {
	for _, dir := range agentsDirs {
		db := untar(t, filepath.Join(dir, "home.tar.gz"))
		checkGrowth(t, filepath.Dir(db), 0)
	}
}
