package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
)

// app is the state one invocation of sessionctl shares between its
// commands: the streams, the resolved database path and the store, opened
// lazily by the commands that need it and closed by run.
type app struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string

	// stdinTTY and stderrTTY say whether the streams are terminals: delete
	// prompts only on a terminal stdin, and the import progress bar is drawn
	// only on a terminal stderr.
	stdinTTY  bool
	stderrTTY bool
	// stdoutTTY: stdout is a terminal (search marks matches in bold only
	// there); width is its width in columns, 0 when it is not a terminal
	// (tables are then printed whole, see table.go).
	stdoutTTY bool
	width     int

	dbFlag string // --db as given ("" when absent)
	// machineFlag is --machine as given ("" when absent): the machine
	// identity importers record (machine.go), and the machine list,
	// search and usage keep.
	machineFlag string
	// mapFlags are the --map FROM=TO values as given (projectmap.go).
	mapFlags []string

	// progressHook, when set (by tests), sees every import progress
	// report, as the progress bar does.
	progressHook func(jsonlimport.Progress)

	// cmd is the command being run, set once cobra has parsed the command
	// line and validated the arguments. An error returned while it is still
	// nil came from cobra itself (unknown command or flag, wrong number of
	// arguments) and is a usage error.
	cmd *cobra.Command

	// store is the open database, a sqliteBackend or a pgBackend (see
	// backend.go): commands use it as a sessiondb.Store and ask for the
	// rest through backend.go's interfaces.
	store sessiondb.Store
	// storeReadFile says that store is a database file opened read-only
	// (modeRead): it writes nothing, holds no write lock and runs no
	// background work.
	storeReadFile bool
	// exitAfter says that the process exits once run returns (main sets
	// it; tests that call run many times in one process do not). A
	// read-only database file is then left to the exit, which releases
	// its locks as Close would: closing it frees SQLite's page cache one
	// 8 KiB page at a time, each page returned to the system with its own
	// madvise call (modernc.org/memory), 13 ms of a cold search of 4.7
	// million messages whose answer took 150 (issue 42). Everything else
	// (a writable file, a server connection) is closed as before.
	exitAfter bool
}

// run executes sessionctl with args (without the program name) and returns
// the process exit code: 0 success, 1 error, 2 usage error, 3 import finished
// with problems. Errors are printed to stderr as one line.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newApp(ctx, stdin, stdout, stderr).run(args)
}

// newApp returns the app that runs one command line.
func newApp(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{
		ctx:       ctx,
		stdin:     stdin,
		stdout:    stdout,
		stderr:    stderr,
		getenv:    os.Getenv,
		stdinTTY:  isTerminal(stdin),
		stderrTTY: isTerminal(stderr),
		stdoutTTY: isTerminal(stdout),
		width:     terminalWidth(stdout),
	}
}

func (a *app) run(args []string) (code int) {
	// A bug must still end in one line, not a stack dump over the user's
	// terminal.
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(a.stderr, "sessionctl: internal error: %v (please report this with the command line)\n", v)
			code = exitError
			if a.store != nil {
				_ = a.store.Close()
				a.store = nil
			}
		}
	}()
	root := a.rootCommand()
	root.SetArgs(args)
	err := root.ExecuteContext(a.ctx)
	if a.store != nil && !(a.exitAfter && a.storeReadFile) {
		if cerr := a.store.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close %s: %w", displayLocation(a.dbPath()), cerr)
		}
		a.store = nil
	}
	if err == nil {
		return exitOK
	}
	if a.cmd == nil {
		err = asUsageError(root, err)
	}
	return a.report(err)
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "sessionctl",
		Short: "Inspect and maintain a sessiondb database of AI-agent sessions",
		Long: `sessionctl imports agent session archives (picoclaw, zot, swink, Claude Code,
Codex CLI, pi, Gemini CLI, Qwen Code, GitHub Copilot CLI, opencode, crush, the Go opencode, goose, Cursor and its agent's transcripts, Cline and Roo Code, aider) into a sessiondb database, shows and exports sessions, runs read-only SQL and
maintains the database file.

The database is --db, else $SESSIONDB_PATH, else $SESSIONDB_URL, else
$XDG_DATA_HOME/sessiondb/sessions.db, else ~/.local/share/sessiondb/sessions.db.
Each may be a file path or a PostgreSQL URL (postgres://user@host/db):
every command works on either; SQLite-only maintenance says what the
server does instead.

Exit codes: 0 success, 1 error, 2 usage error, 3 import finished with problems.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			a.cmd = cmd
			return nil
		},
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.PersistentFlags().StringVar(&a.dbFlag, "db", "", "database file or postgres:// URL (default $SESSIONDB_PATH, else $SESSIONDB_URL, else $XDG_DATA_HOME/sessiondb/sessions.db)")
	root.PersistentFlags().StringArrayVar(&a.mapFlags, "map", nil, "FROM=TO: record the project (working directory) FROM/... of the sessions import and watch write as TO/..., and read list --project that way (repeatable; longest FROM wins; also the lines of ~/.config/sessiondb/map)")
	root.PersistentFlags().StringVar(&a.machineFlag, "machine", "", "this machine's identity for import and watch (default $SESSIONDB_MACHINE, else the name kept in ~/.config/sessiondb/machine); for list, search and usage: only that machine's sessions")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{cmd: c, err: err}
	})

	root.AddCommand(
		a.importCommand(),
		a.listCommand(),
		a.showCommand(),
		a.exportCommand(),
		a.searchCommand(),
		a.sqlCommand(),
		a.statsCommand(),
		a.usageCommand(),
		a.repriceCommand(),
		a.compactCommand(),
		a.truncateCommand(),
		a.pruneCommand(),
		a.secretsCommand(),
		a.scrubCommand(),
		a.vacuumCommand(),
		a.reindexCommand(),
		a.forkCommand(),
		a.handoffCommand(),
		a.checkpointCommand(),
		a.renameCommand(),
		a.deleteCommand(),
		a.copyCommand(),
		a.migrateCommand(),
		a.doctorCommand(),
		a.serveCommand(),
		a.watchCommand(),
		a.mcpCommand(),
		a.completionCommand(),
		a.versionCommand(),
	)
	return root
}

// dbPath resolves the database: --db, else $SESSIONDB_PATH, else
// $SESSIONDB_URL (each a file path or a postgres:// URL), else
// $XDG_DATA_HOME/sessiondb/sessions.db (an absolute XDG_DATA_HOME only, as
// the XDG spec says), else ~/.local/share/sessiondb/sessions.db. It returns
// "" when not even a home directory is known.
func (a *app) dbPath() string {
	if a.dbFlag != "" {
		return a.dbFlag
	}
	if p := a.getenv("SESSIONDB_PATH"); p != "" {
		return p
	}
	if u := a.getenv("SESSIONDB_URL"); u != "" {
		return u
	}
	if d := a.getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "sessiondb", "sessions.db")
	}
	home := a.getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "share", "sessiondb", "sessions.db")
}

// open opens the database, creating it (and, for a file, its directory,
// mode 0700: the transcripts are private) when it does not exist. The
// store is closed by run. opts may be nil.
func (a *app) open(o *openOptions) (sessiondb.Store, error) {
	return a.openMode(modeCreate, o)
}

// openExisting opens the database like open but fails, without creating
// anything, when the file does not exist (for commands that inspect or
// maintain a database rather than use one).
func (a *app) openExisting(o *openOptions) (sessiondb.Store, error) {
	return a.openMode(modeExisting, o)
}

// openRead opens the database for a command that only looks at it (list,
// show, search, sql, stats, export, doctor, completion): nothing is created,
// migrated or changed. A missing database, someone else's SQLite file and
// a database that needs `sessionctl migrate` are refused with a message
// that says so.
func (a *app) openRead(o *openOptions) (sessiondb.Store, error) {
	return a.openMode(modeRead, o)
}

func (a *app) openMode(mode openMode, opts *openOptions) (sessiondb.Store, error) {
	if a.store != nil {
		return a.store, nil
	}
	var o openOptions
	if opts != nil {
		o = *opts
	}
	loc := a.dbPath()
	if loc == "" {
		return nil, errors.New("no database path: pass --db or set SESSIONDB_PATH")
	}
	st, err := openBackend(a.ctx, loc, mode, o)
	if err != nil {
		return nil, err
	}
	if im, ok := st.(immutableOpener); ok && im.Immutable() {
		fmt.Fprintf(a.stderr, "sessionctl: %s is on storage that cannot be written: opened read-only as immutable (changes made to it meanwhile are not seen)\n", displayLocation(loc))
	}
	a.store = st
	a.storeReadFile = mode == modeRead && !isServerURL(loc)
	return st, nil
}
