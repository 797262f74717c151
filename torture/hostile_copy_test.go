package torture

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/pgstore"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// sessionctlExe builds cmd/sessionctl into a temporary directory: the
// copies below run as the real command, in their own processes.
func sessionctlExe(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out := filepath.Join(t.TempDir(), "sessionctl")
	if b, err := exec.Command(goTool, "build", "-o", out, "github.com/sessiondb/sessiondb/cmd/sessionctl").CombinedOutput(); err != nil {
		t.Fatalf("build sessionctl: %v\n%s", err, b)
	}
	return out
}

// copyProcess runs `sessionctl copy --json` and returns its exit code and
// decoded totals.
func copyProcess(t *testing.T, exe, from, to string, extra ...string) (int, map[string]any) {
	t.Helper()
	cmd := exec.Command(exe, append([]string{"copy", "--from", from, "--to", to, "--json"}, extra...)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var tot map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &tot); err != nil {
		t.Fatalf("copy %s -> %s: exit %d, output %q, stderr %q", from, to, code, stdout.String(), stderr.String())
	}
	return code, tot
}

// testPostgres returns the URL of a new database on the test server,
// dropped at the end; it skips without a server unless
// SESSIONDB_REQUIRE_POSTGRES=1.
func testPostgres(t *testing.T) string {
	t.Helper()
	base := os.Getenv("SESSIONDB_TEST_POSTGRES")
	if base == "" {
		base = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin, err := sql.Open("pgx", base)
	if err == nil {
		err = admin.PingContext(ctx)
	}
	if err != nil {
		if os.Getenv("SESSIONDB_REQUIRE_POSTGRES") == "1" {
			t.Fatalf("SESSIONDB_REQUIRE_POSTGRES=1 but no PostgreSQL server: %v", err)
		}
		t.Skipf("no PostgreSQL server: %v", err)
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	name := "torture_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		admin.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		defer admin.Close()
		if _, err := admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// hostileString is random text of the kinds PostgreSQL cannot hold as it
// is and of the shapes of its escape: NUL, bytes that are not UTF-8,
// U+FFFF, backslashes and octal-looking digits, among ordinary text.
func hostileString(r *mrand.Rand) string {
	pieces := []string{"\x00", "\xff", "\xc3", "\xe9", "\xed\xa0\x80", "\uFFFF", `\`, `\000`, `\\`, "0", "7", "a", "é", "日本", " ", "\u202e"}
	var b strings.Builder
	for range 1 + r.IntN(12) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// hostileJSON writes s as a JSON string without repairing it: quote,
// backslash and control bytes escaped, everything else as it is.
func hostileJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// fillHostile writes n sessions of hostile text into the SQLite file db.
func fillHostile(t *testing.T, db string, r *mrand.Rand, n int, prefix string) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		id := fmt.Sprintf("%s%03d", prefix, i)
		var entries []sessiondb.Entry
		for j := range 1 + r.IntN(6) {
			body := fmt.Sprintf(`{"role":"user","content":%s,"n":%d}`, hostileJSON(hostileString(r)), j)
			entries = append(entries, sessiondb.Entry{Body: json.RawMessage(body), Role: hostileString(r), CreatedAt: at.Add(time.Duration(j) * time.Second)})
		}
		if _, err := st.Commit(ctx, id, sessiondb.Commit{
			Create: &sessiondb.Session{Title: hostileString(r), Summary: hostileString(r), CreatedAt: at.Add(time.Duration(i) * time.Minute),
				Attrs: json.RawMessage(`{"cwd":` + hostileJSON(hostileString(r)) + `}`)},
			Append: entries,
			State:  json.RawMessage(`{"s":` + hostileJSON(hostileString(r)) + `}`),
			Usage:  []sessiondb.Usage{{Provider: hostileString(r), Model: hostileString(r), InputTokens: 1, CreatedAt: at}},
			Now:    at.Add(time.Hour),
		}); err != nil {
			t.Fatalf("commit %s: %v", id, err)
		}
		if _, err := st.SaveCheckpoint(ctx, sessiondb.Checkpoint{ID: id + "-cp", SessionID: id, Label: hostileString(r), CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
}

// dumpAll reads every session of a store, by ID.
func dumpAll(t *testing.T, loc string) map[string]sessiondb.SessionDump {
	t.Helper()
	ctx := context.Background()
	var st interface {
		sessiondb.Store
		sessiondb.Copier
	}
	if pgstore.IsURL(loc) {
		s, err := pgstore.Open(ctx, loc, nil)
		if err != nil {
			t.Fatal(err)
		}
		st = s
	} else {
		s, err := sqlstore.Open(loc, nil)
		if err != nil {
			t.Fatal(err)
		}
		st = s
	}
	defer st.Close()
	out := map[string]sessiondb.SessionDump{}
	infos, _, err := st.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		d, err := st.DumpSession(ctx, info.ID)
		if err != nil {
			t.Fatal(err)
		}
		out[info.ID] = d
	}
	return out
}

var dumpCmp = cmp.Options{cmpopts.IgnoreFields(sessiondb.Compaction{}, "ID"), cmpopts.IgnoreFields(sessiondb.Checkpoint{}, "CompactionID"), cmpopts.EquateEmpty()}

// TestHostileCopies (issue 23): sessions full of text PostgreSQL cannot
// hold as it is (NUL in titles, bytes that are not UTF-8 in bodies, labels,
// usage, documents, and the shapes of pgstore's own escape) copy SQLite →
// PostgreSQL → SQLite byte-identical, by the real sessionctl in its own
// processes; and a copy into a target that holds other sessions under the
// same IDs (equal counters or not) leaves every one of them as it was,
// reports each, and with --rename-conflicts puts the source's beside them.
func TestHostileCopies(t *testing.T) {
	longtest.Skip(t, "copies damaged databases with the sessionctl binary")
	r := mrand.New(mrand.NewPCG(seed(), 23))
	t.Logf("seed %d", seed())
	exe := sessionctlExe(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	fillHostile(t, src, r, 40, "h")
	want := dumpAll(t, src)

	t.Run("SQLitePostgresSQLite", func(t *testing.T) {
		pg := testPostgres(t)
		back := filepath.Join(t.TempDir(), "back.db")
		if code, tot := copyProcess(t, exe, src, pg); code != 0 || tot["copied"].(float64) != float64(len(want)) {
			t.Fatalf("copy to PostgreSQL: exit %d, %v", code, tot)
		}
		if diff := cmp.Diff(want, dumpAll(t, pg), dumpCmp); diff != "" {
			t.Fatalf("PostgreSQL holds other bytes (-SQLite +PostgreSQL):\n%s", diff)
		}
		if code, tot := copyProcess(t, exe, pg, back); code != 0 || tot["copied"].(float64) != float64(len(want)) {
			t.Fatalf("copy back: exit %d, %v", code, tot)
		}
		if diff := cmp.Diff(want, dumpAll(t, back), dumpCmp); diff != "" {
			t.Fatalf("round trip changed bytes (-before +after):\n%s", diff)
		}
	})

	t.Run("Conflicts", func(t *testing.T) {
		// The target holds, under every source ID, another session of its
		// own random text: the same Sequence (one commit each) and, for
		// about one in six, the same LastSeq too.
		dst := filepath.Join(t.TempDir(), "dst.db")
		other := mrand.New(mrand.NewPCG(seed()+1, 24))
		fillHostile(t, dst, other, 40, "h")
		before := dumpAll(t, dst)
		code, tot := copyProcess(t, exe, src, dst)
		conflicts, _ := tot["conflicts"].([]any)
		if code != 1 || len(conflicts) != len(want) {
			t.Fatalf("copy into a target of other sessions: exit %d, %d conflicts of %d: %v", code, len(conflicts), len(want), tot)
		}
		if diff := cmp.Diff(before, dumpAll(t, dst), dumpCmp); diff != "" {
			t.Fatalf("the target's sessions changed (-before +after):\n%s", diff)
		}
		code, tot = copyProcess(t, exe, src, dst, "--rename-conflicts")
		renamed, _ := tot["renamed"].([]any)
		if code != 0 || len(renamed) != len(want) {
			t.Fatalf("--rename-conflicts: exit %d, %v", code, tot)
		}
		after := dumpAll(t, dst)
		for id, d := range before {
			if diff := cmp.Diff(d, after[id], dumpCmp); diff != "" {
				t.Errorf("%s changed:\n%s", id, diff)
			}
		}
		for _, x := range renamed {
			m := x.(map[string]any)
			id, as := m["id"].(string), m["as"].(string)
			got, w := after[as], want[id]
			if got.Session.Title != w.Session.Title || len(got.Entries) != len(w.Entries) {
				t.Errorf("%s renamed %s: title %q, %d entries; want %q, %d", id, as, got.Session.Title, len(got.Entries), w.Session.Title, len(w.Entries))
				continue
			}
			for i := range got.Entries {
				if !bytes.Equal(got.Entries[i].Body, w.Entries[i].Body) {
					t.Errorf("%s renamed %s: entry %d differs", id, as, i)
				}
			}
		}
		if code, tot := copyProcess(t, exe, src, dst, "--rename-conflicts"); code != 0 || tot["unchanged"].(float64) != float64(len(want)) {
			t.Errorf("rerun: exit %d, %v; want every renamed copy unchanged", code, tot)
		}
	})
}
