package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb/internal/longtest"
)

// TestEndToEnd builds the sessionctl binary and drives it as a user would,
// on a fresh database at the default location (HOME and XDG_DATA_HOME point
// into a temp directory): import of testdata/samples (and of a damaged
// archive) → list → show → sql → stats → export of every session in its
// source format → re-import of each export into a fresh database, checking
// outputs and exit codes at each step.
func TestEndToEnd(t *testing.T) {
	longtest.Skip(t, "builds the binary")
	samples := filepath.Join(testdata, "samples")
	if _, err := os.Stat(samples); err != nil {
		t.Skip("no testdata/samples")
	}

	tmp := t.TempDir()
	bin := filepath.Join(tmp, "sessionctl")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	build := exec.Command(gobin, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	home := filepath.Join(tmp, "home")
	xdg := filepath.Join(tmp, "xdg")
	env := []string{"HOME=" + home, "XDG_DATA_HOME=" + xdg}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "XDG_DATA_HOME", "SESSIONDB_PATH", "SESSIONDB_URL":
		default:
			env = append(env, kv)
		}
	}
	sh := func(args ...string) result {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("run %v: %v", args, err)
		}
		return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	}
	defaultDB := filepath.Join(xdg, "sessiondb", "sessions.db")

	// 1. Import the clean mixed archive (picoclaw, zot, swink): exit 0, no
	// problems, into the default database. It holds what real agents
	// write: three picoclaw sessions sharing the alias agent:main:main,
	// and a zot session killed between an assistant's tool call and its
	// result, which zot's loader completes with a stub result (a note).
	var rep importReport
	r := sh("import", "--json", samples).mustSucceed(t)
	r.decode(t, &rep)
	if len(rep.Problems) != 0 || rep.Sessions == 0 || rep.Entries == 0 || rep.Files == 0 {
		t.Fatalf("import %s: %+v", samples, rep)
	}
	stubNoted := false
	for _, n := range rep.Notes {
		if strings.HasSuffix(n.Path, "20261129-124252-7572b7b6.jsonl") && strings.Contains(n.Reason, "stub tool message was added") {
			stubNoted = true
		}
	}
	if !stubNoted || rep.Skipped != 0 {
		t.Errorf("import %s: notes %v, skipped %d; want the zot stub noted and nothing skipped", samples, rep.Notes, rep.Skipped)
	}
	// picoclaw's ResolveSessionKey returns the first meta, in file-name
	// order, that lists the alias.
	r = sh("show", "agent:main:main", "--json").mustSucceed(t)
	if want := jsonlArray(t, filepath.Join(samples, "picoclaw", "sk_v1_4482d1d51c5f3deb9c5434ca6f0008c68ed47c167f55c7c69fc6e7a3e2dd132d.jsonl")); r.stdout != want {
		t.Errorf("show agent:main:main:\n%s\nwant the first holder's lines:\n%s", r.stdout, want)
	}
	if _, err := os.Stat(defaultDB); err != nil {
		t.Fatalf("the default database %s was not created: %v", defaultDB, err)
	}
	// Again: every file is unchanged, nothing is written.
	r = sh("import", samples).mustSucceed(t)
	if want := fmt.Sprintf("imported %d files: 0 sessions, 0 entries, 0 B; %d unchanged files skipped; 0 other files skipped; 0 problems; 0 notes\n", rep.Files, rep.Files); r.stdout != want {
		t.Errorf("re-import: %q, want %q", r.stdout, want)
	}
	// A damaged archive, into another database: exit 3, the problems
	// reported with file and line, the readable rest imported.
	if damaged := filepath.Join(testdata, "picoclaw-damaged"); dirExists(damaged) {
		var drep importReport
		r = sh("--db", filepath.Join(tmp, "damaged.db"), "import", "--json", damaged)
		r.decode(t, &drep)
		if r.code != exitProblems || len(drep.Problems) == 0 || drep.Sessions == 0 {
			t.Errorf("import %s: exit %d, %+v", damaged, r.code, drep)
		}
		checkProblemsExit(t, r, drep)
	}

	// 2. list --json.
	var list []sessionJSON
	sh("list", "--json", "--limit", "0").mustSucceed(t).decode(t, &list)
	if len(list) == 0 {
		t.Fatal("list --json: no sessions")
	}
	var ids []string
	byID := map[string]sessionJSON{}
	for _, s := range list {
		ids = append(ids, s.ID)
		byID[s.ID] = s
	}

	// 3. show --json: byte for byte the source file's lines.
	const alice = "agent:main:cli:direct:alice"
	if _, ok := byID[alice]; ok {
		r = sh("show", alice, "--json").mustSucceed(t)
		if want := jsonlArray(t, filepath.Join(samples, "picoclaw", "agent_main_cli_direct_alice.jsonl")); r.stdout != want {
			t.Errorf("show --json:\n%s\nwant:\n%s", r.stdout, want)
		}
		if got := sh("show", alice).mustSucceed(t).stdout; !strings.Contains(got, "[1] user") {
			t.Errorf("show:\n%s", got)
		}
	}
	// show --json prints the transcript; list's message_count counts its
	// messages (kinds message and custom), which the transcript view tells.
	var total, messages int64
	for _, id := range ids {
		var elems []json.RawMessage
		sh("show", id, "--json").mustSucceed(t).decode(t, &elems)
		total += int64(len(elems))
		messages += *byID[id].MessageCount
	}
	r = sh("sql", "--csv", "SELECT session_id, count(*) FILTER (WHERE kind IN ('message', 'custom')), count(*) FROM transcript GROUP BY session_id").mustSucceed(t)
	perSession, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(perSession) < 2 {
		t.Fatalf("sql --csv: %v\n%s", err, r.stdout)
	}
	for _, rec := range perSession[1:] {
		if want := strconv.FormatInt(*byID[rec[0]].MessageCount, 10); rec[1] != want {
			t.Errorf("session %s: the transcript view holds %s messages (of %s entries), list says %s", rec[0], rec[1], rec[2], want)
		}
	}
	sh("show", "no-such-session").mustFail(t, exitError, `no session "no-such-session"`)

	// 4. sql: the views agree with list and show.
	r = sh("sql", "--csv", "SELECT count(*) AS sessions, (SELECT count(*) FROM transcript) AS entries, (SELECT sum(message_count) FROM session_stats) AS messages FROM sessions").mustSucceed(t)
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("sql --csv: %v\n%s", err, r.stdout)
	}
	if recs[1][0] != strconv.Itoa(len(list)) || recs[1][1] != strconv.FormatInt(total, 10) || recs[1][2] != strconv.FormatInt(messages, 10) {
		t.Errorf("sql says %v, list/show say %d sessions, %d transcript entries, %d messages", recs[1], len(list), total, messages)
	}
	var stats statsReport
	sh("stats", "--json").mustSucceed(t).decode(t, &stats)
	if stats.Sessions != int64(len(list)) || stats.Messages != messages || stats.Path != defaultDB {
		t.Errorf("stats: %d sessions, %d messages at %s; list says %d, %d", stats.Sessions, stats.Messages, stats.Path, len(list), messages)
	}
	sh("sql", "DELETE FROM sessions").mustFail(t, exitError, "read-only")
	sh("list", "--bogus").mustFail(t, exitUsage, "unknown flag")

	// 5. export every session back to its source format, and 6. re-import
	// each export into a fresh database: same sessions, same transcripts,
	// byte for byte.
	byFormat := map[string][]string{}
	for _, s := range list {
		if s.SourceFormat != "" {
			byFormat[s.SourceFormat] = append(byFormat[s.SourceFormat], s.ID)
		}
	}
	for _, f := range []string{"picoclaw", "zot", "swink"} {
		if len(byFormat[f]) == 0 {
			t.Errorf("no %s sessions imported: %v", f, byFormat)
		}
	}
	for format, exportIDs := range byFormat {
		out := filepath.Join(tmp, "export-"+format)
		var written []string
		sh(append([]string{"export", "--format", format, "--out", out, "--json"}, exportIDs...)...).mustSucceed(t).decode(t, &written)
		if len(written) < len(exportIDs) {
			t.Fatalf("export %s wrote %d files for %d sessions", format, len(written), len(exportIDs))
		}
		for _, f := range written {
			if _, err := os.Stat(f); err != nil {
				t.Errorf("export %s lists %s: %v", format, f, err)
			}
		}

		db2 := filepath.Join(tmp, format+".db")
		rep = importReport{}
		r = sh("--db", db2, "import", "--json", "--format", format, out)
		r.decode(t, &rep)
		checkProblemsExit(t, r, rep)
		if rep.Sessions != len(exportIDs) {
			t.Errorf("%s: re-import of the export: %+v", format, rep)
		}
		var list2 []sessionJSON
		sh("--db", db2, "list", "--json", "--limit", "0").mustSucceed(t).decode(t, &list2)
		if len(list2) != len(exportIDs) {
			t.Errorf("%s: second database holds %d sessions, %d were exported", format, len(list2), len(exportIDs))
		}
		for _, id := range exportIDs {
			a := sh("show", id, "--json").mustSucceed(t).stdout
			b := sh("--db", db2, "show", id, "--json")
			if b.code != 0 || a != b.stdout {
				t.Errorf("%s session %s after export and re-import (exit %d, %s):\n%s\nwant:\n%s", format, id, b.code, b.stderr, b.stdout, a)
			}
		}
		sh("--db", db2, "doctor").mustSucceed(t)
	}
	sh("doctor").mustSucceed(t)
}

func dirExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
