package cursoragent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/cursoragent"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/wildtest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

var (
	testdata = filepath.Join("..", "..", "testdata", "cursor-agent")
	crafted  = filepath.Join(testdata, "crafted")
	corpus   = filepath.Join(testdata, "corpus")
	alpha    = filepath.Join("projects", "Users-example-work-alpha", "agent-transcripts")
)

// fixedTime is the modification time the tests give every file, so that
// the times taken from it (updated, and those of lines without a
// timestamp before them) do not depend on the checkout.
var fixedTime = time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)

// copyFixed copies dir into a temporary folder and sets every file's
// modification time to fixedTime.
func copyFixed(t *testing.T, dir string) string {
	t.Helper()
	out := t.TempDir()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		target := filepath.Join(out, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return err
		}
		return os.Chtimes(target, fixedTime, fixedTime)
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// label describes an entry: kind, role, the text the message reader
// finds (cut), its tool calls (id and name) and results, and its time.
func label(e sessiondb.Entry) string {
	m := jsonlimport.Understand(cursoragent.Name, e)
	l := fmt.Sprintf("%s %s %.40q", e.Kind, e.Role, m.Text)
	for _, c := range m.Calls {
		l += fmt.Sprintf(" call(%s %s)", c.ID, c.Name)
	}
	for _, r := range m.Results {
		l += fmt.Sprintf(" result(%s)", r.CallID)
	}
	if m.Thinking != "" {
		l += " thinking"
	}
	return l + " @" + e.CreatedAt.UTC().Format(time.RFC3339)
}

// TestCursorAgentGolden: every transcript of the crafted fixtures and of
// the real corpus, as imported (transcript, attrs, parent, problems and
// notes), equals its golden file (testdata/cursor-agent/expected;
// -wild.update rewrites them).
func TestCursorAgentGolden(t *testing.T) {
	for _, c := range []struct {
		dir, gold string
		want      int
	}{
		{crafted, "crafted", 7},
		{corpus, "corpus", 1},
	} {
		got := wildtest.Snapshot(t, cursoragent.Name, copyFixed(t, c.dir), label)
		wildtest.CheckGoldens(t, filepath.Join(testdata, "expected", c.gold), got, c.want)
	}
}

// importDir imports dir (every format) into a new store.
func importDir(t *testing.T, dir string) (sessiondb.Store, jsonlimport.Report) {
	t.Helper()
	s := jsonltest.OpenStore(t)
	rep, err := jsonlimport.Import(context.Background(), s, []string{dir}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, rep
}

// TestCursorAgentFixtures checks what the crafted fixtures hold, file by
// file: sessions, entries, calls, times, the sub-agent's link, the held
// turn_ended line, the project from .workspace-trusted, and the notes for
// the project folder's other files.
func TestCursorAgentFixtures(t *testing.T) {
	ctx := context.Background()
	dir := copyFixed(t, crafted)
	s, rep := importDir(t, dir)
	if rep.Sessions != 7 || rep.Entries != 30 {
		t.Errorf("imported %d sessions, %d entries; want 7, 30", rep.Sessions, rep.Entries)
	}
	get := func(id string) sessiondb.Session {
		t.Helper()
		sess, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return sess
	}
	first := get("a1b2c3d4-0001-4000-8000-000000000001")
	if first.SourceFormat != cursoragent.Name || first.Title != "List the files, then add a README." || first.Project != "/Users/example/work/alpha" {
		t.Errorf("first session: format %q title %q project %q", first.SourceFormat, first.Title, first.Project)
	}
	if want := time.Date(2026, 8, 16, 15, 43, 0, 0, time.UTC); !first.CreatedAt.Equal(want) || !first.UpdatedAt.Equal(fixedTime) {
		t.Errorf("first session created %s updated %s, want %s and the file's time", first.CreatedAt, first.UpdatedAt, want)
	}
	var a struct {
		Held   []string `json:"turn_ended"`
		Status string   `json:"last_turn_status"`
		Kind   string   `json:"kind"`
	}
	_ = json.Unmarshal(first.Attrs, &a)
	if len(a.Held) != 1 || a.Status != "success" {
		t.Errorf("first session's held turn_ended: %v %q", a.Held, a.Status)
	}
	log, err := s.Entries(ctx, first.ID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, e := range log {
		calls += len(jsonlimport.Understand(cursoragent.Name, e).Calls)
	}
	if len(log) != 8 || calls != 5 {
		t.Errorf("first session: %d entries, %d calls; want 8 (the trailing turn_ended held), 5", len(log), calls)
	}
	if log[6].CreatedAt.Sub(log[0].CreatedAt) != 8*time.Minute {
		t.Errorf("second prompt at %s, first at %s: want 8 minutes later", log[6].CreatedAt, log[0].CreatedAt)
	}
	child := get("a1b2c3d4-0004-4000-8000-000000000004")
	a.Kind = ""
	_ = json.Unmarshal(child.Attrs, &a)
	if child.ParentID != "a1b2c3d4-0003-4000-8000-000000000003" || a.Kind != "subagent" || !jsonlimport.SubAgent(child) {
		t.Errorf("sub-agent: parent %q kind %q", child.ParentID, a.Kind)
	}
	mid := get("a1b2c3d4-0002-4000-8000-000000000002")
	log, _ = s.Entries(ctx, mid.ID, 1, 0)
	var kinds []string
	for _, e := range log {
		kinds = append(kinds, e.Kind)
	}
	if d := cmp.Diff([]string{"message", "message", "turn_ended", "message", "turn_ended", "message", "message"}, kinds); d != "" {
		t.Errorf("turn_ended lines inside a file are entries (-want +got):\n%s", d)
	}
	if m := jsonlimport.Understand(cursoragent.Name, log[6]); m.Thinking == "" || !strings.Contains(m.Text, "alpha") {
		t.Errorf("thinking and text of the last answer: %+v", m)
	}
	flat := get("a1b2c3d4-0005-4000-8000-000000000005")
	if want := time.Date(2026, 7, 17, 13, 8, 9, 123456000, time.UTC); !flat.CreatedAt.Equal(want) {
		t.Errorf("RFC 3339 timestamp: created %s, want %s", flat.CreatedAt, want)
	}
	noTime := get("a1b2c3d4-0008-4000-8000-000000000008")
	if !noTime.CreatedAt.Equal(fixedTime) || noTime.Title != "explain main.go" {
		t.Errorf("file without timestamps: created %s (want the file's time), title %q", noTime.CreatedAt, noTime.Title)
	}
	if _, err := s.Get(ctx, "a1b2c3d4-0007-4000-8000-000000000007"); err == nil {
		t.Errorf("a transcript of turn markers alone was imported")
	}
	for _, want := range []string{"terminals", "mcps", ".workspace-trusted", "a1b2c3d4-0007-4000-8000-000000000007.jsonl"} {
		found := false
		for _, n := range rep.Notes {
			found = found || filepath.Base(n.Path) == want
		}
		if !found {
			t.Errorf("no note for %s: %v", want, rep.Notes)
		}
	}
}

// TestCursorAgentDamage: a line that is not JSON, a line of another shape
// and a torn last line are problems with their lines; the rest is
// imported, and the torn line is not consumed.
func TestCursorAgentDamage(t *testing.T) {
	path := filepath.Join(crafted, alpha, "a1b2c3d4-0006-4000-8000-000000000006", "a1b2c3d4-0006-4000-8000-000000000006.jsonl")
	p, err := cursoragent.Format{}.Parse(context.Background(), jsonl.Unit{Format: cursoragent.Name, Path: path}, jsonl.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		line int
		text string
	}{{2, "invalid JSON"}, {3, `type "status"`}, {5, "torn last line"}} {
		if !jsonltest.HasProblem(p.Problems, filepath.Base(path), w.line, w.text) {
			t.Errorf("no problem %q at line %d: %v", w.text, w.line, p.Problems)
		}
	}
	if len(p.Problems) != 3 || len(p.Entries) != 3 {
		t.Errorf("%d problems, %d entries; want 3 and 3", len(p.Problems), len(p.Entries))
	}
	raw, _ := os.ReadFile(path)
	if want := int64(bytes.LastIndexByte(raw, '\n') + 1); p.Offset != want {
		t.Errorf("offset %d, want %d (before the torn last line)", p.Offset, want)
	}
}

// TestCursorAgentTurnRewritten grows a transcript as Cursor writes it: a
// turn ends (turn_ended), the next turn starts where that line was (the
// line removed), ends in its turn, and the file is imported at every
// state. The store equals one import of the final file (growth
// equality), and every import but the first resumed where the last one
// stopped: the consumed bytes were never the rewritten line.
func TestCursorAgentTurnRewritten(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join(crafted, alpha, "a1b2c3d4-0001-4000-8000-000000000001", "a1b2c3d4-0001-4000-8000-000000000001.jsonl")
	lines := jsonltest.Lines(t, src) // 9 lines: turn 1 (1-5), turn 2 (6-8), turn_ended
	join := func(ls ...[]byte) []byte { return append(bytes.Join(ls, []byte("\n")), '\n') }
	te := []byte(`{"type":"turn_ended","status":"success"}`)
	states := [][]byte{
		join(lines[0]),
		join(append(lines[:5:5], te)...),           // turn 1 ended
		join(lines[:7]...),                         // turn 2 started where turn_ended was
		join(append(lines[:7:7], lines[7])...),     // turn 2 answered
		join(append(lines[:8:8], lines[8])...),     // turn 2 ended: the final file
		join(append(lines[:9:9], lines[0])...),     // and a third prompt, for the held line's flush
		join(append(lines[:9:9], lines[0], te)...), // which ends
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "projects", "Users-example-x", "agent-transcripts", "c0ffee00-0000-4000-8000-000000000001", "c0ffee00-0000-4000-8000-000000000001.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	since := time.Now().Add(-time.Second)
	grown := jsonltest.OpenStore(t)
	follow := jsonlimport.NewFollow()
	defer follow.Close()
	for i, st := range states {
		if err := os.WriteFile(path, st, 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := jsonlimport.Import(ctx, grown, []string{path}, jsonlimport.Options{Jobs: 1, Follow: follow})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Problems) > 0 {
			t.Errorf("state %d: problems %v", i+1, rep.Problems)
		}
	}
	if st := follow.Stats(); st.Rereads != 0 || st.Resumes != int64(len(states)-1) {
		t.Errorf("follow stats %+v: want %d resumes, no reread", st, len(states)-1)
	}
	once := jsonltest.OpenStore(t)
	if _, err := jsonlimport.Import(ctx, once, []string{path}, jsonlimport.Options{Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, grown, since)); d != "" {
		t.Errorf("grown store differs from one import of the final file (-once +grown):\n%s", d)
	}
	log, err := grown.Entries(ctx, "c0ffee00-0000-4000-8000-000000000001", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	// 9 lines and the third prompt; the line after them held: the
	// removed turn_ended of turn 1 never became an entry.
	if len(log) != 10 {
		t.Errorf("%d entries, want 10", len(log))
	}
}

// TestCursorAgentExportBytes exports every session imported from the
// fixtures and the corpus back into the format: each file but the
// damaged one comes back byte for byte (the held turn_ended lines
// included), at its place under projects/.
func TestCursorAgentExportBytes(t *testing.T) {
	ctx := context.Background()
	equal, total := 0, 0
	for _, dir := range []string{crafted, corpus} {
		s, _ := importDir(t, dir)
		list, _, err := s.List(ctx, sessiondb.ListOptions{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		abs, _ := filepath.Abs(dir)
		for _, info := range list {
			total++
			out := t.TempDir()
			files, err := jsonlimport.Export(ctx, s, []string{info.ID}, cursoragent.Name, out)
			if err != nil || len(files) != 1 {
				t.Fatalf("export %s: %v %v", info.ID, files, err)
			}
			rel, _ := filepath.Rel(abs, info.SourcePath)
			if got, _ := filepath.Rel(out, files[0]); got != rel {
				t.Errorf("%s exported to %s, want %s", info.ID, got, rel)
			}
			want, _ := os.ReadFile(info.SourcePath)
			got, _ := os.ReadFile(files[0])
			if bytes.Equal(got, want) {
				equal++
			} else if !strings.Contains(info.ID, "0006") {
				t.Errorf("%s: export differs from its source:\n%s\n---\n%s", info.ID, got, want)
			}
		}
	}
	t.Logf("files byte-identical: %d / %d", equal, total)
	if equal != 7 || total != 8 {
		t.Errorf("%d of %d files byte-identical, want 7 of 8 (all but the damaged one)", equal, total)
	}
}

// TestCursorAgentExportForeign: another format's session is refused with
// ErrNoForeign, and nothing is written.
func TestCursorAgentExportForeign(t *testing.T) {
	s, _ := importDir(t, filepath.Join("..", "..", "testdata", "claudecode", "projects"))
	list, _, err := s.List(context.Background(), sessiondb.ListOptions{Limit: 1})
	if err != nil || len(list) == 0 {
		t.Fatal(err, len(list))
	}
	out := t.TempDir()
	files, err := jsonlimport.Export(context.Background(), s, []string{list[0].ID}, cursoragent.Name, out)
	if !errors.Is(err, cursoragent.ErrNoForeign) || len(files) > 0 {
		t.Errorf("export of a Claude Code session: %v %v, want ErrNoForeign and no file", files, err)
	}
}

// TestCursorAgentClaim: in one folder, a Cursor transcript, a turn_ended
// file, a Claude Code transcript and a picoclaw session each go to their
// own format (Claude Code's lines look alike but carry type, uuid and
// sessionId; picoclaw would take any line beginning {"role":).
func TestCursorAgentClaim(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	jsonltest.CopyFile(t, filepath.Join(crafted, alpha, "a1b2c3d4-0002-4000-8000-000000000002", "a1b2c3d4-0002-4000-8000-000000000002.jsonl"), filepath.Join(dir, "cursor.jsonl"))
	jsonltest.CopyFile(t, filepath.Join("..", "..", "testdata", "claudecode", "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000002.jsonl"), filepath.Join(dir, "5c2d8e41-0000-4000-8000-000000000002.jsonl"))
	jsonltest.CopyFile(t, filepath.Join("..", "..", "testdata", "samples", "picoclaw", "agent_main_cli_direct_bigfile.jsonl"), filepath.Join(dir, "pico.jsonl"))
	if err := os.WriteFile(filepath.Join(dir, "ended.jsonl"), []byte(`{"type":"turn_ended","status":"error","error":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, rep := importDir(t, dir)
	for _, p := range rep.Problems {
		t.Errorf("problem: %s", p)
	}
	got := map[string]string{}
	list, _, _ := s.List(ctx, sessiondb.ListOptions{Limit: 100})
	for _, info := range list {
		got[filepath.Base(info.SourcePath)] = info.SourceFormat
	}
	want := map[string]string{"cursor.jsonl": cursoragent.Name, "5c2d8e41-0000-4000-8000-000000000002.jsonl": jsonlimport.FormatClaudeCode, "pico.jsonl": jsonlimport.FormatPicoclaw}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("formats by file (-want +got):\n%s", d)
	}
	// The turn_ended file is Cursor's, with nothing to import yet.
	units, _ := cursoragent.Format{}.Claim([]string{filepath.Join(dir, "ended.jsonl"), filepath.Join(dir, "pico.jsonl"), filepath.Join(dir, "5c2d8e41-0000-4000-8000-000000000002.jsonl")})
	if len(units) != 1 || filepath.Base(units[0].Path) != "ended.jsonl" {
		t.Errorf("claimed %v, want ended.jsonl alone", units)
	}
}

// TestPromptTime reads the <timestamp> forms Cursor writes.
func TestPromptTime(t *testing.T) {
	for _, c := range []struct {
		text string
		want string
	}{
		{"<timestamp>Sunday, Aug 16, 2026, 8:43 AM (UTC-7)</timestamp>\n<user_query>x</user_query>", "2026-08-16T15:43:00Z"},
		{"<timestamp>Thursday, Sep 24, 2026, 11:08 PM (UTC+8)</timestamp>", "2026-09-24T15:08:00Z"},
		{"<timestamp>Monday, Jun 1, 2026, 12:04 PM (UTC+5:30)</timestamp>", "2026-06-01T06:34:00Z"},
		{"<timestamp>Tuesday, Sep 29, 2026, 2:29 AM (UTC)</timestamp>", "2026-09-29T02:29:00Z"},
		{"<timestamp>2026-07-17T07:08:09.123456-06:00</timestamp>", "2026-07-17T13:08:09.123456Z"},
		{"<timestamp>now</timestamp>", ""},
		{"<timestamp>Sunday, Aug 16, 2026, 8:43 AM (UTC+99)</timestamp>", ""},
		{"no timestamp", ""},
	} {
		got, ok := cursoragent.PromptTime(c.text)
		s := ""
		if ok {
			s = got.Format(time.RFC3339Nano)
		}
		if s != c.want {
			t.Errorf("PromptTime(%.60q) = %q, want %q", c.text, s, c.want)
		}
	}
}

// TestProjectPath: the folder's name from a path (Cursor's slug), and
// the path back from .workspace-trusted or from the folders of this
// machine.
func TestProjectPath(t *testing.T) {
	if got := cursoragent.Slugs("/Users/me/Desktop/.nosync/my_app.v2"); len(got) != 1 || got[0] != "Users-me-Desktop-nosync-my-app-v2" {
		t.Errorf("Slugs = %v", got)
	}
	long := "/home/someone/" + strings.Repeat("deep/", 20) + "project"
	if got := cursoragent.Slugs(long); len(got) != 2 || len(got[0]) != 92 || !strings.HasPrefix(long[1:], strings.ReplaceAll(got[0][:80], "-", "/")) {
		t.Errorf("Slugs of a long path = %v", got)
	}
	root := t.TempDir()
	proj := filepath.Join(root, "my_app.v2")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	slug := cursoragent.Slugs(proj)[0]
	folder := filepath.Join(t.TempDir(), "projects", slug)
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := cursoragent.ProjectPath(folder); got != proj {
		t.Errorf("ProjectPath by the folders of the machine = %q, want %q", got, proj)
	}
	trusted := map[string]string{"workspacePath": "/srv/elsewhere/my-app-v2"}
	b, _ := json.Marshal(trusted)
	other := filepath.Join(filepath.Dir(folder), "srv-elsewhere-my-app-v2")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, cursoragent.TrustFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := cursoragent.ProjectPath(other); got != "/srv/elsewhere/my-app-v2" {
		t.Errorf("ProjectPath from .workspace-trusted = %q", got)
	}
	// A trust file of another path is not believed.
	if err := os.WriteFile(filepath.Join(folder, cursoragent.TrustFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := cursoragent.ProjectPath(folder); got != proj {
		t.Errorf("ProjectPath with a trust file of another path = %q, want %q", got, proj)
	}
}

// TestCursorAgentDefaultPlaces: $CURSOR_DATA_DIR/projects and
// ~/.cursor/projects are default places.
func TestCursorAgentDefaultPlaces(t *testing.T) {
	env := map[string]string{"CURSOR_DATA_DIR": "/data/cursor"}
	var got []string
	for _, l := range jsonlimport.WellKnownLocations("/home/u", func(k string) string { return env[k] }) {
		if l.Format == cursoragent.Name {
			got = append(got, l.Path)
		}
	}
	want := []string{filepath.Join("/data/cursor", "projects"), filepath.Join("/home/u", ".cursor", "projects")}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("default places (-want +got):\n%s", d)
	}
}

// TestCursorAgentOverwrittenByError: Cursor rewrites a transcript whole
// to one turn_ended error line when the account runs out of usage. The
// file holds no conversation any more: the import notes it and the
// session keeps what was imported.
func TestCursorAgentOverwrittenByError(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join(crafted, alpha, "a1b2c3d4-0003-4000-8000-000000000003", "a1b2c3d4-0003-4000-8000-000000000003.jsonl")
	dir := t.TempDir()
	path := filepath.Join(dir, "projects", "Users-example-x", "agent-transcripts", "c0ffee00-0000-4000-8000-000000000002", "c0ffee00-0000-4000-8000-000000000002.jsonl")
	jsonltest.CopyFile(t, src, path)
	s := jsonltest.OpenStore(t)
	if _, err := jsonlimport.Import(ctx, s, []string{path}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"type":"turn_ended","status":"error","error":"You've hit your usage limit"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := jsonlimport.Import(ctx, s, []string{path}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0].Reason, "no conversation") {
		t.Errorf("problems %v, notes %v: want one note", rep.Problems, rep.Notes)
	}
	log, err := s.Entries(ctx, "c0ffee00-0000-4000-8000-000000000002", 1, 0)
	if err != nil || len(log) != 3 {
		t.Errorf("the session holds %d entries (%v), want the 3 imported", len(log), err)
	}
}

// TestExportPathFromSourceNames: the export path is built from the source
// file's names, which are data: no control byte or ".." reaches it.
func TestExportPathFromSourceNames(t *testing.T) {
	for _, src := range []string{
		"/home/me/.cursor/projects/p/agent-transcripts/a\x1b[2Jb/a\x1b[2Jb.jsonl",
		"/home/me/.cursor/projects/p/agent-transcripts/x\n.jsonl",
	} {
		got := cursoragent.ExportPath(sessiondb.Session{ID: "s1", SourcePath: src})
		if strings.ContainsFunc(got, func(r rune) bool { return r < 0x20 || r == 0x7f }) || strings.Contains(got, "..") || !strings.HasPrefix(got, "projects/p/agent-transcripts/") {
			t.Errorf("ExportPath(%q) = %q", src, got)
		}
	}
}
