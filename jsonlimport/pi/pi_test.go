package pi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
	"github.com/sessiondb/sessiondb/jsonlimport/pi"
)

// piTestdata holds session files written by pi's own SessionManager
// (testdata/gen/pi/gen.mjs) and, in expected/, what pi 0.73.1 resumes
// from each.
var (
	piTestdata = filepath.Join("..", "..", "testdata", "pi")
	ccTestdata = filepath.Join("..", "..", "testdata", "claudecode")
)

// piExpected is what gen.mjs records for one file.
type piExpected struct {
	Messages      []any             `json:"messages"`
	Model         any               `json:"model"`
	ThinkingLevel string            `json:"thinkingLevel"`
	Name          *string           `json:"name"`
	Labels        map[string]string `json:"labels"`
	LeafID        string            `json:"leafId"`
}

// piMessage renders one entry of the effective transcript as pi's
// buildSessionContext renders the entry it comes from.
func piMessage(t *testing.T, e sessiondb.Entry) any {
	t.Helper()
	var line map[string]json.RawMessage
	if err := json.Unmarshal(e.Body, &line); err != nil {
		t.Fatalf("entry %d: body is not an object: %v", e.Seq, err)
	}
	var out map[string]any
	ms := func() int64 {
		var ts string
		_ = json.Unmarshal(line["timestamp"], &ts)
		tm, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			t.Fatalf("entry %d: timestamp %q: %v", e.Seq, ts, err)
		}
		return tm.UnixMilli()
	}
	get := func(k string) any {
		var v any
		if raw, ok := line[k]; ok {
			_ = json.Unmarshal(raw, &v)
		}
		return v
	}
	switch jsonl.RawString(line, "type") {
	case "message":
		var m map[string]any
		_ = json.Unmarshal(line["message"], &m)
		if m["role"] == "hookMessage" {
			// Version 2 bytes, kept as they are: pi's migration renames the
			// role on load; our Role column says "custom".
			if e.Role != "custom" {
				t.Fatalf("entry %d: hookMessage with Role %q, want custom", e.Seq, e.Role)
			}
			m["role"] = "custom"
		}
		return m
	case "compaction":
		out = map[string]any{"role": "compactionSummary", "summary": get("summary"), "tokensBefore": get("tokensBefore"), "timestamp": ms()}
	case "branch_summary":
		out = map[string]any{"role": "branchSummary", "summary": get("summary"), "fromId": get("fromId"), "timestamp": ms()}
	case "custom_message":
		out = map[string]any{"role": "custom", "customType": get("customType"), "content": get("content"), "display": get("display"), "timestamp": ms()}
		if _, ok := line["details"]; ok {
			out["details"] = get("details")
		}
	default:
		t.Fatalf("entry %d of type %q in the message transcript", e.Seq, jsonl.RawString(line, "type"))
	}
	// Round-trip so that numbers compare as JSON numbers.
	var v any
	_ = json.Unmarshal(jsonl.MustJSON(out), &v)
	return v
}

func readPiExpected(t *testing.T, name string) piExpected {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(piTestdata, "expected", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp piExpected
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatal(err)
	}
	return exp
}

func piFixtures(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(piTestdata, "sessions", "*.jsonl"))
	if err != nil || len(files) != 8 {
		t.Fatalf("pi fixtures: %v, %d files (want 8; run testdata/gen/pi/gen.mjs and gen.mjs double-header)", err, len(files))
	}
	sort.Strings(files)
	return files
}

// TestPiGolden imports every session pi's own SessionManager wrote and
// checks that the effective transcript, filtered to Kind "message", is
// message for message what pi's buildSessionContext returns for the file,
// and that the title, labels and model are pi's.
func TestPiGolden(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	dir := t.TempDir()
	for _, f := range piFixtures(t) {
		jsonltest.CopyFile(t, f, filepath.Join(dir, filepath.Base(f)))
	}
	rep, err := jsonlimport.Import(ctx, s, []string{dir}, jsonlimport.Options{Format: pi.Name})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 8 {
		t.Fatalf("imported %d sessions, want 8: %+v", rep.Sessions, rep.Problems)
	}
	// The header pi wrote twice is a note, not a problem.
	for _, p := range rep.Problems {
		if strings.HasSuffix(p.Path, "double-header.jsonl") {
			t.Errorf("problem in the file pi wrote with two headers: %s", p)
		}
	}
	noted := false
	for _, n := range rep.Notes {
		noted = noted || strings.HasSuffix(n.Path, "double-header.jsonl") && n.Line == 2
	}
	if !noted {
		t.Errorf("no note for the second header: %v", rep.Notes)
	}
	for _, f := range piFixtures(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			exp := readPiExpected(t, name)
			src, err := s.SourceFile(ctx, filepath.Join(dir, filepath.Base(f)))
			if err != nil {
				t.Fatal(err)
			}
			id := src.SessionID
			tr, err := s.Load(ctx, id, sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage}})
			if err != nil {
				t.Fatal(err)
			}
			var got []any
			for _, e := range tr {
				got = append(got, piMessage(t, e))
			}
			if d := cmp.Diff(exp.Messages, got); d != "" {
				t.Fatalf("transcript differs from pi's buildSessionContext (-pi +sessiondb):\n%s", d)
			}
			sess, err := s.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			// Without a name, the title is made of the file's first user
			// prompt (pi's own list shows that prompt too).
			var wantTitle string
			if exp.Name != nil {
				wantTitle = *exp.Name
			} else {
				log, err := s.Entries(ctx, id, 1, sess.LastSeq)
				if err != nil {
					t.Fatal(err)
				}
				if wantTitle = jsonlimport.PromptTitle(pi.Name, log); wantTitle == "" {
					t.Errorf("no prompt title in %s", id)
				}
			}
			if sess.Title != wantTitle {
				t.Errorf("title %q, pi's name %q", sess.Title, wantTitle)
			}
			var attrs struct {
				Labels        map[string]string `json:"labels"`
				Model         any               `json:"model"`
				ThinkingLevel string            `json:"thinkingLevel"`
			}
			if err := json.Unmarshal(sess.Attrs, &attrs); err != nil {
				t.Fatal(err)
			}
			if len(exp.Labels) == 0 {
				exp.Labels = nil
			}
			if d := cmp.Diff(exp.Labels, attrs.Labels); d != "" {
				t.Errorf("labels (-pi +sessiondb):\n%s", d)
			}
			if d := cmp.Diff(exp.Model, attrs.Model); d != "" {
				t.Errorf("model (-pi +sessiondb):\n%s", d)
			}
			if exp.ThinkingLevel != "off" && exp.ThinkingLevel != attrs.ThinkingLevel {
				t.Errorf("thinking level %q, pi %q", attrs.ThinkingLevel, exp.ThinkingLevel)
			}
			// Every line of the file is in the log, byte for byte.
			log, err := s.Entries(ctx, id, 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			if name != "damaged" {
				lines := piLines(t, f)
				if len(log) != len(lines) {
					t.Fatalf("log has %d entries, file %d lines", len(log), len(lines))
				}
				for i := range lines {
					if !bytes.Equal(log[i].Body, lines[i]) {
						t.Fatalf("entry %d: %s\nline: %s", i+1, log[i].Body, lines[i])
					}
				}
			}
		})
	}
}

// TestPiFork checks that a /fork file is linked to its source: ParentID is
// the source session and ForkSeq the source entry the fork was made at.
func TestPiFork(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, f := range piFixtures(t) {
		jsonltest.CopyFile(t, f, filepath.Join(dir, filepath.Base(f)))
	}
	p, err := pi.Format{}.Parse(ctx, jsonl.Unit{Format: pi.Name, Path: filepath.Join(dir, "fork-of-branched.jsonl")}, jsonl.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	src := piHeaderID(t, filepath.Join(dir, "branched.jsonl"))
	if p.Session.ParentID != src {
		t.Fatalf("ParentID %q, want the source session %q", p.Session.ParentID, src)
	}
	// The fork copies the path to the source's leaf, which is the source
	// file's last line.
	if want := int64(len(piLines(t, filepath.Join(dir, "branched.jsonl")))); p.Session.ForkSeq != want {
		t.Fatalf("ForkSeq %d, want %d", p.Session.ForkSeq, want)
	}
}

// TestPiBranches checks that abandoned branch tips are listed.
func TestPiBranches(t *testing.T) {
	p, err := pi.Format{}.Parse(context.Background(), jsonl.Unit{Format: pi.Name, Path: filepath.Join(piTestdata, "sessions", "compaction-branch.jsonl")}, jsonl.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	var attrs struct {
		Branches []map[string]string `json:"branches"`
	}
	if err := json.Unmarshal(p.Session.Attrs, &attrs); err != nil {
		t.Fatal(err)
	}
	if len(attrs.Branches) != 3 {
		t.Fatalf("branches %v, want the X, first Y and Z tips", attrs.Branches)
	}
	if len(p.Compactions) != 1 || p.Compactions[0].KeepFromSeq != int64(len(p.Entries))+1 || p.Compactions[0].TokensBefore != 9000 {
		t.Fatalf("compactions %+v", p.Compactions)
	}
}

// TestPiDamaged checks that every defect of the damaged fixture is
// reported with its line, and that the torn tail is not consumed.
func TestPiDamaged(t *testing.T) {
	path := filepath.Join(piTestdata, "sessions", "damaged.jsonl")
	p, err := pi.Format{}.Parse(context.Background(), jsonl.Unit{Format: pi.Name, Path: path}, jsonl.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if want := int64(bytes.LastIndexByte(raw, '\n') + 1); p.Offset != want {
		t.Fatalf("Offset %d, want %d (before the torn tail)", p.Offset, want)
	}
	var got []string
	for _, pr := range p.Problems {
		got = append(got, strings.SplitN(pr.Reason, " (", 2)[0])
		if pr.Path != path {
			t.Fatalf("problem path %q", pr.Path)
		}
	}
	lines := []int{}
	for _, pr := range p.Problems {
		lines = append(lines, pr.Line)
	}
	if d := cmp.Diff([]int{3, 5, 6, 16}, lines); d != "" {
		t.Fatalf("problem lines (-want +got):\n%s\n%v", d, p.Problems)
	}
	// The parent no line holds loses nothing: a note, not a problem.
	found := false
	for _, n := range p.Notes {
		found = found || strings.Contains(n.Reason, "is in no line of this file")
	}
	if !found {
		t.Errorf("no note for the parentId the file does not hold: %v", p.Notes)
	}
}

// TestPiResume imports a pi file that grows by appends and checks that the
// second import only appends the new lines.
func TestPiResume(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	src := filepath.Join(piTestdata, "sessions", "linear.jsonl")
	lines := piLines(t, src)
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	write := func(n int) {
		if err := os.WriteFile(path, append(bytes.Join(lines[:n], []byte("\n")), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(5)
	if _, err := jsonlimport.Import(ctx, s, []string{path}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	write(len(lines))
	rep, err := jsonlimport.Import(ctx, s, []string{path}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Entries != len(lines)-5 {
		t.Fatalf("second import appended %d entries, want %d", rep.Entries, len(lines)-5)
	}
	id := piHeaderID(t, path)
	log, _ := s.Entries(ctx, id, 1, 0)
	if len(log) != len(lines) {
		t.Fatalf("log %d entries, want %d", len(log), len(lines))
	}
	rep, err = jsonlimport.Import(ctx, s, []string{path}, jsonlimport.Options{})
	if err != nil || rep.Unchanged != 1 {
		t.Fatalf("third import: %+v %v", rep, err)
	}
	tr, _ := s.Load(ctx, id, sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage}})
	exp := readPiExpected(t, "linear")
	if len(tr) != len(exp.Messages) {
		t.Fatalf("transcript %d messages, pi %d", len(tr), len(exp.Messages))
	}
}

// TestPiNotIncremental: new lines that branch off an earlier entry cannot
// be appended as they are.
func TestPiNotIncremental(t *testing.T) {
	src := filepath.Join(piTestdata, "sessions", "branched.jsonl")
	lines := piLines(t, src)
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, append(bytes.Join(lines[:6], []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := pi.Format{}.Parse(context.Background(), jsonl.Unit{Format: pi.Name, Path: path}, jsonl.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = pi.Format{}.Parse(context.Background(), jsonl.Unit{Format: pi.Name, Path: path}, jsonl.Resume{Offset: first.Offset, Entries: len(first.Entries), State: first.ResumeState})
	if !errors.Is(err, jsonl.ErrNotIncremental) {
		t.Fatalf("resume across a branch: %v, want ErrNotIncremental", err)
	}
}

// TestPiNotIncrementalStray: a new message that hangs off an earlier entry
// and is followed by one that continues the leaf cannot be appended as it
// is (it would be in the transcript).
func TestPiNotIncrementalStray(t *testing.T) {
	src := filepath.Join(piTestdata, "sessions", "linear.jsonl")
	lines := piLines(t, src)
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	head := append(bytes.Join(lines[:4], []byte("\n")), '\n')
	if err := os.WriteFile(path, head, 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := pi.Format{}.Parse(context.Background(), jsonl.Unit{Format: pi.Name, Path: path}, jsonl.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	var leaf struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(lines[3], &leaf)
	stray := `{"type":"message","id":"5757a1a1","parentId":null,"timestamp":"2026-01-10T09:00:00.000Z","message":{"role":"user","content":"stray","timestamp":1}}` + "\n"
	cont := `{"type":"message","id":"5757a1a2","parentId":"` + leaf.ID + `","timestamp":"2026-01-10T09:00:00.000Z","message":{"role":"user","content":"next","timestamp":2}}` + "\n"
	if err := os.WriteFile(path, append(head, stray+cont...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = pi.Format{}.Parse(context.Background(), jsonl.Unit{Format: pi.Name, Path: path}, jsonl.Resume{Offset: first.Offset, Entries: len(first.Entries), State: first.ResumeState})
	if !errors.Is(err, jsonl.ErrNotIncremental) {
		t.Fatalf("resume over a stray message: %v, want ErrNotIncremental", err)
	}
}

func piHeaderID(t *testing.T, path string) string {
	t.Helper()
	objs := jsonl.FirstObjects(path, 1)
	if len(objs) != 1 {
		t.Fatalf("%s: no header", path)
	}
	return jsonl.RawString(objs[0], "id")
}

func piLines(t *testing.T, path string) [][]byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, l := range bytes.Split(raw, []byte("\n")) {
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// TestPiExportRoundTrip exports every imported pi session and checks that
// the file is the source file line for line (without the damaged lines),
// and that importing the export gives the same log bytes and transcript.
// (That pi's own SessionManager opens these exports and resumes the same
// context was checked with testdata/gen/pi/gen.mjs check DIR.)
func TestPiExportRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	if _, err := jsonlimport.Import(ctx, s, []string{filepath.Join(piTestdata, "sessions")}, jsonlimport.Options{Format: pi.Name}); err != nil {
		t.Fatal(err)
	}
	for _, f := range piFixtures(t) {
		abs, _ := filepath.Abs(f)
		src, err := s.SourceFile(ctx, abs)
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		files, err := jsonlimport.Export(ctx, s, []string{src.SessionID}, pi.Name, out)
		if err != nil || len(files) != 1 {
			t.Fatalf("export %s: %v %v", f, files, err)
		}
		got, _ := os.ReadFile(files[0])
		if !strings.HasSuffix(f, "damaged.jsonl") {
			want, _ := os.ReadFile(f)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: export differs from the source file", f)
			}
		}
		s2 := jsonltest.OpenStore(t)
		if _, err := jsonlimport.Import(ctx, s2, []string{files[0]}, jsonlimport.Options{}); err != nil {
			t.Fatal(err)
		}
		src2, err := s2.SourceFile(ctx, files[0])
		if err != nil {
			t.Fatal(err)
		}
		log1, _ := s.Entries(ctx, src.SessionID, 1, 0)
		log2, _ := s2.Entries(ctx, src2.SessionID, 1, 0)
		if len(log1) != len(log2) {
			t.Fatalf("%s: re-import %d entries, first import %d", f, len(log2), len(log1))
		}
		for i := range log1 {
			if !bytes.Equal(log1[i].Body, log2[i].Body) || log1[i].Kind != log2[i].Kind {
				t.Fatalf("%s: entry %d differs after export and re-import", f, i+1)
			}
		}
		tr1, _ := s.Load(ctx, src.SessionID, sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage}})
		tr2, _ := s2.Load(ctx, src2.SessionID, sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage}})
		if len(tr1) != len(tr2) {
			t.Fatalf("%s: transcript %d after round trip, %d before", f, len(tr2), len(tr1))
		}
		for i := range tr1 {
			if !bytes.Equal(tr1[i].Body, tr2[i].Body) {
				t.Fatalf("%s: transcript entry %d differs after round trip", f, i+1)
			}
		}
	}
}

// TestPiExportForeign exports sessions imported from other formats (a
// Claude Code transcript, a Codex rollout) as pi files and checks that the
// pi reader loads one message entry per message of their transcript.
func TestPiExportForeign(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	if _, err := jsonlimport.Import(ctx, s, []string{filepath.Join(ccTestdata, "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000002.jsonl")}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	id := "5c2d8e41-0000-4000-8000-000000000002"
	out := t.TempDir()
	files, err := jsonlimport.Export(ctx, s, []string{id}, pi.Name, out)
	if err != nil {
		t.Fatal(err)
	}
	p, err := pi.Format{}.Parse(ctx, jsonl.Unit{Format: pi.Name, Path: files[0]}, jsonl.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Problems) != 0 {
		t.Fatalf("problems reading our own export: %v", p.Problems)
	}
	tr, _ := s.Load(ctx, id, sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage}})
	var msgs int
	for _, e := range p.Entries {
		if e.Kind == sessiondb.KindMessage {
			msgs++
		}
	}
	if msgs != len(tr) || p.Session.ID != id {
		t.Fatalf("export holds %d messages of session %q, transcript %d", msgs, p.Session.ID, len(tr))
	}
}

// TestPiForkUsage: the calls a /fork copied from its source are counted
// once, in the source session; the fork counts only its own.
func TestPiForkUsage(t *testing.T) {
	ctx := context.Background()
	p, err := pi.Format{}.Parse(ctx, jsonl.Unit{Format: pi.Name, Path: filepath.Join(piTestdata, "sessions", "fork-of-branched.jsonl")}, jsonl.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Usage) != 1 {
		t.Fatalf("fork usage rows %d, want 1 (the fork's own answer)", len(p.Usage))
	}
}

// TestPiForkOfNamedFile: pi keeps a session in a file of the user's
// naming (pi --session notes.jsonl), so the source of a /fork is named by
// a path without the session's id in it (testdata/pi/named, gen.mjs
// named). The fork's ParentID is the session in that file, read from its
// header, and ForkSeq the source's line the fork was made at.
func TestPiForkOfNamedFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, name := range []string{"notes", "fork-of-notes"} {
		jsonltest.CopyFile(t, filepath.Join(piTestdata, "named", name+".jsonl"), filepath.Join(dir, name+".jsonl"))
	}
	s := jsonltest.OpenStore(t)
	if _, err := jsonlimport.Import(ctx, s, []string{dir}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"notes", "fork-of-notes"} {
		raw, err := os.ReadFile(filepath.Join(piTestdata, "named", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var exp piExpected
		if err := json.Unmarshal(raw, &exp); err != nil {
			t.Fatal(err)
		}
		id := piHeaderID(t, filepath.Join(dir, name+".jsonl"))
		if d := cmp.Diff(exp.Messages, piTranscript(t, s, id)); d != "" {
			t.Errorf("%s: transcript (-pi +sessiondb):\n%s", name, d)
		}
	}
	fork, err := s.Get(ctx, piHeaderID(t, filepath.Join(dir, "fork-of-notes.jsonl")))
	if err != nil {
		t.Fatal(err)
	}
	if want := piHeaderID(t, filepath.Join(dir, "notes.jsonl")); fork.ParentID != want {
		t.Errorf("ParentID %q, want %q, the session in the source file", fork.ParentID, want)
	}
	// The fork was made at the first answer, line 3 of the source.
	if fork.ForkSeq != 3 {
		t.Errorf("ForkSeq %d, want 3", fork.ForkSeq)
	}
}
