package aider_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/aider"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/wildtest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// corpus holds reduced chat histories of six public repositories
// (testdata/aider/MANIFEST.md).
var (
	testdata = filepath.Join("..", "..", "testdata", "aider")
	corpus   = filepath.Join(testdata, "corpus")
)

// label names a transcript entry: its role and first words.
func label(e sessiondb.Entry) string {
	m := jsonlimport.Understand(aider.Name, e)
	l := m.Role
	if m.Thinking != "" {
		l += " (thinking)"
	}
	s := strings.Join(strings.Fields(m.Text), " ")
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40])
	}
	return l + " " + s
}

// TestAiderGolden imports the corpus and compares every run with
// testdata/aider/expected (rewrite with -wild.update; checked by hand
// against the package doc).
func TestAiderGolden(t *testing.T) {
	if raceEnabled {
		t.Skip("imports the whole corpus, no concurrency: run without -race (.ci/run does)")
	}
	wildtest.CheckGoldens(t, filepath.Join(testdata, "expected"), wildtest.Snapshot(t, aider.Name, corpus, label), 14)
}

func importCorpus(t *testing.T) (sessiondb.Store, jsonlimport.Report) {
	t.Helper()
	s := jsonltest.OpenStore(t)
	rep, err := jsonlimport.Import(context.Background(), s, []string{corpus}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, rep
}

// chats lists the corpus's chat histories.
func chats(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpus, "*", aider.ChatFile))
	if err != nil || len(files) != 6 {
		t.Fatalf("corpus: %v %v", files, err)
	}
	return files
}

// TestAiderCorpusClean: the whole corpus imports without a problem, every
// run a session, and the runs exported back give every file byte for
// byte.
func TestAiderCorpusClean(t *testing.T) {
	if raceEnabled {
		t.Skip("imports the whole corpus, no concurrency: run without -race (.ci/run does)")
	}
	ctx := context.Background()
	s, rep := importCorpus(t)
	if len(rep.Problems) != 0 {
		t.Fatalf("problems: %v", rep.Problems)
	}
	list, _, err := s.List(ctx, sessiondb.ListOptions{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string][]sessiondb.Session{}
	for _, info := range list {
		file, _, ok := jsonl.SplitSessionPath(info.Session.SourcePath)
		if !ok {
			t.Fatalf("source path %s", info.Session.SourcePath)
		}
		byFile[file] = append(byFile[file], info.Session)
	}
	for _, f := range chats(t) {
		abs, _ := filepath.Abs(f)
		sessions := byFile[abs]
		sort.Slice(sessions, func(i, j int) bool { return sessions[i].CreatedAt.Before(sessions[j].CreatedAt) })
		var got []byte
		for _, sess := range sessions {
			dir := t.TempDir()
			paths, err := aider.Format{}.Export(ctx, s, sess.ID, dir)
			if err != nil || len(paths) != 1 {
				t.Fatalf("export %s: %v %v", sess.ID, paths, err)
			}
			b, err := os.ReadFile(paths[0])
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, b...)
		}
		want, _ := os.ReadFile(f)
		if string(got) != string(want) {
			t.Errorf("%s: %d runs exported give %d bytes, the file has %d", f, len(sessions), len(got), len(want))
		}
	}
}

var sessionCost = regexp.MustCompile(`Cost: \$[0-9.,]+ (?:message|request), \$([0-9.,]+) session`)

// TestAiderUsageEqualsSession: every Tokens line is one usage row, and a
// run's cost is aider's last "session" figure, within the rounding of
// the figures aider prints (two significant digits).
func TestAiderUsageEqualsSession(t *testing.T) {
	if raceEnabled {
		t.Skip("imports the whole corpus, no concurrency: run without -race (.ci/run does)")
	}
	ctx := context.Background()
	s, _ := importCorpus(t)
	list, _, err := s.List(ctx, sessiondb.ListOptions{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	rows, withCost := 0, 0
	for _, info := range list {
		log, err := s.Entries(ctx, info.ID, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		lines, last := 0, -1.0
		for _, e := range log {
			var b struct{ Text string }
			_ = json.Unmarshal(e.Body, &b)
			if strings.HasPrefix(b.Text, "> Tokens: ") {
				lines++
				if m := sessionCost.FindStringSubmatch(b.Text); m != nil {
					last, _ = strconv.ParseFloat(m[1], 64)
				}
			}
		}
		tot, err := s.UsageTotals(ctx, info.ID)
		if err != nil {
			t.Fatal(err)
		}
		if tot.Calls != int64(lines) {
			t.Errorf("%s: %d usage rows, %d Tokens lines", info.ID, tot.Calls, lines)
		}
		rows += lines
		if last >= 0 {
			withCost++
			if math.Abs(tot.Cost-last) > 0.01*last+0.005 {
				t.Errorf("%s: cost %g, aider's session figure %g", info.ID, tot.Cost, last)
			}
		}
	}
	if rows < 27 || withCost < 5 {
		t.Fatalf("only %d Tokens lines, %d runs with a session cost", rows, withCost)
	}
	t.Logf("%d Tokens lines as usage rows; %d runs' costs equal aider's session figure", rows, withCost)
}

// TestAiderPromptTimes: prompts take their input history times, replies
// the time of the prompt before them.
func TestAiderPromptTimes(t *testing.T) {
	if raceEnabled {
		t.Skip("imports the whole corpus, no concurrency: run without -race (.ci/run does)")
	}
	ctx := context.Background()
	s, _ := importCorpus(t)
	tr, err := s.Load(ctx, "aider-2025-04-01T18-41-33", sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr) < 2 || tr[0].Role != "user" {
		t.Fatalf("transcript %v", jsonltest.Bodies(tr))
	}
	// "# 2025-04-01 18:42:19.815446" in the input history.
	want := time.Date(2025, 4, 1, 18, 42, 19, 815446000, time.UTC)
	if !tr[0].CreatedAt.Equal(want) || !tr[1].CreatedAt.Equal(want) {
		t.Errorf("prompt at %v, reply at %v, want %v", tr[0].CreatedAt, tr[1].CreatedAt, want)
	}
}

// growth imports path at every cut then whole into one store (with
// follow, as sessionctl watch does, when it is not nil) and whole into
// another, and returns the difference.
func growth(t *testing.T, path string, cuts []int, follow *jsonlimport.Follow) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	chat := filepath.Join(dir, aider.ChatFile)
	if in, err := os.ReadFile(filepath.Join(filepath.Dir(path), aider.InputFile)); err == nil {
		if err := os.WriteFile(filepath.Join(dir, aider.InputFile), in, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	since := time.Now().Add(-time.Second)
	grown := jsonltest.OpenStore(t)
	for _, c := range append(cuts, len(content)) {
		if err := os.WriteFile(chat, content[:c], 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := jsonlimport.Import(ctx, grown, []string{dir}, jsonlimport.Options{Jobs: 1, Follow: follow})
		if err != nil {
			t.Fatalf("cut %d: %v", c, err)
		}
		for _, p := range rep.Problems {
			t.Logf("cut %d: %v", c, p)
		}
	}
	once := jsonltest.OpenStore(t)
	if _, err := jsonlimport.Import(ctx, once, []string{dir}, jsonlimport.Options{Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	return cmp.Diff(jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, grown, since))
}

// cuts are the ends of aider's writes and a point in the middle of every
// line.
func cuts(content []byte) []int {
	set := map[int]bool{}
	for _, c := range aider.Writes(content) {
		set[c] = true
	}
	start := 0
	for i, b := range content {
		if b == '\n' {
			if mid := start + (i-start)/2; mid > start {
				set[mid] = true
			}
			start = i + 1
		}
	}
	var out []int
	for c := range set {
		if c > 0 && c < len(content) {
			out = append(out, c)
		}
	}
	sort.Ints(out)
	return out
}

// TestAiderGrowth grows the small files of the corpus write by write and
// half line by half line: the store equals one import of the whole file.
func TestAiderGrowth(t *testing.T) {
	if raceEnabled {
		t.Skip("replays files many times, no concurrency: run without -race (.ci/run does)")
	}
	for _, repo := range []string{"1013-eh+Gestion_parc_informatique", "AlanSynn+automataii", "37designfk+37design-astro-site"} {
		path := filepath.Join(corpus, repo, aider.ChatFile)
		content, _ := os.ReadFile(path)
		if d := growth(t, path, cuts(content), nil); d != "" {
			t.Errorf("%s grown differs from one import:\n%s", repo, d)
		}
	}
}

// TestAiderGrowthFollow grows a file as sessionctl watch does, with one
// Follow across the imports.
func TestAiderGrowthFollow(t *testing.T) {
	if raceEnabled {
		t.Skip("replays files many times, no concurrency: run without -race (.ci/run does)")
	}
	for _, repo := range []string{"AlanSynn+automataii", "37designfk+37design-astro-site"} {
		path := filepath.Join(corpus, repo, aider.ChatFile)
		content, _ := os.ReadFile(path)
		if d := growth(t, path, cuts(content), jsonlimport.NewFollow()); d != "" {
			t.Errorf("%s grown with a Follow differs from one import:\n%s", repo, d)
		}
	}
}

// TestAiderGrowthCorpus grows every file of the corpus at every write.
func TestAiderGrowthCorpus(t *testing.T) {
	longtest.Skip(t, "imports the corpus's files once per write of aider's")
	if raceEnabled {
		// No goroutines, thousands of imports: over 12 minutes under
		// -race. .ci/run runs this package without -race too.
		t.Skip("replays files many times, no concurrency: run without -race (.ci/run does)")
	}
	for _, path := range chats(t) {
		content, _ := os.ReadFile(path)
		if d := growth(t, path, aider.Writes(content), nil); d != "" {
			t.Errorf("%s grown differs from one import:\n%s", path, d)
		}
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// TestAiderTranslated: a session of another format holding only text and
// thinking is written as a chat history that reads back as the same
// conversation; one holding a tool call is refused, naming it, and
// nothing is written.
func TestAiderTranslated(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	msgs := []sessiondb.Entry{
		{Kind: sessiondb.KindMessage, Role: "user", CreatedAt: at, Body: []byte(`{"role":"user","content":"Make the button black\nand round."}`)},
		{Kind: sessiondb.KindMessage, Role: "assistant", CreatedAt: at.Add(time.Second), Body: []byte(`{"role":"assistant","content":[{"type":"thinking","thinking":"CSS only."},{"type":"text","text":"Done: see style.css."}]}`)},
	}
	if _, err := s.SaveFull(ctx, sessiondb.Session{ID: "native-1", Title: "button", CreatedAt: at}, msgs, nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := aider.Format{}.Export(ctx, s, "native-1", dir)
	if err != nil || len(paths) != 1 {
		t.Fatalf("export: %v %v", paths, err)
	}
	back := jsonltest.OpenStore(t)
	rep, err := jsonlimport.Import(ctx, back, []string{dir}, jsonlimport.Options{})
	if err != nil || len(rep.Problems) != 0 {
		t.Fatalf("import back: %v %v", rep.Problems, err)
	}
	tr, err := back.Load(ctx, "aider-2026-03-01T10-00-00", sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tr {
		m := jsonlimport.Understand(aider.Name, e)
		got = append(got, m.Role+": "+m.Thinking+"|"+m.Text)
	}
	want := []string{"user: |Make the button black\nand round.", "assistant: CSS only.|Done: see style.css."}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("read back (-want +got):\n%s", d)
	}

	msgs = append(msgs, sessiondb.Entry{Kind: sessiondb.KindMessage, Role: "assistant", CreatedAt: at.Add(2 * time.Second),
		Body: []byte(`{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"bash","input":{"command":"ls"}}]}`)})
	if _, err := s.SaveFull(ctx, sessiondb.Session{ID: "native-2", CreatedAt: at}, msgs, nil); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	_, err = aider.Format{}.Export(ctx, s, "native-2", out)
	if !errors.Is(err, jsonlimport.ErrUntranslatable) || !strings.Contains(err.Error(), "1 tool call") {
		t.Fatalf("export with a tool call: %v, want a refusal naming it", err)
	}
	if left, _ := os.ReadDir(out); len(left) != 0 {
		t.Errorf("a refused export wrote %d files", len(left))
	}
}
