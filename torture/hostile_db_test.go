package torture

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestHostileDatabaseFiles damages a database file in many ways — bytes
// flipped in the header and in data pages, pages zeroed, the file cut
// short, replaced by another kind of file, a garbage WAL beside it — and
// checks that the store never panics or hangs, that every error it
// returns matches a sessiondb sentinel (ErrCorrupt for damage), and that a
// file that is not SQLite at all is refused by Open with ErrCorrupt.
func TestHostileDatabaseFiles(t *testing.T) {
	t.Parallel()
	hostileDatabaseFiles(t, seed())
}

// TestHostileDatabaseFilesKnownSeeds runs TestHostileDatabaseFiles with
// the seeds that once found a defect, every time, so that CI does not
// depend on a random seed to meet them again. The damage depends on the
// base file's layout, which later migrations change, so each defect also
// has a fast test that makes its damage by hand:
//
//   - 1795959750747578765 (header-flip-10): an unsupported schema format
//     matched no sentinel; TestOpenUnsupportedFileFormat.
//   - 1796552175591336711 (page-flip-0, issue 36): the cell count of the
//     entries table's last leaf flipped from 5 to 138, max(id) read a
//     garbage cell and an append failed with "UNIQUE constraint failed:
//     entries.id"; sqlstore's TestDamagedLastLeafDoesNotReuseIDs.
func TestHostileDatabaseFilesKnownSeeds(t *testing.T) {
	longtest.Skip(t, "each seed builds and probes 60 damaged files (3-4 s); the fast tests named above hold the defects")
	for _, sd := range []uint64{1795959750747578765, 1796552175591336711} {
		t.Run(fmt.Sprint(sd), func(t *testing.T) { hostileDatabaseFiles(t, sd) })
	}
}

func hostileDatabaseFiles(t *testing.T, sd uint64) {
	rng := rand.New(rand.NewPCG(sd, 11))
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	store, err := sqlstore.Open(good, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 30 {
		sid := fmt.Sprintf("s%02d", i)
		op := fmt.Sprintf("seed.%d", i)
		if _, err := store.SaveFull(ctx, sessiondb.Session{ID: sid, Title: "hostile " + sid}, freshEntries(op, sid, 12), json.RawMessage(makeState(op, sid, 0, "", 0))); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if _, err := store.Compact(ctx, sid, sessiondb.Compaction{KeepFromSeq: 6, Summary: freshSummary(op+"c", sid, 2)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	base, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	pageSize := int(binary.BigEndian.Uint16(base[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	pages := len(base) / pageSize
	t.Logf("seed %d; base database %d bytes, %d pages of %d", sd, len(base), pages, pageSize)

	type hcase struct {
		name   string
		data   []byte
		wal    []byte // written as the -wal file when non-nil
		notSQL bool   // not an SQLite file at all: Open must refuse it
	}
	var cases []hcase
	flip := func(name string, lo, hi, n int) {
		d := append([]byte(nil), base...)
		for range n {
			d[lo+rng.IntN(hi-lo)] ^= byte(1 + rng.IntN(255))
		}
		cases = append(cases, hcase{name: name, data: d})
	}
	for i := range 12 {
		flip(fmt.Sprintf("header-flip-%d", i), 0, 100, 1+rng.IntN(3))
	}
	for i := range 16 {
		flip(fmt.Sprintf("page-flip-%d", i), pageSize, len(base), 1+rng.IntN(16))
	}
	for i := range 6 {
		p := 1 + rng.IntN(pages-1)
		d := append([]byte(nil), base...)
		clear(d[p*pageSize : (p+1)*pageSize])
		cases = append(cases, hcase{name: fmt.Sprintf("zero-page-%d-%d", p+1, i), data: d})
	}
	for i := range 4 {
		p := 1 + rng.IntN(pages-1)
		d := append([]byte(nil), base...)
		for j := p * pageSize; j < (p+1)*pageSize; j++ {
			d[j] = byte(rng.UintN(256))
		}
		cases = append(cases, hcase{name: fmt.Sprintf("random-page-%d-%d", p+1, i), data: d})
	}
	for _, n := range []int{1, 16, 99, 100, 512, pageSize, pageSize + 1, len(base) / 2, len(base) - pageSize, len(base) - 1} {
		cases = append(cases, hcase{name: fmt.Sprintf("truncated-%d", n), data: base[:n]})
	}
	random := make([]byte, 64<<10)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	cases = append(cases,
		hcase{name: "text-file", data: []byte(strings.Repeat("this is not a database\n", 400)), notSQL: true},
		hcase{name: "jsonl-file", data: []byte(strings.Repeat(`{"role":"user","content":"hi"}`+"\n", 300)), notSQL: true},
		hcase{name: "random-bytes", data: random, notSQL: true},
		hcase{name: "gzip-header", data: append([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3}, random[:4096]...), notSQL: true},
		hcase{name: "nul-bytes", data: make([]byte, 8192), notSQL: true},
		hcase{name: "magic-then-random", data: append([]byte("SQLite format 3\x00"), random[:8192]...)},
		hcase{name: "garbage-wal", data: base, wal: random[:32<<10]},
		hcase{name: "wal-header-then-random", data: base, wal: append([]byte{0x37, 0x7f, 0x06, 0x82, 0, 0x2d, 0xe2, 0x18}, random[:16<<10]...)},
	)

	probeDir := filepath.Join(dir, "cases")
	if err := os.MkdirAll(probeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	byName := map[string]hcase{}
	for _, tc := range cases {
		if _, dup := byName[tc.name]; dup {
			t.Fatalf("two cases named %s: one file would overwrite the other", tc.name)
		}
		byName[tc.name] = tc
		path := filepath.Join(probeDir, tc.name+".db")
		if err := os.WriteFile(path, tc.data, 0o600); err != nil {
			t.Fatal(err)
		}
		if tc.wal != nil {
			if err := os.WriteFile(path+"-wal", tc.wal, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The probes run in a child: a panic kills it and names the file it
	// was on; a hang is caught by the deadline (a watchdog, not a timing
	// assertion: all the probes together take a second or two).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	steps, stderr, err := runChildContext(ctx, t, childExe(t), "dbprobe", []string{envDir + "=" + probeDir}, nil)
	var last string
	for _, s := range steps {
		if s.Name == "start" {
			last = s.Sid
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("the store hangs on %s (seed %d)", last, sd)
	}
	if err != nil {
		if len(stderr) > 4000 {
			stderr = stderr[:4000]
		}
		t.Fatalf("the probe process died on %s (seed %d): %v\n%s", last, sd, err, stderr)
	}
	undetected, probed := 0, 0
	for _, s := range steps {
		if s.Name != "probe" {
			continue
		}
		probed++
		var out hostileOutcome
		if err := json.Unmarshal([]byte(s.Err), &out); err != nil {
			t.Fatal(err)
		}
		tc := byName[out.Name]
		if out.OpenErr != "" && out.OpenSentinel == "" {
			t.Errorf("%s: Open failed with %q, which matches no sessiondb sentinel (seed %d)", tc.name, out.OpenErr, sd)
		}
		for _, e := range out.Unmatched {
			t.Errorf("%s: a read or write failed with %q, which matches no sessiondb sentinel (seed %d)", tc.name, e, sd)
		}
		if tc.notSQL && !strings.Contains(out.OpenSentinel, "ErrCorrupt") {
			t.Errorf("%s: Open = %q, want it refused with ErrCorrupt", tc.name, out.OpenErr)
		}
		switch {
		case out.OpenErr != "":
			t.Logf("%-22s Open: %s", tc.name, out.OpenErr)
		case out.Integrity != "ok" || len(out.Errs) > 0:
			first := ""
			if len(out.Errs) > 0 {
				first = out.Errs[0]
			}
			t.Logf("%-22s opened; integrity_check: %.120s; %d errors: %.160s", tc.name, out.Integrity, len(out.Errs), first)
		default:
			undetected++
			t.Logf("%-22s opened; nothing detected (damage in unused bytes or record payloads, which SQLite does not checksum)", tc.name)
		}
	}
	if probed != len(cases) {
		t.Fatalf("%d of %d files probed", probed, len(cases))
	}
	t.Logf("%d damaged files, %d without any detectable effect", len(cases), undetected)
}

// TestOpenRefusesNonDatabaseFile: Open must never turn a file that is not
// an SQLite database into one. SQLite treats a 1-byte file as an empty
// database, so Open used to migrate a fresh schema over it, destroying the
// byte; longer non-SQLite files are refused with ErrCorrupt.
func TestOpenRefusesNonDatabaseFile(t *testing.T) {
	for _, content := range []string{"x", "\n", "ab", "hello\n", "my notes\n"} {
		path := filepath.Join(t.TempDir(), "notes.txt")
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		store, err := sqlstore.Open(path, nil)
		if store != nil {
			store.Close()
		}
		after, rerr := os.ReadFile(path)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if string(after) != content {
			t.Errorf("Open(a %d-byte file holding %q) = %v and rewrote the file (now %d bytes starting %q)", len(content), content, err, len(after), after[:min(16, len(after))])
			continue
		}
		if !strings.Contains(sentinels(err), "ErrCorrupt") {
			t.Errorf("Open(a %d-byte non-database file) = %v, want ErrCorrupt", len(content), err)
		}
	}
}

// TestOpenRefusesForeignSQLite (issue 23 item 9): someone else's SQLite
// database — tables, a view, a trigger, a WAL-mode file, one whose tables
// are named like sessiondb's — is refused by the read-write and the
// read-only Open alike, and its bytes are left as they were.
func TestOpenRefusesForeignSQLite(t *testing.T) {
	for name, schema := range map[string]string{
		"table":     `CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ann')`,
		"view":      `CREATE VIEW v AS SELECT 1 AS one`,
		"trigger":   `CREATE TABLE t (x); CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; END`,
		"wal":       `PRAGMA journal_mode = WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1)`,
		"lookalike": `CREATE TABLE sessions (id TEXT PRIMARY KEY); CREATE TABLE entries (session_id TEXT, seq INTEGER)`,
	} {
		path := filepath.Join(t.TempDir(), name+".sqlite")
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(schema); err != nil {
			t.Fatal(err)
		}
		db.Close()
		before, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range []*sqlstore.Options{nil, {ReadOnly: true}} {
			store, err := sqlstore.Open(path, opts)
			if store != nil {
				store.Close()
			}
			if !strings.Contains(sentinels(err), "ErrCorrupt") {
				t.Errorf("%s: Open(%+v) = %v, want ErrCorrupt", name, opts, err)
			}
		}
		if after, _ := os.ReadFile(path); string(after) != string(before) {
			t.Errorf("%s: a refused Open changed someone else's database", name)
		}
	}
}

// TestOpenUnsupportedFileFormat: a database whose header declares a schema
// format SQLite does not support (byte 47 of the header, damaged or from
// the future) is not a database this binary can use: Open must say so
// with ErrCorrupt. Today SQLite's "unsupported file format" (SQLITE_ERROR)
// passes through translate unmapped. Found by TestHostileDatabaseFiles
// (seed 1795959750747578765, header-flip-10).
func TestOpenUnsupportedFileFormat(t *testing.T) {
	good := filepath.Join(t.TempDir(), "good.db")
	if err := makeDB(good); err != nil {
		t.Fatal(err)
	}
	base, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		off int
		v   byte
	}{{47, 5}, {47, 0xff}, {19, 3}, {21, 0}} {
		d := append([]byte(nil), base...)
		d[c.off] = c.v
		p := filepath.Join(t.TempDir(), "bad.db")
		if err := os.WriteFile(p, d, 0o600); err != nil {
			t.Fatal(err)
		}
		store, err := sqlstore.Open(p, nil)
		if err == nil {
			store.Close()
			t.Errorf("header byte %d = %d: Open succeeded", c.off, c.v)
			continue
		}
		if !strings.Contains(sentinels(err), "ErrCorrupt") {
			t.Errorf("header byte %d = %d: Open = %q (matches %q), want ErrCorrupt", c.off, c.v, err, sentinels(err))
		}
	}
}
