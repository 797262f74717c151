package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/sessioncopy"
)

type copyOptions struct {
	from, to        string
	json            bool
	renameConflicts bool
	jobs            int
}

// Copy moves several sessions at once (--jobs): a server-side target does
// most of a copy's work in its own process (PostgreSQL's trigram index
// alone is most of it), one backend per connection, so one session at a
// time leaves a core idle while the client reads and encodes the next.
// Each session is still written in its own transaction, so a killed copy
// leaves whole sessions only; the totals and the lists of the report are
// in the order of the source's listing, whatever order the jobs finish
// in. What is held in memory is bounded by copyRowBudget, not only by the
// number of jobs: each session in flight holds its whole log.
const (
	// defaultCopyJobs is --jobs' default. Measured on 2 cores with a local
	// PostgreSQL 15 (BENCHMARKS.md, "sessionctl copy --jobs"): 127,548
	// entries took 44-56 s with one job, 27-35 s with two to four, 50 s
	// with eight (the server's backends then contend).
	defaultCopyJobs = 3
	// copyRowBudget bounds the log rows (counted by LastSeq, which no
	// session's rows exceed) of the sessions read and not yet written; a
	// larger session waits for the others and is copied alone.
	copyRowBudget = 100_000
)

// copyTotals is what copy did; --json prints it.
type copyTotals struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Sessions is the number of sessions in the source.
	Sessions int64 `json:"sessions"`
	// Copied were written to the target (new or changed since the last
	// copy); Unchanged were already there as an earlier copy with the same
	// Sequence and LastSeq; Diverged are earlier copies written in the
	// target since (its counters are ahead) and were left alone.
	Copied    int64    `json:"copied"`
	Unchanged int64    `json:"unchanged"`
	Diverged  []string `json:"diverged"`
	// Conflicts are sessions whose ID the target gives to a different
	// session (another creation time or source, or a log that is not the
	// source's): left alone, unless --rename-conflicts copied them under
	// a new ID (Renamed).
	Conflicts []string      `json:"conflicts"`
	Renamed   []copyRenamed `json:"renamed"`
	// Skipped are sessions the target refused (ErrInvalid, ErrExists):
	// the copy went on with the next one.
	Skipped []copySkipped `json:"skipped"`
	// What the copied sessions held.
	Entries     int64 `json:"entries"`
	Compactions int64 `json:"compactions"`
	Checkpoints int64 `json:"checkpoints"`
	UsageRows   int64 `json:"usage_rows"`
	Sources     int64 `json:"source_files"`
	Bytes       int64 `json:"body_bytes"`
}

// copyRenamed is a conflicting session copied under a new ID.
type copyRenamed struct {
	ID string `json:"id"`
	As string `json:"as"`
	// LeftOut is what the renamed copy does not carry (aliases and import
	// records, which belong to the target's session of that name).
	LeftOut []string `json:"left_out"`
}

// copySkipped is a session the target could not take.
type copySkipped struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

func (a *app) copyCommand() *cobra.Command {
	var o copyOptions
	c := &cobra.Command{
		Use:   "copy --from DB --to DB",
		Short: "Copy every session between two databases (SQLite files or PostgreSQL URLs)",
		Long: `Copy moves every session of --from into --to with everything stored with
it: the log with its seqs and times (superseded rows included), compactions
and their summary messages, state, interrupt, agent checkpoints, usage
rows, import records, aliases, fork links, Sequence and LastSeq. Either
side may be a SQLite file or a postgres:// URL; the target is created (and
migrated) when needed, the source is only read.

The target is meant to be a copy of the source: a new database, or one
that earlier runs of copy from the same source filled (a backup, or the
server a machine moves its sessions to). A session already in the target
counts as an earlier copy only if it was created at the same time from the
same source file and its log is the start of the source's, entry for
entry, byte for byte. Then an earlier copy with the source's Sequence and
LastSeq is left as it is, one the source has moved past is replaced, and
one written in the target since (its counters ahead) is left alone and
reported as diverged. Any other session under the same ID (two machines'
picoclaw "agent:main:cli:direct:alice", say) is a conflict: it is left
alone and reported, or with --rename-conflicts the source's session is
copied beside it under its ID plus "~" and a hash of its identity (the
same on every run), without its aliases and import records, which belong
to the target's session. A session the target cannot take is skipped and
reported, and the copy goes on. Diverged, conflicting (not renamed) and
skipped sessions make the exit code 1.

Each session is written in its own transaction on the target, so a copy
that is killed leaves whole sessions only, and running it again copies
only what is missing or changed. Sessions deleted from the source are not
deleted from the target. --jobs sessions are copied at once (3 by default;
a server does most of a copy's work, and one session at a time leaves its
cores idle), fewer while large sessions are in flight: the report lists
sessions in the source's order whatever the order they finish in.`,
		Example: `  sessionctl copy --from ~/.local/share/sessiondb/sessions.db --to postgres://me@db/sessions
  sessionctl copy --from postgres://me@db/sessions --to backup.db --json`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if o.from == "" || o.to == "" {
				return usageErrorf(c, "give both --from and --to")
			}
			if o.from == o.to {
				return usageErrorf(c, "--from and --to name the same database")
			}
			if o.jobs < 1 {
				return usageErrorf(c, "--jobs must be 1 or more")
			}
			return a.runCopy(o)
		},
	}
	c.Flags().StringVar(&o.from, "from", "", "source database: file path or postgres:// URL (read only)")
	c.Flags().StringVar(&o.to, "to", "", "target database: file path or postgres:// URL (created when missing)")
	c.Flags().BoolVar(&o.json, "json", false, "print the totals as JSON")
	c.Flags().BoolVar(&o.renameConflicts, "rename-conflicts", false, "copy a session whose ID the target gives to another session under a new ID (ID~hash) instead of leaving it out")
	c.Flags().IntVar(&o.jobs, "jobs", defaultCopyJobs, "sessions copied at once, each in its own transaction")
	return c
}

// copyStore is what copy needs of each side.
type copyStore interface {
	sessiondb.Store
	sessiondb.Copier
}

func (a *app) runCopy(o copyOptions) (err error) {
	srcStore, err := openBackend(a.ctx, o.from, modeRead, openOptions{})
	if err != nil {
		return fmt.Errorf("copy from: %w", err)
	}
	defer func() {
		if cerr := srcStore.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	dstStore, err := openBackend(a.ctx, o.to, modeCreate, openOptions{})
	if err != nil {
		return fmt.Errorf("copy to: %w", err)
	}
	defer func() {
		if cerr := dstStore.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	src, ok1 := srcStore.(copyStore)
	dst, ok2 := dstStore.(copyStore)
	if !ok1 || !ok2 {
		return errors.New("copy: one of the databases cannot read or write whole sessions")
	}

	// The IDs first: List pages by UpdatedAt, which the copy does not
	// change in the source, but a writer to the source might.
	var infos []sessiondb.SessionInfo
	cursor := ""
	for {
		page, next, err := src.List(a.ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit, Cursor: cursor})
		if err != nil {
			return fmt.Errorf("copy: list %s: %w", location(src), err)
		}
		infos = append(infos, page...)
		if next == "" {
			break
		}
		cursor = next
	}

	t := copyTotals{From: location(src), To: location(dst), Sessions: int64(len(infos)),
		Diverged: []string{}, Conflicts: []string{}, Renamed: []copyRenamed{}, Skipped: []copySkipped{}}
	outcomes, err := a.copySessions(src, dst, infos, o)
	if err != nil {
		return err
	}
	for _, oc := range outcomes {
		t.add(oc)
	}
	a.refreshStatistics(dst, t.Entries)

	if o.json {
		if err := writeJSON(a.stdout, t); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.stdout, "copied %d of %d sessions from %s to %s (%d unchanged, %d diverged, %d conflicts, %d renamed, %d skipped): %d entries, %d compactions, %d checkpoints, %d usage rows, %d source files, %s of bodies\n",
			t.Copied, t.Sessions, t.From, t.To, t.Unchanged, len(t.Diverged), len(t.Conflicts), len(t.Renamed), len(t.Skipped),
			t.Entries, t.Compactions, t.Checkpoints, t.UsageRows, t.Sources, humanBytes(t.Bytes))
		for _, r := range t.Renamed {
			fmt.Fprintf(a.stdout, "renamed %s to %s (another session has its ID in %s)\n", visible(r.ID), visible(r.As), t.To)
			for _, l := range r.LeftOut {
				fmt.Fprintf(a.stdout, "  left out: %s\n", visible(l))
			}
		}
		for _, id := range t.Conflicts {
			fmt.Fprintf(a.stdout, "conflict: %s in %s is another session (left alone)\n", visible(id), t.To)
		}
		for _, sk := range t.Skipped {
			fmt.Fprintf(a.stdout, "skipped %s: %s\n", visible(sk.ID), visible(sk.Reason))
		}
	}
	var problems []string
	if n := len(t.Diverged); n > 0 {
		problems = append(problems, fmt.Sprintf("%d session(s) changed in %s since the last copy were left alone, first %s: delete them there to copy them again", n, t.To, visible(t.Diverged[0])))
	}
	if n := len(t.Conflicts); n > 0 {
		problems = append(problems, fmt.Sprintf("%d session(s) have IDs that %s gives to other sessions, first %s: left alone (--rename-conflicts copies them under new IDs)", n, t.To, visible(t.Conflicts[0])))
	}
	if n := len(t.Skipped); n > 0 {
		problems = append(problems, fmt.Sprintf("%d session(s) could not be written to %s, first %s: %s", n, t.To, visible(t.Skipped[0].ID), visible(t.Skipped[0].Reason)))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// copyOutcome is what copying one session did.
type copyOutcome struct {
	gone    bool // deleted from the source since the listing
	rel     sessioncopy.Relation
	id      string // the session's ID in the target (renamed or not)
	renamed *copyRenamed
	skipped *copySkipped
	// What a copied session held (not the dump: thousands of outcomes are
	// kept until the end).
	entries, compactions, checkpoints, usage, sources, bodyBytes int64
}

// add counts one session's outcome into the totals.
func (t *copyTotals) add(o copyOutcome) {
	switch {
	case o.gone:
		t.Sessions--
	case o.skipped != nil:
		t.Skipped = append(t.Skipped, *o.skipped)
	case o.rel == sessioncopy.Same:
		t.Unchanged++
	case o.rel == sessioncopy.Diverged:
		t.Diverged = append(t.Diverged, o.id)
	case o.rel == sessioncopy.Conflict:
		t.Conflicts = append(t.Conflicts, o.id)
	default: // written to the target
		if o.renamed != nil {
			t.Renamed = append(t.Renamed, *o.renamed)
		}
		t.Copied++
		t.Entries += o.entries
		t.Compactions += o.compactions
		t.Checkpoints += o.checkpoints
		t.UsageRows += o.usage
		t.Sources += o.sources
		t.Bytes += o.bodyBytes
	}
}

// copySessions copies the listed sessions, o.jobs at a time within
// copyRowBudget, and returns each one's outcome in the listing's order.
// The first error stops the copy: sessions in flight then end with it
// (their transactions roll back) and no other starts.
func (a *app) copySessions(src, dst copyStore, infos []sessiondb.SessionInfo, o copyOptions) ([]copyOutcome, error) {
	ctx, cancel := context.WithCancelCause(a.ctx)
	defer cancel(nil)
	bar := a.newCopyBar(len(infos))
	defer bar.finish()
	var (
		mu       sync.Mutex // bar
		wg       sync.WaitGroup
		budget   = newRowBudget(copyRowBudget)
		jobs     = make(chan struct{}, o.jobs)
		outcomes = make([]copyOutcome, len(infos))
	)
	for i, info := range infos {
		rows := min(max(info.LastSeq, 1), copyRowBudget)
		if !budget.take(ctx, rows) {
			break // a session failed
		}
		select {
		case jobs <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-jobs }()
			defer budget.give(rows)
			oc, err := a.copySession(ctx, src, dst, info.ID, o.renameConflicts)
			if err != nil {
				cancel(err)
				return
			}
			outcomes[i] = oc
			mu.Lock()
			bar.add()
			mu.Unlock()
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return outcomes, nil
}

// rowBudget is a counting semaphore of log rows: take waits until n rows
// are free (or ctx ends), give returns them.
type rowBudget struct {
	mu   sync.Mutex
	free int64
	wake chan struct{} // closed and replaced when rows are given back
}

func newRowBudget(n int64) *rowBudget {
	return &rowBudget{free: n, wake: make(chan struct{})}
}

func (b *rowBudget) take(ctx context.Context, n int64) bool {
	for {
		b.mu.Lock()
		if b.free >= n {
			b.free -= n
			b.mu.Unlock()
			return true
		}
		wake := b.wake
		b.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return false
		}
	}
}

func (b *rowBudget) give(n int64) {
	b.mu.Lock()
	b.free += n
	close(b.wake)
	b.wake = make(chan struct{})
	b.mu.Unlock()
}

// copySession copies one session unless the target already has it as the
// source does (sessioncopy.Compare). The target's sequence is the write's
// precondition, so a writer racing the copy on the target makes it fail
// rather than lose.
func (a *app) copySession(ctx context.Context, src, dst copyStore, id string, rename bool) (copyOutcome, error) {
	d, err := src.DumpSession(ctx, id)
	if errors.Is(err, sessiondb.ErrNotFound) {
		return copyOutcome{gone: true}, nil
	}
	if err != nil {
		return copyOutcome{}, fmt.Errorf("copy %s: %w", id, err)
	}
	rel, expect, err := relation(ctx, dst, d)
	if err != nil {
		return copyOutcome{}, err
	}
	var renamed *copyRenamed
	if rel == sessioncopy.Conflict && rename {
		var leftOut []string
		d, leftOut = sessioncopy.Renamed(d)
		renamed = &copyRenamed{ID: id, As: d.Session.ID, LeftOut: append([]string{}, leftOut...)}
		if rel, expect, err = relation(ctx, dst, d); err != nil {
			return copyOutcome{}, err
		}
	}
	oc := copyOutcome{rel: rel, id: d.Session.ID}
	switch rel {
	case sessioncopy.Same, sessioncopy.Diverged, sessioncopy.Conflict:
		return oc, nil
	}
	_, err = dst.PutSession(ctx, d, sessiondb.Expect(expect))
	if errors.Is(err, sessiondb.ErrInvalid) || errors.Is(err, sessiondb.ErrExists) {
		oc.skipped = &copySkipped{ID: d.Session.ID, Reason: err.Error()}
		return oc, nil
	}
	if err != nil {
		return copyOutcome{}, fmt.Errorf("copy %s: %w", d.Session.ID, err)
	}
	oc.renamed = renamed
	oc.entries, oc.compactions, oc.checkpoints = int64(len(d.Entries)), int64(len(d.Compactions)), int64(len(d.Checkpoints))
	oc.usage, oc.sources = int64(len(d.Usage)), int64(len(d.Sources))
	for _, e := range d.Entries {
		oc.bodyBytes += int64(len(e.Body))
	}
	return oc, nil
}

// relation reads the target's session of d's ID and tells how it stands
// to d, with the Sequence a write must expect (0: none there).
func relation(ctx context.Context, dst copyStore, d sessiondb.SessionDump) (sessioncopy.Relation, int64, error) {
	cur, err := dst.DumpSession(ctx, d.Session.ID)
	switch {
	case errors.Is(err, sessiondb.ErrNotFound):
		return sessioncopy.Missing, 0, nil
	case err != nil:
		return 0, 0, fmt.Errorf("copy %s: read the target's session: %w", d.Session.ID, err)
	}
	return sessioncopy.Compare(d, cur), cur.Session.Sequence, nil
}

// copyBar draws copy progress on a terminal stderr; it is a no-op
// elsewhere.
type copyBar struct{ bar *progressbar.ProgressBar }

func (a *app) newCopyBar(n int) copyBar {
	if !a.stderrTTY {
		return copyBar{}
	}
	return copyBar{bar: progressbar.NewOptions(n,
		progressbar.OptionSetWriter(a.stderr),
		progressbar.OptionSetDescription("copying sessions"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100*time.Millisecond),
	)}
}

func (b copyBar) add() {
	if b.bar != nil {
		_ = b.bar.Add(1)
	}
}

func (b copyBar) finish() {
	if b.bar != nil {
		_ = b.bar.Finish()
		_ = b.bar.Clear()
	}
}
