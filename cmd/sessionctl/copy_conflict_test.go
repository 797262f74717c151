package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// picoclawHost writes one host's picoclaw session agent:main:cli:direct:alice
// into dir (the same path on every host, as ~/.picoclaw is) and imports it
// into db. Both hosts' meta files give the same creation time: only the
// conversations differ.
func picoclawHost(t *testing.T, dir, db string, lines []string) {
	t.Helper()
	const created = "2026-11-29T12:32:44.296876985Z"
	var jsonl strings.Builder
	for i, l := range lines {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		fmt.Fprintf(&jsonl, `{"role":%q,"content":%q,"created_at":"2026-11-29T12:33:%02d.000000000Z"}`+"\n", role, l, i)
	}
	meta := fmt.Sprintf(`{"key":"agent:main:cli:direct:alice","summary":"","skip":0,"count":%d,"created_at":%q,"updated_at":%q}`,
		len(lines), created, created)
	if err := os.WriteFile(filepath.Join(dir, "agent_main_cli_direct_alice.jsonl"), []byte(jsonl.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "agent_main_cli_direct_alice.meta.json"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	sessionctl(t, db, "import", dir).mustSucceed(t)
}

// TestCopyConflictingSessions: two hosts' picoclaw sessions
// agent:main:cli:direct:alice hold different conversations. Copying one
// host's database into the other's must never replace or skip-as-unchanged
// the target's conversation, whether the counters (Sequence, LastSeq) are
// equal or not: it is a conflict, left alone and reported (exit 1), or with
// --rename-conflicts copied beside it under a derived ID, the same on every
// run. On SQLite and PostgreSQL targets.
func TestCopyConflictingSessions(t *testing.T) {
	const id = "agent:main:cli:direct:alice"
	hostA := []string{"Hi! What's the capital of Australia?", "Canberra.", "How many people live there?", "About 470,000."}
	hostB := []string{"Please review my pull request", "Looks good, one nit.", "Which nit?", "Rename the variable."}
	hostBLonger := append(append([]string{}, hostB...), "Done.", "Thanks!")
	targets := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return tempDB(t) },
		"postgres": func(t *testing.T) string { return pgURL(t) },
	}
	for _, kind := range []string{"sqlite", "postgres"} {
		for _, tc := range []struct {
			name  string
			lines []string
		}{
			{"equal counters", hostB},
			{"target longer", hostBLonger},
		} {
			t.Run(kind+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				src := tempDB(t)
				picoclawHost(t, dir, src, hostA)
				dst := targets[kind](t)
				if strings.HasPrefix(dst, "postgres") {
					// Host B's own import into the PostgreSQL target.
					local := tempDB(t)
					picoclawHost(t, dir, local, tc.lines)
					copyRun(t, local, dst)
				} else {
					picoclawHost(t, dir, dst, tc.lines)
				}
				sa, sb := dumps(t, src)[id], dumps(t, dst)[id]
				if tc.name == "equal counters" && (sa.Session.Sequence != sb.Session.Sequence || sa.Session.LastSeq != sb.Session.LastSeq) {
					t.Fatalf("counters differ: %d/%d vs %d/%d", sa.Session.Sequence, sa.Session.LastSeq, sb.Session.Sequence, sb.Session.LastSeq)
				}
				before := dumps(t, dst)

				r := sessionctl(t, "", "copy", "--from", src, "--to", dst, "--json").mustFail(t, exitError, "other sessions")
				var tot copyTotals
				r.decode(t, &tot)
				if tot.Copied != 0 || tot.Unchanged != 0 || len(tot.Conflicts) != 1 || tot.Conflicts[0] != id {
					t.Errorf("copy: %+v; want one conflict %s, nothing copied or unchanged", tot, id)
				}
				sameDumps(t, before, dumps(t, dst))

				// Renamed beside the target's session, deterministically.
				var ren copyTotals
				sessionctl(t, "", "copy", "--from", src, "--to", dst, "--json", "--rename-conflicts").mustSucceed(t).decode(t, &ren)
				if ren.Copied != 1 || len(ren.Renamed) != 1 || ren.Renamed[0].ID != id || !strings.HasPrefix(ren.Renamed[0].As, id+"~") {
					t.Fatalf("copy --rename-conflicts: %+v", ren)
				}
				as := ren.Renamed[0].As
				after := dumps(t, dst)
				sameDumps(t, map[string]sessiondb.SessionDump{id: before[id]}, map[string]sessiondb.SessionDump{id: after[id]})
				got := after[as]
				if len(got.Entries) != len(hostA) || string(got.Entries[0].Body) != string(sa.Entries[0].Body) {
					t.Errorf("renamed copy %s holds %d entries, first %s; want host A's %d", as, len(got.Entries), got.Entries[0].Body, len(hostA))
				}
				if len(got.Sources) != 0 || len(got.Session.Aliases) != 0 {
					t.Errorf("renamed copy took the target's import record %v or aliases %v", got.Sources, got.Session.Aliases)
				}
				var again copyTotals
				sessionctl(t, "", "copy", "--from", src, "--to", dst, "--json", "--rename-conflicts").mustSucceed(t).decode(t, &again)
				if again.Copied != 0 || again.Unchanged != 1 || len(again.Renamed) != 0 {
					t.Errorf("rerun with --rename-conflicts: %+v; want the renamed copy unchanged", again)
				}
				if n := len(dumps(t, dst)); n != 2 {
					t.Errorf("target holds %d sessions after the rerun, want 2", n)
				}
				// Human output names the conflict.
				out := sessionctl(t, "", "copy", "--from", src, "--to", dst).mustFail(t, exitError, "--rename-conflicts")
				if !strings.Contains(out.stdout, "conflict: "+id) {
					t.Errorf("copy output does not report the conflict:\n%s", out.stdout)
				}
			})
		}
	}
}

// TestCopyUpdatesEarlierCopy: the same session, grown in the source, is
// still an earlier copy (its log a prefix of the source's): replaced, not a
// conflict.
func TestCopyUpdatesEarlierCopy(t *testing.T) {
	dir := t.TempDir()
	src := tempDB(t)
	picoclawHost(t, dir, src, []string{"one", "two"})
	dst := tempDB(t)
	copyRun(t, src, dst)
	picoclawHost(t, dir, src, []string{"one", "two", "three", "four"})
	if tot := copyRun(t, src, dst); tot.Copied != 1 || len(tot.Conflicts) != 0 {
		t.Errorf("copy after the source grew: %+v; want it copied", tot)
	}
	sameDumps(t, dumps(t, src), dumps(t, dst))
}
