package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// walWarnBytes is the write-ahead-log size doctor warns about: a WAL this
// large means checkpoints cannot complete, usually because a reader keeps a
// transaction open for a long time.
const walWarnBytes = 256 << 20

// Check statuses.
const (
	checkOK   = "ok"
	checkWarn = "warn"
	checkFail = "fail"
	checkSkip = "skipped"
)

type checkResult struct {
	Check  string `json:"check"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

func (a *app) doctorCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check the database for corruption and inconsistencies",
		Long: `Doctor checks the database without changing it: SQLite's integrity check,
foreign keys, orphan rows (rows of a session, compaction or checkpoint that
no longer exists), log positions beyond a session's last sequence, the
schema version against the latest this binary knows, the schema's tables,
views, indexes and triggers against the text the migrations gave them, the
journal mode, the write-ahead log's size, and that the database, its
WAL/SHM and its backups are readable by their owner only. It reports how
many entries the background secret scan has not reached yet (reads scan
them as they read them), and each scrub done (sessionctl scrub): when,
which session, how many bodies and secrets.

On PostgreSQL, doctor checks the schema version, orphan rows and log
positions; the file checks are skipped (the server manages storage).

Each check is ok, warn, fail or skipped. The exit code is 1 when any check
fails, 0 otherwise (warnings included).`,
		Example: `  sessionctl doctor
  sessionctl doctor --json | jq '.[] | select(.status != "ok")'`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return a.runDoctor(asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the checks as a JSON array")
	return c
}

func (a *app) runDoctor(asJSON bool) error {
	// Read-only: doctor looks, it never changes the file.
	// NoSchemaCheck: a damaged schema is reported below, not refused.
	st, err := a.openRead(&openOptions{NoMigrate: true, NoSchemaCheck: true})
	if err != nil {
		return err
	}
	var results []checkResult
	add := func(check, status, format string, args ...any) {
		results = append(results, checkResult{Check: check, Status: status, Detail: fmt.Sprintf(format, args...)})
	}

	q, _ := st.(readOnlyQuerier)
	if q == nil {
		return fmt.Errorf("doctor: %s cannot run checks", location(st))
	}

	// The version is read with plain queries rather than through goose,
	// which would create its version table in a database that has none.
	schemaOK := false
	mg, _ := st.(migrator)
	if mg == nil {
		add("schema version", checkSkip, "%s", note(st, "migrations"))
	} else if current, err := mg.SchemaVersion(a.ctx); err != nil {
		add("schema version", checkFail, "cannot read the version: %v", err)
	} else if latest, err := mg.LatestSchema(); err != nil {
		add("schema version", checkFail, "cannot read the embedded migrations: %v", err)
	} else {
		switch {
		case current == latest:
			schemaOK = true
			add("schema version", checkOK, "version %d, the latest", current)
			if sc, ok := st.(schemaChecker); ok {
				if err := sc.CheckSchema(a.ctx); err != nil {
					schemaOK = false
					add("schema objects", checkFail, "%v; restore from a backup", err)
				} else {
					add("schema objects", checkOK, "as the migrations created them")
				}
			}
		case current < latest:
			add("schema version", checkFail, "version %d, latest is %d: run 'sessionctl migrate up'", current, latest)
		default:
			add("schema version", checkFail, "version %d is newer than this binary's %d: upgrade sessionctl", current, latest)
		}
	}

	if ec, ok := st.(engineChecker); ok {
		results = append(results, ec.EngineChecks(a.ctx)...)
	}

	if !schemaOK {
		add("orphan rows", checkSkip, "needs the latest schema")
		add("log positions", checkSkip, "needs the latest schema")
	} else {
		orphans := []struct{ what, query string }{
			{"entries", "SELECT count(*) FROM entries WHERE session_id NOT IN (SELECT id FROM sessions)"},
			{"aliases", "SELECT count(*) FROM session_aliases WHERE session_id NOT IN (SELECT id FROM sessions)"},
			{"compactions", "SELECT count(*) FROM compactions WHERE session_id NOT IN (SELECT id FROM sessions)"},
			{"summary messages", "SELECT count(*) FROM summary_messages WHERE compaction_id NOT IN (SELECT id FROM compactions)"},
			{"states", "SELECT count(*) FROM states WHERE session_id NOT IN (SELECT id FROM sessions)"},
			{"interrupts", "SELECT count(*) FROM interrupts WHERE session_id NOT IN (SELECT id FROM sessions)"},
			{"checkpoints", "SELECT count(*) FROM checkpoints WHERE session_id NOT IN (SELECT id FROM sessions)"},
			{"checkpoint compactions", "SELECT count(*) FROM checkpoints WHERE compaction_id IS NOT NULL AND compaction_id NOT IN (SELECT id FROM compactions)"},
			{"usage", "SELECT count(*) FROM usage WHERE session_id NOT IN (SELECT id FROM sessions)"},
			{"source files", "SELECT count(*) FROM source_files WHERE session_id NOT IN (SELECT id FROM sessions)"},
		}
		var found []string
		var qerr error
		for _, o := range orphans {
			n, err := queryInt(a.ctx, q, o.query)
			if err != nil {
				qerr = err
				break
			}
			if n > 0 {
				found = append(found, fmt.Sprintf("%d %s", n, o.what))
			}
		}
		switch {
		case qerr != nil:
			add("orphan rows", checkFail, "%v", qerr)
		case len(found) > 0:
			add("orphan rows", checkFail, "%s without their parent row", strings.Join(found, ", "))
		default:
			add("orphan rows", checkOK, "none")
		}

		positions := []struct{ what, query string }{
			{"entries beyond last_seq", "SELECT count(*) FROM entries e JOIN sessions s ON s.id = e.session_id WHERE e.seq < 1 OR e.seq > s.last_seq"},
			{"compactions keeping beyond last_seq+1", "SELECT count(*) FROM compactions c JOIN sessions s ON s.id = c.session_id WHERE c.keep_from_seq < 1 OR c.keep_from_seq > s.last_seq + 1"},
			{"checkpoints beyond last_seq", "SELECT count(*) FROM checkpoints c JOIN sessions s ON s.id = c.session_id WHERE c.at_seq > s.last_seq"},
		}
		found, qerr = nil, nil
		for _, p := range positions {
			n, err := queryInt(a.ctx, q, p.query)
			if err != nil {
				qerr = err
				break
			}
			if n > 0 {
				found = append(found, fmt.Sprintf("%d %s", n, p.what))
			}
		}
		switch {
		case qerr != nil:
			add("log positions", checkFail, "%v", qerr)
		case len(found) > 0:
			add("log positions", checkFail, "%s", strings.Join(found, ", "))
		default:
			add("log positions", checkOK, "consistent")
		}

		// Import records are kept per machine and path (issue 43): how
		// many machines import here, how many paths more than one of
		// them records (one home layout, or one home synced), and how
		// many records no machine made (from before records had
		// machines: the first machine to import the path adopts its).
		records := []struct{ what, query string }{
			{"records", "SELECT count(*) FROM source_files"},
			{"machines", "SELECT count(DISTINCT machine) FROM source_files WHERE machine <> ''"},
			{"shared", "SELECT count(*) FROM (SELECT path FROM source_files GROUP BY path HAVING count(*) > 1) p"},
			{"unowned", "SELECT count(*) FROM source_files WHERE machine = ''"},
		}
		counts := map[string]int64{}
		qerr = nil
		for _, r := range records {
			n, err := queryInt(a.ctx, q, r.query)
			if err != nil {
				qerr = err
				break
			}
			counts[r.what] = n
		}
		if qerr != nil {
			add("import records", checkFail, "%v", qerr)
		} else {
			add("import records", checkOK, "%d, from %d machine(s); %d path(s) recorded by more than one machine; %d of no machine (the first machine to import the path takes it)",
				counts["records"], counts["machines"], counts["shared"], counts["unowned"])
		}

		// A cost totals cannot count (sessiondb.MaxCost): written by a
		// binary that took any price (issue 36), or by hand.
		switch n, err := queryInt(a.ctx, q, backend.BadCostSQL); {
		case err != nil:
			add("usage costs", checkFail, "%v", err)
		case n > 0:
			add("usage costs", checkFail, "%d usage rows hold a cost that is not a number between -$%g and $%g; totals count them as $0 (run 'sessionctl reprice' to recompute the estimated ones)", n, sessiondb.MaxCost, sessiondb.MaxCost)
		default:
			add("usage costs", checkOK, "every cost is a number within ±$%g", sessiondb.MaxCost)
		}
	}

	li, _ := st.(lazyIndexer)
	switch {
	case !schemaOK:
		add("search index", checkSkip, "needs the latest schema")
	case li == nil:
		add("search index", checkOK, "%s", note(st, "index"))
	default:
		if idx, err := li.IndexStatus(a.ctx); err != nil {
			add("search index", checkFail, "%v", err)
		} else if idx.Unindexed > indexLagWarn {
			add("search index", checkWarn, "%d rows not indexed yet: search scans them until a writer catches up (run 'sessionctl reindex --catch-up')", idx.Unindexed)
		} else {
			add("search index", checkOK, "%d rows not indexed yet, %d deleted rows not purged yet", idx.Unindexed, idx.PendingDeletes)
		}
	}

	if k, ok := st.(sessiondb.SecretKeeper); ok && schemaOK {
		a.secretChecks(k, add)
	}

	if fb, ok := st.(fileBacked); ok {
		a.fileChecks(st, fb.Path(), add)
	} else {
		add("files", checkSkip, "%s", note(st, "files"))
	}

	failed := 0
	for _, r := range results {
		if r.Status == checkFail {
			failed++
		}
	}
	if asJSON {
		if err := writeJSON(a.stdout, results); err != nil {
			return err
		}
	} else {
		if fb, ok := st.(fileBacked); ok {
			fmt.Fprintf(a.stdout, "database %s (%s)\n", fb.Path(), humanBytes(fileSize(fb.Path())))
		} else {
			fmt.Fprintf(a.stdout, "database %s\n", location(st))
		}
		tw := newTable(a.stdout)
		fmt.Fprintln(tw, "CHECK\tSTATUS\tDETAIL")
		for _, r := range results {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Check, r.Status, cell(r.Detail, 0))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d check(s) failed (see the report on stdout)", failed)
	}
	return nil
}

// repairHint says how to repair what integrity_check found: damage
// confined to the full-text index is rebuilt from the log by reindex;
// anything else needs the backup.
// indexLagWarn is the indexing lag doctor warns about: a writer catches up
// within moments, so a lag this large means no writer has run since a bulk
// write (or the indexer keeps failing).
const indexLagWarn = 100000

func repairHint(problems []string) string {
	for _, p := range problems {
		if !strings.Contains(strings.ToLower(p), "fts5") {
			return "; restore from a backup"
		}
	}
	return "; only the search index is damaged: run 'sessionctl reindex'"
}

// fileChecks checks a database file's write-ahead log and that the
// file, its WAL/SHM and its backups are private.
func (a *app) fileChecks(st sessiondb.Store, path string, add func(check, status, format string, args ...any)) {
	wal := fileSize(path + "-wal")
	if wal > walWarnBytes {
		add("wal size", checkWarn, "%s: a long-running reader may be blocking checkpoints; it shrinks once all processes close the database", humanBytes(wal))
	} else {
		add("wal size", checkOK, "%s", humanBytes(wal))
	}

	// The transcripts are private: the database, its WAL and SHM, its
	// search index file (which rows hold which trigrams of their text)
	// with its own, and its backups should be readable by their owner
	// only.
	idx := sqlstore.IndexPath(path)
	files := []string{path, path + "-wal", path + "-shm", idx, idx + "-wal", idx + "-shm"}
	if bk, ok := st.(backupKeeper); ok {
		if baks, err := bk.Backups(); err == nil {
			files = append(files, baks...)
		}
	}
	var open []string
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Mode().Perm()&0o077 != 0 {
			open = append(open, fmt.Sprintf("%s (%04o)", f, fi.Mode().Perm()))
		}
	}
	if len(open) > 0 {
		add("permissions", checkWarn, "readable or writable by others: %s; run chmod 600 on them", strings.Join(open, ", "))
	} else {
		add("permissions", checkOK, "owner only")
	}
}

func firstOr(s []string, def string) string {
	if len(s) == 0 {
		return def
	}
	return s[0]
}

// secretChecks reports the secret scan's lag and the scrubs done.
func (a *app) secretChecks(k sessiondb.SecretKeeper, add func(check, status, format string, args ...any)) {
	if n, err := k.SecretStatus(a.ctx); err != nil {
		add("secret scan", checkFail, "%v", err)
	} else {
		add("secret scan", checkOK, "%d entries not scanned yet (reads scan them; a writer's background scan catches up)", n)
	}
	scrubs, err := k.Scrubs(a.ctx)
	switch {
	case err != nil:
		add("scrubs", checkFail, "%v", err)
	case len(scrubs) == 0:
		add("scrubs", checkOK, "none: every stored body is as it was written")
	default:
		var parts []string
		entries, secrets := 0, 0
		for _, r := range scrubs {
			entries += r.Entries
			secrets += r.Secrets
			parts = append(parts, fmt.Sprintf("%s %s: %d bodies, %d secrets", r.At.UTC().Format("2006-01-02 15:04:05"), visible(r.SessionID), r.Entries, r.Secrets))
		}
		const shown = 10
		if len(parts) > shown {
			parts = append(parts[len(parts)-shown:], fmt.Sprintf("and %d earlier", len(parts)-shown))
		}
		add("scrubs", checkOK, "%d scrubs rewrote %d bodies holding %d secrets (exports of those sessions are not byte for byte what was imported): %s",
			len(scrubs), entries, secrets, strings.Join(parts, "; "))
	}
}
