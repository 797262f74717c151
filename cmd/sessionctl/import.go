package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/sqlstore"
)

type importOptions struct {
	format string
	dryRun bool
	strict bool
	jobs   int
	json   bool
	detect bool
	prices string
}

func (a *app) importCommand() *cobra.Command {
	var o importOptions
	c := &cobra.Command{
		Use:   "import [PATH...]",
		Short: "Import session archives (files or directory trees)",
		Long: `Import reads session archives written by picoclaw, zot, swink, Claude Code,
Codex CLI, pi or opencode and writes each source session into the database
in one transaction. Re-importing an unchanged file is a no-op; a file that
grew is imported incrementally. opencode's SQLite store (opencode.db with
its -wal) is read from a copy taken aside, never in place; each of its
sessions is imported, and at the next import only the sessions that changed
are read, from where the last import stopped. crush's .crush/crush.db and
the Go opencode's .opencode/opencode.db (kept in each project) and goose's
sessions/sessions.db are read the same way (goose's older sessions/*.jsonl
files too), and so are Cursor's state.vscdb stores (each composer a session).
The Cursor agent's transcripts (~/.cursor/projects/*/agent-transcripts, the
CLI's and the IDE agent's; sub-agents linked to their parent) are read as
JSONL files.
A git repository with Entire's entire/checkpoints/v1 branch (a clone's
origin/entire/checkpoints/v1 will do) is read with the git program: each
agent session on the branch is imported as its agent's own reader reads it,
with Entire's checkpoints, commits and token usage in its attrs.

Without PATH, import lists the archive directories it finds in their
default places (~/.claude/projects, ~/.codex/sessions, ~/.pi/agent/sessions,
the picoclaw workspace, the zot home, ~/.local/share/opencode,
~/.local/share/goose/sessions, the working directory's .crush and
.opencode, Cursor's globalStorage and workspaceStorage, ~/.cursor/projects,
and the working
directory's .git when it has Entire's branch) with their
session counts, and
imports nothing. With --detect PATH..., it prints what would be imported
from PATH, per format, and imports nothing.

Problems are what could not be carried over: damaged input (torn lines,
invalid JSON, …), unreadable files (with the cause), JSONL files of no known
format. Each is reported with file, line and reason, on every import while
it is still not imported (a torn last line stays out until it is complete);
the readable rest is imported and the exit code is 3. Notes are not problems
and leave the exit code 0: what lost nothing (zot's stub result for an
interrupted tool call, an archive that starts mid-conversation) and files
that are not session files (skipped and counted). Notes that ask you to act
(a model without a price, and the command that prices it) come first as
"to do:" and are never cut off. With --strict, the files are checked first
and nothing is imported when any problem is found (exit code 3).

On a terminal, a progress bar is drawn on stderr; otherwise only the summary
is printed. With --json the summary is one JSON object on stdout:
{"files","sessions","entries","bytes","unchanged","skipped",
"problems":[{"path","line","reason"}],"notes":[{"path","line","reason","action"}],"dry_run"}
("action": true marks a note that asks you to act; those come first).`,
		Example: `  sessionctl import                      # list the archives found on this machine
  sessionctl import --detect ~/.claude    # what would be imported, per format
  sessionctl import ~/.picoclaw/workspace/sessions
  sessionctl import ~/.local/share/opencode/opencode.db
  sessionctl import ~/src/myproject/.crush
  sessionctl import ~/src/myproject/.git    # Entire's checkpoint branch
  sessionctl import --format zot --dry-run ~/.zot
  sessionctl import --json archive/ > report.json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkFormat(c, &o.format); err != nil {
				return err
			}
			if o.jobs < 0 {
				return usageErrorf(c, "--jobs must be >= 0, got %d", o.jobs)
			}
			switch {
			case o.detect && len(args) == 0:
				return usageErrorf(c, "--detect needs a PATH; usage: %s", c.UseLine())
			case o.detect:
				return a.runDetect(args, o)
			case len(args) == 0:
				return a.runOffer(o)
			}
			return a.runImport(args, o)
		},
	}
	c.Flags().StringVarP(&o.format, "format", "f", "auto", "source format: "+orList(importFormats()))
	c.Flags().BoolVar(&o.detect, "detect", false, "print what would be imported from PATH, per format, and import nothing")
	c.Flags().BoolVarP(&o.dryRun, "dry-run", "n", false, "read and check the files, write nothing")
	c.Flags().BoolVar(&o.strict, "strict", false, "import nothing when any file has a problem")
	c.Flags().IntVarP(&o.jobs, "jobs", "j", 0, "files parsed in parallel (0: the number of CPUs)")
	c.Flags().BoolVar(&o.json, "json", false, "print the report as JSON")
	addPricesFlag(c, &o.prices)
	return c
}

// maxListedProblems caps the problems the human summary lists; --json
// lists them all.
const maxListedProblems = 20

// importReport is the --json output of import.
type importReport struct {
	Files     int                   `json:"files"`
	Sessions  int                   `json:"sessions"`
	Forks     int                   `json:"forks"`
	Entries   int                   `json:"entries"`
	Bytes     int64                 `json:"bytes"`
	Unchanged int                   `json:"unchanged"`
	Skipped   int                   `json:"skipped"`
	Problems  []jsonlimport.Problem `json:"problems"`
	Notes     []jsonlimport.Problem `json:"notes"`
	DryRun    bool                  `json:"dry_run"`
}

// checkFormat checks a --format value of import or watch ("auto" becomes
// "").
func checkFormat(c *cobra.Command, format *string) error {
	if !knownFormat(importFormats(), *format) && *format != "" {
		return usageErrorf(c, "unknown --format %q: use %s", *format, orList(importFormats()))
	}
	if *format == "auto" {
		*format = ""
	}
	return nil
}

// checkReadable fails, naming the cause, on the first path that cannot be
// read.
func checkReadable(paths []string) error {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("cannot read %s: %w", p, unwrapPathError(err))
		}
	}
	return nil
}

func (a *app) runImport(paths []string, o importOptions) error {
	if err := checkReadable(paths); err != nil {
		return err
	}
	prices, _, err := a.priceTable(o.prices)
	if err != nil {
		return err
	}
	st, done, err := a.openImport(o.dryRun)
	if err != nil {
		return err
	}
	defer done()
	machine, err := a.machineID()
	if err != nil {
		return err
	}
	maps, err := a.pathMaps()
	if err != nil {
		return err
	}
	opts := jsonlimport.Options{Format: o.format, DryRun: o.dryRun, Jobs: o.jobs, Prices: prices, Machine: machine, Map: maps}

	if o.strict && !o.dryRun {
		// Check everything first; import only input without problems.
		check := opts
		check.DryRun = true
		rep, err := jsonlimport.Import(a.ctx, st, paths, check)
		if err != nil {
			return fmt.Errorf("check input: %w", err)
		}
		if len(rep.Problems) > 0 {
			if err := a.printImportReport(rep, o, true); err != nil {
				return err
			}
			return &problemsError{problems: len(rep.Problems), strict: true}
		}
	}

	bar := a.newImportBar()
	var last jsonlimport.Progress // how far it got, for an interrupt
	opts.Progress = func(p jsonlimport.Progress) {
		last = p
		if a.progressHook != nil {
			a.progressHook(p)
		}
		if bar != nil {
			bar.update(p)
		}
	}
	var scan *importScan
	if !o.dryRun {
		if scan = startImportScan(a.ctx, st); scan != nil {
			defer scan.stop() // on an early return; after finish, nothing to stop
		}
	}
	rep, err := jsonlimport.Import(a.ctx, st, paths, opts)
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return &interruptedImport{progress: last, dryRun: o.dryRun, err: err}
		}
		return fmt.Errorf("import: %w", err)
	}
	// The rows are committed; a search would already find them (it scans
	// what is not indexed yet). Index them now, so that the import ends
	// with the database complete rather than leaving the work to the next
	// writer.
	if li, ok := st.(lazyIndexer); ok && !o.dryRun {
		if err := li.CatchUpIndex(a.ctx); err != nil {
			if errors.Is(err, context.Canceled) {
				return &interruptedImport{progress: last, indexing: true, err: err}
			}
			return fmt.Errorf("import: index the imported rows: %w", err)
		}
	}
	// The same for the secret scan (importScan).
	if scan != nil {
		if err := scan.finish(); err != nil {
			if errors.Is(err, context.Canceled) {
				return &interruptedImport{progress: last, scanning: true, err: err}
			}
			return fmt.Errorf("import: scan the imported entries for secrets: %w", err)
		}
	}
	if !o.dryRun {
		a.refreshStatistics(st, int64(rep.Entries))
	}
	if err := a.printImportReport(rep, o, o.dryRun); err != nil {
		return err
	}
	if len(rep.Problems) > 0 {
		return &problemsError{problems: len(rep.Problems)}
	}
	return nil
}

// openImport opens the database import writes, creating it when needed.
// A dry run writes nothing anywhere: it opens an existing database
// read-only (no index file, no migration), and in place of one that does
// not exist it reads against an empty database in a temporary directory,
// removed by done, so that "import --dry-run --db NEW.db" leaves no NEW.db,
// no -search file and no lock behind.
func (a *app) openImport(dryRun bool) (st sessiondb.Store, done func(), err error) {
	done = func() {}
	loc := a.dbPath()
	if !dryRun || loc == "" {
		st, err = a.open(nil)
		return st, done, err
	}
	if isServerURL(loc) {
		st, err = a.openRead(nil)
		return st, done, err
	}
	if _, serr := os.Stat(loc); serr == nil || !errors.Is(serr, os.ErrNotExist) {
		st, err = a.openRead(nil)
		return st, done, err
	}
	st, done, err = openEmpty()
	if err != nil {
		return nil, done, fmt.Errorf("dry run: %w", err)
	}
	return st, done, nil
}

// openEmpty opens an empty database in a temporary directory, for a
// command that must answer as if a database that does not exist were
// empty without creating it (import --dry-run, mcp before the first
// import); done closes it and removes the directory.
func openEmpty() (sessiondb.Store, func(), error) {
	dir, err := os.MkdirTemp("", "sessionctl-empty-")
	if err != nil {
		return nil, func() {}, err
	}
	tmp, err := sqlstore.Open(filepath.Join(dir, "empty.db"), &sqlstore.Options{Durability: sqlstore.DurabilityNormal})
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, func() {}, fmt.Errorf("open an empty database: %w", err)
	}
	return tmp, func() {
		_ = tmp.Close()
		_ = os.RemoveAll(dir)
	}, nil
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func (a *app) printImportReport(rep jsonlimport.Report, o importOptions, dryRun bool) error {
	if o.json {
		problems, notes := rep.Problems, rep.Notes
		if problems == nil {
			problems = []jsonlimport.Problem{}
		}
		if notes == nil {
			notes = []jsonlimport.Problem{}
		}
		return writeJSON(a.stdout, importReport{
			Files:     rep.Files,
			Sessions:  rep.Sessions,
			Forks:     rep.Forks,
			Entries:   rep.Entries,
			Bytes:     rep.Bytes,
			Unchanged: rep.Unchanged,
			Skipped:   rep.Skipped,
			Problems:  problems,
			Notes:     notes,
			DryRun:    dryRun,
		})
	}
	verb := "imported"
	if dryRun {
		verb = "dry run: would import"
	}
	forks := ""
	if rep.Forks > 0 {
		forks = fmt.Sprintf(" (and %d branch forks)", rep.Forks)
	}
	fmt.Fprintf(a.stdout, "%s %d files: %d sessions%s, %d entries, %s; %d unchanged files skipped; %d other files skipped; %d problems; %d notes\n",
		verb, rep.Files, rep.Sessions, forks, rep.Entries, humanBytes(rep.Bytes), rep.Unchanged, rep.Skipped, len(rep.Problems), len(rep.Notes))
	if rep.Gone > 0 {
		fmt.Fprintf(a.stdout, "  kept: %d session(s) whose source is gone stay whole in sessiondb, marked (sessionctl list --archived)\n", rep.Gone)
	}
	for i, p := range rep.Problems {
		if i == maxListedProblems && len(rep.Problems) > maxListedProblems+1 {
			fmt.Fprintf(a.stdout, "  … and %d more (use --json to list them all)\n", len(rep.Problems)-i)
			break
		}
		fmt.Fprintf(a.stdout, "  %s\n", oneLine(p.String()))
	}
	// Notes that ask the user to act (a model without a price) come first
	// and are all listed; the cap applies to the others.
	var others []jsonlimport.Problem
	for _, p := range rep.Notes {
		if p.Action {
			fmt.Fprintf(a.stdout, "  to do: %s\n", oneLine(p.String()))
		} else {
			others = append(others, p)
		}
	}
	for i, p := range others {
		if i == maxListedProblems && len(others) > maxListedProblems+1 {
			fmt.Fprintf(a.stdout, "  … and %d more notes (use --json to list them all)\n", len(others)-i)
			break
		}
		fmt.Fprintf(a.stdout, "  note: %s\n", oneLine(p.String()))
	}
	return nil
}

// importBar draws import progress on a terminal stderr.
type importBar struct {
	mu  sync.Mutex
	bar *progressbar.ProgressBar
}

// newImportBar returns nil when stderr is not a terminal: pipes and log
// files get the summary only, not a stream of carriage returns.
func (a *app) newImportBar() *importBar {
	if !a.stderrTTY {
		return nil
	}
	return &importBar{bar: progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(a.stderr),
		progressbar.OptionSetDescription("importing"),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100*time.Millisecond),
	)}
}

// update is the importer's Progress callback; the importer may call it
// from several goroutines.
func (b *importBar) update(p jsonlimport.Progress) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if p.BytesTotal > 0 && b.bar.GetMax64() != p.BytesTotal {
		b.bar.ChangeMax64(p.BytesTotal)
	}
	b.bar.Describe(fmt.Sprintf("importing %d/%d files, %d sessions", p.FilesDone, p.FilesTotal, p.Sessions))
	_ = b.bar.Set64(p.BytesDone)
}

func (b *importBar) finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	_ = b.bar.Finish()
	_ = b.bar.Clear()
}
