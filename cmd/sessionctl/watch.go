package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/watch"
)

type watchOptions struct {
	format       string
	poll         bool
	pollInterval time.Duration
	json         bool
	verbose      bool
	jobs         int
}

func (o *watchOptions) addFlags(c *cobra.Command, prefix string) {
	c.Flags().BoolVar(&o.poll, prefix+"poll", false, "poll every directory instead of using file-system events (for network shares that are not recognised)")
	c.Flags().DurationVar(&o.pollInterval, prefix+"poll-interval", 2*time.Second, "shortest time between two polls of polled directories")
}

func (a *app) watchCommand() *cobra.Command {
	var o watchOptions
	c := &cobra.Command{
		Use:   "watch [PATH...]",
		Short: "Keep the database in step with the agents' session files as they are written",
		Long: `Watch imports what is new under PATH (files and directory trees), then follows
the files until Ctrl-C (SIGINT) or SIGTERM: lines appended to known files
(imported from the byte offset already recorded, one transaction per file
per burst of writes), new files and folders, files rewritten, truncated or
replaced (re-imported by the importer's rules for a changed source), and
deleted files (their sessions are kept). Every format that import reads.

Without PATH it follows the default archive places that import lists
(~/.claude/projects, ~/.codex/sessions, ~/.pi/agent/sessions, the picoclaw
workspace, the zot home, ~/.local/share/opencode), including those that do
not exist yet: they are followed from when they appear. An agent's SQLite
store (opencode.db) is read from a copy taken aside, brought up to date at
each write by the transactions its -wal committed since; a session's turn
still being written is imported once it ends.

A last line without a newline is a line still being written: it is neither
imported nor reported until the file has been quiet for 10 s; then it is
reported as torn. Directories are watched with file-system events; those on
network file systems (NFS, SMB, FUSE, 9p, …), and all of them once the
inotify watch limit is reached, are polled instead, which is said once.

It stops between transactions. Killed, it leaves whole transactions only,
and the next start resumes where the database says. Stopped (SIGTERM,
Ctrl-C), it writes what it knows of the Claude Code transcripts it follows
into <database>-watch beside a SQLite database, so that the next start
continues a large transcript that grew from there instead of reading it
again. Several watchers (and
imports) may write one database, also a PostgreSQL one (--db postgres://…)
shared by several machines.

The log is quiet: new sessions, deleted files, problems, and a summary of
appended entries at most once a minute (--verbose: every file). With --json,
stdout gets one JSON object per line: {"time","event":"import","path",
"format","session","new","entries","problems","notes"} per file imported in
a burst (also for each file the catch-up import at the start changed, with
"catch_up":true, before the "catch-up" totals), and "watching", "catch-up",
"deleted", "torn", "problem", "fallback", "error" and "stopped" events.`,
		Example: `  sessionctl watch                          # the default archive places
  sessionctl watch ~/.claude/projects ~/.codex/sessions
  sessionctl watch --json | jq -c 'select(.event=="import")'
  sessionctl --db postgres://app@db.internal/agents watch
  sessionctl watch --poll /mnt/nfs/agents   # a share whose file system sends no events`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.check(c); err != nil {
				return err
			}
			if err := checkReadable(args); err != nil {
				return err
			}
			st, err := a.open(nil)
			if err != nil {
				return err
			}
			return a.runWatch(a.ctx, st, args, o, a.stdout)
		},
	}
	c.Flags().StringVarP(&o.format, "format", "f", "auto", "source format: "+orList(importFormats()))
	o.addFlags(c, "")
	c.Flags().BoolVar(&o.json, "json", false, "print one JSON object per event on stdout")
	c.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "log every file imported, not a summary a minute")
	c.Flags().IntVarP(&o.jobs, "jobs", "j", 0, "files parsed in parallel by the catch-up imports (0: the number of CPUs)")
	return c
}

func (o *watchOptions) check(c *cobra.Command) error {
	if err := checkFormat(c, &o.format); err != nil {
		return err
	}
	if o.pollInterval <= 0 {
		return usageErrorf(c, "--poll-interval must be positive, got %s", o.pollInterval)
	}
	if o.jobs < 0 {
		return usageErrorf(c, "--jobs must be >= 0, got %d", o.jobs)
	}
	return nil
}

// watchPaths returns paths, or without any the default archive places
// (whether or not they exist yet: the watcher waits for them).
func (a *app) watchPaths(paths []string) []string {
	if len(paths) > 0 {
		return paths
	}
	home := a.getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	var out []string
	for _, loc := range jsonlimport.WellKnownLocations(home, a.getenv) {
		out = append(out, loc.Path)
	}
	return out
}

// runWatch follows paths into st until ctx ends, logging to out.
func (a *app) runWatch(ctx context.Context, st sessiondb.Store, paths []string, o watchOptions, out io.Writer) error {
	paths = a.watchPaths(paths)
	if len(paths) == 0 {
		return fmt.Errorf("no path to watch and no home directory to find the default places in: give a PATH")
	}
	machine, err := a.machineID()
	if err != nil {
		return err
	}
	maps, err := a.pathMaps()
	if err != nil {
		return err
	}
	lg := &watchLog{w: out, json: o.json, verbose: o.verbose, db: location(st)}
	stateDir := ""
	if p, ok := st.(interface{ Path() string }); ok {
		// Beside a SQLite database: the parse states of large
		// transcripts, kept from one run to the next (watch.Options).
		stateDir = p.Path() + "-watch"
	}
	err = watch.Run(ctx, st, watch.Options{
		StateDir:     stateDir,
		Paths:        paths,
		Format:       o.format,
		Machine:      machine,
		Map:          maps,
		Poll:         o.poll,
		PollInterval: o.pollInterval,
		Jobs:         o.jobs,
		Events:       lg.event,
	})
	lg.stop()
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	return nil
}

// serveWatch starts a watcher beside `serve --watch` and returns the
// function that stops it (and waits for its current transaction).
func (a *app) serveWatch(st sessiondb.Store, paths []string, o watchOptions) func() {
	ctx, cancel := context.WithCancel(a.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := a.runWatch(ctx, st, paths, o, a.stdout); err != nil {
			fmt.Fprintf(a.stderr, "sessionctl: %s\n", oneLine(err.Error()))
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// watchLog prints the watcher's events: JSON lines, or a quiet log for
// people. Printed data (paths, IDs, problem text) is made visible.
type watchLog struct {
	w       io.Writer
	json    bool
	verbose bool
	db      string

	mu       sync.Mutex
	entries  int             // appended since the last summary
	sessions map[string]bool // sessions appended to since the last summary
	since    time.Time
	timer    *time.Timer
}

// summaryEvery is how often appends are summarised in the quiet log.
const summaryEvery = time.Minute

// jsonProblems keeps problems and notes present as [] in JSON.
func jsonProblems(ps []jsonlimport.Problem) *[]jsonlimport.Problem {
	if ps == nil {
		ps = []jsonlimport.Problem{}
	}
	return &ps
}

// watchEventJSON is one --json line.
type watchEventJSON struct {
	Time     string                 `json:"time"`
	Event    string                 `json:"event"`
	Path     string                 `json:"path,omitempty"`
	Format   string                 `json:"format,omitempty"`
	Session  *string                `json:"session,omitempty"`
	New      *bool                  `json:"new,omitempty"`
	CatchUp  bool                   `json:"catch_up,omitempty"`
	Entries  *int                   `json:"entries,omitempty"`
	Message  string                 `json:"message,omitempty"`
	Roots    []string               `json:"roots,omitempty"`
	Dirs     *int                   `json:"directories,omitempty"`
	Polled   *int                   `json:"polled,omitempty"`
	Mode     string                 `json:"mode,omitempty"`
	Report   *importReport          `json:"report,omitempty"`
	Problems *[]jsonlimport.Problem `json:"problems,omitempty"`
	Notes    *[]jsonlimport.Problem `json:"notes,omitempty"`
}

func (l *watchLog) event(e watch.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.json {
		l.writeJSON(e)
		return
	}
	l.writeHuman(e)
}

func (l *watchLog) writeJSON(e watch.Event) {
	j := watchEventJSON{Time: jsonTime(e.Time), Event: e.Kind, Path: e.Path, Format: e.Format, Message: e.Message}
	switch e.Kind {
	case watch.EventImport:
		j.Session, j.New, j.Entries, j.CatchUp = &e.Session, &e.New, &e.Entries, e.CatchUp
		j.Problems, j.Notes = jsonProblems(e.Problems), jsonProblems(e.Notes)
	case watch.EventDeleted:
		j.Session = &e.Session
		j.Notes = jsonProblems(e.Notes)
	case watch.EventTorn, watch.EventProblem:
		j.Problems, j.Notes = jsonProblems(e.Problems), jsonProblems(e.Notes)
	case watch.EventWatching:
		j.Roots, j.Dirs, j.Polled, j.Mode = e.Roots, &e.Dirs, &e.Polled, e.Mode
	case watch.EventCatchUp:
		r := e.Report
		j.Report = &importReport{Files: r.Files, Sessions: r.Sessions, Forks: r.Forks, Entries: r.Entries,
			Bytes: r.Bytes, Unchanged: r.Unchanged, Skipped: r.Skipped,
			Problems: *jsonProblems(r.Problems), Notes: *jsonProblems(r.Notes)}
	}
	b, err := json.Marshal(j)
	if err != nil {
		return
	}
	b = append(b, '\n')
	_, _ = l.w.Write(b)
}

func (l *watchLog) line(format string, args ...any) {
	fmt.Fprintf(l.w, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func (l *watchLog) problems(ps []jsonlimport.Problem, prefix string) {
	for i, p := range ps {
		if i == maxListedProblems && len(ps) > maxListedProblems+1 {
			l.line("  … and %d more (use --json to list them all)", len(ps)-i)
			return
		}
		l.line("  %s%s", prefix, oneLine(p.String()))
	}
}

func (l *watchLog) writeHuman(e watch.Event) {
	switch e.Kind {
	case watch.EventWatching:
		l.line("watching %d paths (%d directories, %s) into %s", len(e.Roots), e.Dirs, e.Mode, visible(l.db))
		for _, r := range e.Roots {
			if _, err := os.Stat(r); err != nil {
				l.line("  %s does not exist yet: followed when it appears", oneLine(r))
			}
		}
	case watch.EventCatchUp:
		r := e.Report
		l.line("caught up: %d files, %d sessions, %d entries imported; %d unchanged; %d problems", r.Files, r.Sessions, r.Entries, r.Unchanged, len(r.Problems))
		l.problems(r.Problems, "")
		if l.verbose {
			l.problems(r.Notes, "note: ")
		}
	case watch.EventImport:
		switch {
		case e.CatchUp && !l.verbose:
			return // the catch-up line sums them up, with its problems
		case e.New:
			l.line("new %s session %s: %d entries from %s", e.Format, oneLine(e.Session), e.Entries, oneLine(e.Path))
		case l.verbose:
			l.line("+%d entries in %s (%s)", e.Entries, oneLine(e.Session), oneLine(e.Path))
		case e.Entries > 0:
			l.count(e)
		}
		l.problems(e.Problems, "")
		if l.verbose {
			l.problems(e.Notes, "note: ")
		}
	case watch.EventDeleted:
		l.line("deleted %s: session %s kept", oneLine(e.Path), oneLine(e.Session))
	case watch.EventTorn:
		l.problems(e.Problems, "")
	case watch.EventProblem:
		l.problems(e.Problems, "")
		if l.verbose {
			l.problems(e.Notes, "note: ")
		}
	case watch.EventFallback:
		l.line("note: %s", oneLine(e.Message))
	case watch.EventError:
		if e.Path != "" {
			l.line("error: %s: %s", oneLine(e.Path), oneLine(e.Message))
		} else {
			l.line("error: %s", oneLine(e.Message))
		}
	case watch.EventStopped:
		l.flushLocked()
		l.line("stopped")
	}
}

// count adds an append to the next summary, which is printed a minute
// after the first append it counts (no timer runs while nothing happens).
func (l *watchLog) count(e watch.Event) {
	if l.sessions == nil {
		l.sessions = map[string]bool{}
	}
	if l.entries == 0 {
		l.since = time.Now()
		l.timer = time.AfterFunc(summaryEvery, func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.flushLocked()
		})
	}
	l.entries += e.Entries
	l.sessions[e.Session] = true
}

func (l *watchLog) flushLocked() {
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	if l.entries == 0 {
		return
	}
	names := make([]string, 0, len(l.sessions))
	for s := range l.sessions {
		names = append(names, s)
	}
	list := ""
	if len(names) <= 3 {
		list = " (" + oneLine(strings.Join(names, ", ")) + ")"
	}
	l.line("appended %d entries to %d sessions since %s%s", l.entries, len(names), l.since.Format("15:04:05"), list)
	l.entries, l.sessions = 0, nil
}

// stop prints what is still counted.
func (l *watchLog) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.json {
		l.flushLocked()
	}
}
