package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/pgstore"
)

// Exit codes. Scripts rely on them; they never change meaning.
const (
	exitOK       = 0 // success
	exitError    = 1 // the command failed (unknown session, I/O, corrupt database, …)
	exitUsage    = 2 // bad flags or arguments: nothing was done
	exitProblems = 3 // import finished, but some input could not be read
)

// usageError is a command line that cannot be run: unknown command or
// flag, wrong number of arguments, conflicting flags. Nothing was done.
type usageError struct {
	cmd *cobra.Command // the command whose usage was wrong (nil: the root)
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(cmd *cobra.Command, format string, args ...any) error {
	return &usageError{cmd: cmd, err: fmt.Errorf(format, args...)}
}

// asUsageError marks an error cobra returned before any command ran.
func asUsageError(root *cobra.Command, err error) error {
	var ue *usageError
	if errors.As(err, &ue) {
		return err
	}
	return &usageError{cmd: root, err: err}
}

// problemsError reports an import that completed but found defects in its
// input; the problems themselves were printed with the summary.
type problemsError struct {
	problems int
	strict   bool
}

func (e *problemsError) Error() string {
	if e.strict {
		return fmt.Sprintf("--strict: found %d problem(s) in the input, imported nothing (fix the files, or import without --strict to keep what is readable)", e.problems)
	}
	return fmt.Sprintf("import finished with %d problem(s) (listed in the report; the readable rest was imported)", e.problems)
}

// interruptedImport is an import stopped by a signal: it says how far it
// got, and that running it again continues (files imported whole are
// found unchanged and skipped, a file that grew is continued).
type interruptedImport struct {
	progress jsonlimport.Progress
	dryRun   bool
	// indexing: the import itself was done, the search index was being
	// brought up to date.
	indexing bool
	// scanning: imported and indexed, the secret scan of the imported
	// entries was being finished.
	scanning bool
	err      error
}

func (e *interruptedImport) Error() string {
	p := e.progress
	if e.indexing {
		return fmt.Sprintf("interrupted while indexing: all %d files were imported (%d sessions written); search finds the rest meanwhile by scanning, and the next import or 'sessionctl reindex' completes the index",
			p.FilesTotal, p.Sessions)
	}
	if e.scanning {
		return fmt.Sprintf("interrupted while scanning for secrets: all %d files were imported (%d sessions written) and indexed; reads mask secrets in what they read meanwhile, and the next import or a watch completes the scan",
			p.FilesTotal, p.Sessions)
	}
	if e.dryRun {
		return fmt.Sprintf("interrupted after %d of %d files; dry run: nothing was written", p.FilesDone, p.FilesTotal)
	}
	return fmt.Sprintf("interrupted after %d of %d files (%d sessions written): what was committed before the signal is kept, nothing is half-written; run the same import again to continue (what is already imported is skipped)",
		p.FilesDone, p.FilesTotal, p.Sessions)
}

func (e *interruptedImport) Unwrap() error { return e.err }

// notFoundError names a session or checkpoint that does not exist, with
// the command that lists what does.
type notFoundError struct {
	what string // "session", "checkpoint"
	id   string
	hint string
}

func (e *notFoundError) Error() string {
	return fmt.Sprintf("no %s %q (%s)", e.what, e.id, e.hint)
}
func (e *notFoundError) Unwrap() error { return sessiondb.ErrNotFound }

// hintFor returns what a person can do about err ("" when the message says
// it all). loc is the database the error is about, as given (hintFor
// prints it redacted).
func hintFor(err error, loc string) string {
	shown := displayLocation(loc)
	switch {
	case errors.Is(err, sessiondb.ErrSchemaTooOld):
		return fmt.Sprintf("run 'sessionctl migrate up --db %s' (it takes a backup first)", shown)
	case errors.Is(err, sessiondb.ErrSchemaTooNew):
		return "upgrade sessionctl to the version that wrote this database"
	case errors.Is(err, sessiondb.ErrCorrupt):
		return fmt.Sprintf("run 'sessionctl doctor --db %s' and restore from a backup", shown)
	case errors.Is(err, sessiondb.ErrReadOnly):
		if isServerURL(loc) {
			return fmt.Sprintf("the role of %s may not write there: GRANT it SELECT, INSERT, UPDATE and DELETE on the sessiondb tables of its schema (and USAGE on their sequences), or check that the database is not read-only (default_transaction_read_only, a standby)", shown)
		}
		return fmt.Sprintf("check the permissions of %s and its directory", shown)
	case errors.Is(err, sessiondb.ErrBusy):
		if isServerURL(loc) {
			return "the server did not answer in time (down, restarting, or overloaded); retry"
		}
		return "another process holds the write lock; retry when it is done"
	case errors.Is(err, sessiondb.ErrFull):
		return "free disk space and retry; nothing of the failed write was kept"
	case errors.Is(err, sessiondb.ErrConflict):
		return "the session changed meanwhile; retry"
	case errors.Is(err, sessiondb.ErrExists):
		return "choose another ID"
	}
	return ""
}

// displayLocation is how a database location is printed: a file path as
// it is, a server URL with its passwords hidden. Every message that names
// a database given by the user goes through it.
func displayLocation(loc string) string {
	if isServerURL(loc) {
		return pgstore.RedactURL(loc)
	}
	return loc
}

// openError is a failure to open the database at loc: the hint of a
// command that opens more than one database (copy) names the one that
// failed.
type openError struct {
	loc string
	err error
}

func (e *openError) Error() string { return e.err.Error() }
func (e *openError) Unwrap() error { return e.err }

// errLocation returns the database err is about: the one that failed to
// open, else the target of a copy (the only database copy writes), else
// the command's database.
func (a *app) errLocation(err error) string {
	var oe *openError
	if errors.As(err, &oe) {
		return oe.loc
	}
	if a.cmd != nil && a.cmd.Name() == "copy" {
		if to, ferr := a.cmd.Flags().GetString("to"); ferr == nil && to != "" {
			return to
		}
	}
	return a.dbPath()
}

// report prints err as one line on stderr and returns its exit code.
func (a *app) report(err error) int {
	code := exitError
	prefix := "sessionctl"
	if a.cmd != nil {
		prefix = a.cmd.CommandPath()
	}
	msg := err.Error()

	var ue *usageError
	var pe *problemsError
	var nf *notFoundError
	switch {
	case errors.As(err, &ue):
		code = exitUsage
		c := ue.cmd
		if c == nil {
			c = a.cmd
		}
		help := "sessionctl --help"
		if c != nil {
			prefix = c.CommandPath()
			help = c.CommandPath() + " --help"
		}
		// cobra's suggestions for a mistyped command are a list, one per
		// line under "Did you mean this?": print them as such, and the
		// help to run after them, as cobra itself would.
		if head, list, ok := strings.Cut(msg, "\n\nDid you mean this?\n"); ok {
			fmt.Fprintf(a.stderr, "%s: %s\n\nDid you mean this?\n", prefix, oneLine(head))
			for _, l := range strings.Split(list, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					fmt.Fprintf(a.stderr, "\t%s\n", visible(l))
				}
			}
			fmt.Fprintf(a.stderr, "\nRun '%s' for usage.\n", help)
			return code
		}
		msg += fmt.Sprintf(" (see '%s')", help)
	case errors.As(err, &pe):
		code = exitProblems
	case errors.As(err, new(*interruptedImport)):
		// The message says how far it got and what to do.
	case errors.Is(err, context.Canceled):
		msg = "interrupted; what was committed before the signal is kept"
	case errors.As(err, &nf):
		// The message carries its own hint.
	default:
		if h := hintFor(err, a.errLocation(err)); h != "" {
			msg += "; " + h
		}
	}
	fmt.Fprintf(a.stderr, "%s: %s\n", prefix, oneLine(msg))
	return code
}

// oneLine folds a multi-line message into one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return visible(strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }), "; "))
}

// Argument validators that report a usage error naming the command.

func exactArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf(c, "expected %d argument(s), got %d; usage: %s", n, len(args), c.UseLine())
		}
		return nil
	}
}

func minArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < n {
			return usageErrorf(c, "expected at least %d argument(s), got %d; usage: %s", n, len(args), c.UseLine())
		}
		return nil
	}
}

func rangeArgs(lo, hi int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < lo || len(args) > hi {
			return usageErrorf(c, "expected %d to %d argument(s), got %d; usage: %s", lo, hi, len(args), c.UseLine())
		}
		return nil
	}
}

func noArgs(c *cobra.Command, args []string) error {
	if len(args) != 0 {
		return usageErrorf(c, "unexpected argument %q; usage: %s", args[0], c.UseLine())
	}
	return nil
}

// needSubcommand is the RunE of a command that only groups subcommands.
func needSubcommand(c *cobra.Command, args []string) error {
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	if len(args) == 0 {
		return usageErrorf(c, "missing subcommand: one of %s", strings.Join(names, ", "))
	}
	return usageErrorf(c, "unknown subcommand %q: one of %s", args[0], strings.Join(names, ", "))
}
