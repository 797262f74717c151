package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport"
)

// testdata is the repository's sample archives, copied from the source
// tools' own stores.
const testdata = "../../testdata"

// picoclawFiles returns the session files of testdata/picoclaw (without
// its README and manifest, which no format claims).
func picoclawFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"*.jsonl", "*.meta.json"} {
		m, err := filepath.Glob(filepath.Join(testdata, "picoclaw", pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("no picoclaw samples in testdata/picoclaw")
	}
	sort.Strings(files)
	return files
}

// jsonlArray is what show --json prints for a JSONL file read verbatim:
// its non-empty lines as the elements of an array.
func jsonlArray(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			lines = append(lines, string(l))
		}
	}
	if len(lines) == 0 {
		return "[]\n"
	}
	return "[\n" + strings.Join(lines, ",\n") + "\n]\n"
}

// checkProblemsExit checks the contract between the report and the exit
// code: 3 when problems were reported, 0 otherwise.
func checkProblemsExit(t testing.TB, r result, rep importReport) {
	t.Helper()
	switch {
	case len(rep.Problems) > 0 && r.code != exitProblems:
		t.Errorf("%d problems but exit %d, want 3", len(rep.Problems), r.code)
	case len(rep.Problems) == 0 && r.code != 0:
		t.Errorf("no problems but exit %d (stderr %q)", r.code, r.stderr)
	}
	if r.code == exitProblems && (strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "problem")) {
		t.Errorf("exit 3 without a one-line notice: %q", r.stderr)
	}
}

func TestImport(t *testing.T) {
	files := picoclawFiles(t)
	db := tempDB(t)

	var rep importReport
	r := sessionctl(t, db, append([]string{"import", "--json"}, files...)...)
	r.decode(t, &rep)
	checkProblemsExit(t, r, rep)
	if rep.Sessions == 0 || rep.Entries == 0 || rep.Files == 0 || rep.Bytes == 0 || rep.DryRun {
		t.Fatalf("import report: %+v", rep)
	}
	var list []sessionJSON
	sessionctl(t, db, "list", "--json", "--limit", "0").mustSucceed(t).decode(t, &list)
	if len(list) != rep.Sessions {
		t.Errorf("list shows %d sessions, the import reported %d", len(list), rep.Sessions)
	}
	for _, s := range list {
		if s.SourceFormat != "picoclaw" || s.SourcePath == "" {
			t.Errorf("session %s: source %q %q", s.ID, s.SourceFormat, s.SourcePath)
		}
	}

	// The transcript comes back as the file's lines, byte for byte.
	alice := filepath.Join(testdata, "picoclaw", "agent_main_cli_direct_alice.jsonl")
	if _, err := os.Stat(alice); err == nil {
		r := sessionctl(t, db, "show", "agent:main:cli:direct:alice", "--json").mustSucceed(t)
		if want := jsonlArray(t, alice); r.stdout != want {
			t.Errorf("show --json:\n%s\nwant the file's lines:\n%s", r.stdout, want)
		}
	}

	// Importing the same files again changes nothing.
	rep = importReport{}
	sessionctl(t, db, append([]string{"import", "--json"}, files...)...).mustSucceed(t).decode(t, &rep)
	if rep.Sessions != 0 || rep.Entries != 0 || rep.Unchanged != rep.Files || len(rep.Problems) != 0 {
		t.Errorf("re-import: %+v", rep)
	}
	r = sessionctl(t, db, append([]string{"import"}, files...)...).mustSucceed(t)
	if want := "0 sessions, 0 entries"; !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, " unchanged files skipped; 0 other files skipped; 0 problems; 0 notes\n") {
		t.Errorf("human summary: %q", r.stdout)
	}
}

func TestImportDirectorySkipsNonSessionFiles(t *testing.T) {
	picoclawFiles(t)
	db := tempDB(t)
	dir := filepath.Join(testdata, "picoclaw")
	var rep importReport
	r := sessionctl(t, db, "import", "--json", dir)
	r.decode(t, &rep)
	checkProblemsExit(t, r, rep)
	// README.md and MANIFEST.tsv are nobody's format: skipped, counted and
	// noted, not problems; the shared agent:main:main aliases are not
	// problems either. Exit 0.
	noted := map[string]bool{}
	for _, p := range rep.Notes {
		if strings.Contains(p.Reason, "not a session file") {
			noted[filepath.Base(p.Path)] = true
		}
	}
	if !noted["README.md"] || !noted["MANIFEST.tsv"] || rep.Skipped != len(noted) {
		t.Errorf("skipped %d, notes %v; want README.md and MANIFEST.tsv", rep.Skipped, rep.Notes)
	}
	if r.code != 0 || len(rep.Problems) != 0 || rep.Sessions == 0 {
		t.Fatalf("exit %d, problems %v, sessions %d; want 0, none, > 0", r.code, rep.Problems, rep.Sessions)
	}

	// The human report lists the notes on stdout.
	r = sessionctl(t, tempDB(t), "import", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "note: ") || !strings.Contains(r.stdout, "README.md: ") || !strings.Contains(r.stdout, "2 other files skipped; 0 problems") {
		t.Errorf("human report: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestImportDamaged(t *testing.T) {
	dir := filepath.Join(testdata, "picoclaw-damaged", "torn-last-and-corrupt-middle")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no damaged picoclaw samples")
	}
	db := tempDB(t)
	var rep importReport
	r := sessionctl(t, db, "import", "--json", dir)
	r.decode(t, &rep)
	if r.code != exitProblems || len(rep.Problems) == 0 {
		t.Fatalf("damaged input: exit %d, %+v", r.code, rep)
	}
	lined := false
	for _, p := range rep.Problems {
		if p.Line > 0 && p.Path != "" && p.Reason != "" {
			lined = true
		}
	}
	if !lined {
		t.Errorf("no problem names a line: %+v", rep.Problems)
	}
	if rep.Sessions != 1 {
		t.Errorf("the readable rest was not imported: %+v", rep)
	}
}

func TestImportDryRunAndStrict(t *testing.T) {
	files := picoclawFiles(t)
	dir := filepath.Join(testdata, "picoclaw")
	db := missingDB(t)

	var rep importReport
	r := sessionctl(t, db, append([]string{"import", "--json", "--dry-run"}, files...)...)
	r.decode(t, &rep)
	checkProblemsExit(t, r, rep)
	if !rep.DryRun || rep.Sessions == 0 {
		t.Errorf("dry run report: %+v", rep)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("dry run created the database: %v", err)
	}
	r = sessionctl(t, db, append([]string{"import", "--dry-run"}, files...)...)
	if !strings.HasPrefix(r.stdout, "dry run: would import ") {
		t.Errorf("dry run summary: %q", r.stdout)
	}

	// --strict: a problem anywhere imports nothing.
	damaged := filepath.Join(testdata, "picoclaw-damaged", "torn-last-and-corrupt-middle")
	r = sessionctl(t, db, "import", "--strict", dir, damaged)
	if r.code != exitProblems || !strings.Contains(r.stderr, "--strict") || !strings.Contains(r.stdout, "torn last line") {
		t.Errorf("--strict with problems: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if got := sessionIDs(t, db); got != "" {
		t.Errorf("--strict imported despite problems: %s", got)
	}
	// --strict on clean input imports it.
	alice := []string{
		filepath.Join(dir, "agent_main_cli_direct_alice.jsonl"),
		filepath.Join(dir, "agent_main_cli_direct_alice.meta.json"),
	}
	if _, err := os.Stat(alice[0]); err == nil {
		sessionctl(t, db, append([]string{"import", "--strict", "--format", "picoclaw"}, alice...)...).mustSucceed(t)
		if got := sessionIDs(t, db); got != "agent:main:cli:direct:alice" {
			t.Errorf("--strict on clean input: %s", got)
		}
	}
}

func TestImportErrors(t *testing.T) {
	db := tempDB(t)
	missing := filepath.Join(t.TempDir(), "nope.jsonl")
	sessionctl(t, db, "import", missing).mustFail(t, exitError, "cannot read "+missing+": no such file or directory")
	sessionctl(t, db, "import", "--jobs", "-1", ".").mustFail(t, exitUsage, "--jobs must be >= 0")
}

func TestExport(t *testing.T) {
	files := picoclawFiles(t)
	db := tempDB(t)
	sessionctl(t, db, append([]string{"import"}, files...)...)
	out := filepath.Join(t.TempDir(), "out")

	var written []string
	sessionctl(t, db, "export", "agent:main:cli:direct:alice", "--format", "picoclaw", "--out", out, "--json").mustSucceed(t).decode(t, &written)
	if len(written) == 0 {
		t.Fatal("export wrote nothing")
	}
	for _, f := range written {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("export lists %s: %v", f, err)
		}
	}
	// The export reads back to the same transcript.
	db2 := tempDB(t)
	sessionctl(t, db2, "import", "--format", "picoclaw", out).mustSucceed(t)
	a := sessionctl(t, db, "show", "agent:main:cli:direct:alice", "--json").mustSucceed(t)
	b := sessionctl(t, db2, "show", "agent:main:cli:direct:alice", "--json").mustSucceed(t)
	if a.stdout != b.stdout {
		t.Errorf("round trip changed the transcript:\n%s\nvs\n%s", a.stdout, b.stdout)
	}

	r := sessionctl(t, db, "export", "agent:main:cli:direct:alice", "--format", "zot", "--out", filepath.Join(t.TempDir(), "z")).mustSucceed(t)
	if strings.TrimSpace(r.stdout) == "" {
		t.Errorf("export prints no files")
	}
	sessionctl(t, db, "export", "nope", "--format", "zot", "--out", t.TempDir()).mustFail(t, exitError, `no session "nope"`)
}

// TestImportProgressOnTerminal runs import as if stderr were a terminal:
// the progress bar goes to stderr, stdout holds only the JSON report.
func TestImportProgressOnTerminal(t *testing.T) {
	files := picoclawFiles(t)
	db := tempDB(t)
	var out, errb strings.Builder
	a := &app{
		ctx: context.Background(), stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(string) string { return "" }, stderrTTY: true,
	}
	code := a.run(append([]string{"--db", db, "import", "--json"}, files...))
	var rep importReport
	result{code: code, stdout: out.String()}.decode(t, &rep)
	if rep.Sessions == 0 {
		t.Errorf("report: %+v", rep)
	}
	if !strings.Contains(errb.String(), "importing") || !strings.Contains(errb.String(), "files") {
		t.Errorf("no progress on a terminal stderr: %q", errb.String())
	}

	// Not a terminal: no progress at all.
	r := sessionctl(t, tempDB(t), append([]string{"import", "--json"}, files...)...)
	if strings.Contains(r.stderr, "importing") {
		t.Errorf("progress drawn on a non-terminal: %q", r.stderr)
	}
}

// TestImportDryRunCreatesNothing: a dry run against a database that does
// not exist leaves nothing behind (no database, no -search index file, no
// lock), and against an existing one changes none of its files and adds
// none.
func TestImportDryRunCreatesNothing(t *testing.T) {
	files := picoclawFiles(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "new.db")
	r := sessionctl(t, db, append([]string{"import", "--dry-run", "--json"}, files...)...)
	var rep importReport
	r.decode(t, &rep)
	if !rep.DryRun || rep.Sessions == 0 {
		t.Fatalf("dry run report: %+v (stderr %q)", rep, r.stderr)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("a dry run left %d file(s) in the database's directory: %v", len(left), left)
	}

	// An existing database: read, never written.
	sessionctl(t, db, "import", files[0]).mustSucceed(t)
	before := dirState(t, dir)
	r = sessionctl(t, db, append([]string{"import", "--dry-run"}, files...)...)
	if r.code != 0 && r.code != exitProblems {
		t.Fatalf("dry run on an existing database: exit %d, %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "1 unchanged files skipped") {
		t.Errorf("dry run did not read the existing database's import records: %q", r.stdout)
	}
	if after := dirState(t, dir); after != before {
		t.Errorf("a dry run changed the database's files:\nbefore %s\nafter  %s", before, after)
	}
}

// dirState names the files of dir with their sizes and modification
// times (the -shm a read leaves is not counted: SQLite's shared memory,
// no data).
func dirState(t testing.TB, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), "-shm") || strings.HasSuffix(e.Name(), "-wal") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s:%d:%d ", e.Name(), fi.Size(), fi.ModTime().UnixNano())
	}
	return b.String()
}

// TestImportInterruptedSaysHowFar: Ctrl-C during an import (the context
// cancelled after a few files) says how far it got, that what was
// committed is kept, and that running the same import again continues;
// the second run then imports exactly the rest.
func TestImportInterruptedSaysHowFar(t *testing.T) {
	samples := filepath.Join(testdata, "samples")
	db := tempDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb strings.Builder
	a := &app{ctx: ctx, stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" },
		progressHook: func(p jsonlimport.Progress) {
			if p.FilesDone >= 5 {
				cancel()
			}
		}}
	code := a.run([]string{"--db", db, "import", "--jobs", "1", samples})
	r := result{code: code, stdout: out.String(), stderr: errb.String()}
	r.mustFail(t, exitError, "run the same import again to continue")
	m := regexp.MustCompile(`interrupted after (\d+) of (\d+) files \((\d+) sessions written\)`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("the interrupt does not say how far it got: %q", r.stderr)
	}
	done, total, written := atoi(t, m[1]), atoi(t, m[2]), atoi(t, m[3])
	if done < 5 || done >= total || written < 1 || written > done {
		t.Fatalf("interrupted after %d of %d files, %d sessions: want at least 5 files and fewer than all, a session at most per file", done, total, written)
	}
	var got []sessionJSON
	sessionctl(t, db, "list", "--json", "--limit", "0").mustSucceed(t).decode(t, &got)
	if len(got) != written {
		t.Errorf("%d sessions in the database, the message says %d were written", len(got), written)
	}

	var all, rep importReport
	sessionctl(t, tempDB(t), "import", "--json", "--dry-run", samples).mustSucceed(t).decode(t, &all)
	sessionctl(t, db, "import", "--json", samples).mustSucceed(t).decode(t, &rep)
	if rep.Unchanged != written || rep.Sessions != all.Sessions-written {
		t.Errorf("the second run: %d unchanged, %d sessions; want %d and %d", rep.Unchanged, rep.Sessions, written, all.Sessions-written)
	}
}

func atoi(t testing.TB, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// writeFile writes data at dir/rel, creating its directories.
func writeFile(t testing.TB, dir, rel, data string) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestImportProblemsAndNotes holds the import contract's line between
// problems and notes on a first day: an archive that starts
// mid-conversation loses nothing (exit 0, a note); a torn last line is a
// problem on every import while it stays out (exit 3 each time, listed
// each time); a note that asks the user to act (a model without a price,
// with the command that prices it) comes first and is never among the
// notes cut off.
func TestImportProblemsAndNotes(t *testing.T) {
	mid, err := os.ReadFile(filepath.Join(testdata, "claudecode", "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000004.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, dir, "-home-dev-proj/5c2d8e41-0000-4000-8000-000000000004.jsonl", string(mid))
	db := tempDB(t)
	r := sessionctl(t, db, "import", dir).mustSucceed(t)
	if !strings.Contains(r.stdout, "0 problems; 1 notes") || !strings.Contains(r.stdout, "  note: ") || !strings.Contains(r.stdout, "is in no line of this file (the archive starts mid-conversation)") {
		t.Errorf("an archive that starts mid-conversation:\n%s", r.stdout)
	}

	// A torn last line: a problem on every import until it is gone.
	torn := filepath.Join(testdata, "zot-damaged", "01-torn-last-line.jsonl")
	data, err := os.ReadFile(torn)
	if err != nil {
		t.Fatal(err)
	}
	tdir := t.TempDir()
	writeFile(t, tdir, "s.jsonl", string(data))
	tdb := tempDB(t)
	for i := 1; i <= 2; i++ {
		r := sessionctl(t, tdb, "import", "--format", "zot", tdir)
		if r.code != exitProblems || !strings.Contains(r.stdout, "1 problems") || !strings.Contains(r.stdout, "torn last line") {
			t.Errorf("import %d of a file with a torn last line: exit %d\n%s%s", i, r.code, r.stdout, r.stderr)
		}
	}

	// An unpriced model and more other notes than the summary lists.
	ndir := t.TempDir()
	for i := range 25 {
		writeFile(t, ndir, fmt.Sprintf("readme-%02d.txt", i), "not a session")
	}
	writeFile(t, ndir, "-home-dev-proj/s1.jsonl",
		`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/p","message":{"role":"user","content":"hi"}}`+"\n"+
			`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-01-01T00:00:01Z","requestId":"r1","message":{"id":"m1","role":"assistant","model":"zz-unpriced-model-9","content":[{"type":"text","text":"yo"}],"usage":{"input_tokens":10,"output_tokens":5}}}`+"\n")
	r = sessionctl(t, tempDB(t), "import", ndir).mustSucceed(t)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[1], "  to do: ") || !strings.Contains(lines[1], `"zz-unpriced-model-9"`) || !strings.Contains(lines[1], "sessionctl reprice") {
		t.Errorf("the unpriced model's note is not the first:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "… and 5 more notes") {
		t.Errorf("the other notes are not cut off after %d:\n%s", maxListedProblems, r.stdout)
	}
}
