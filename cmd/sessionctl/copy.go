package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
)

type copyOptions struct {
	from, to string
	json     bool
}

// copyTotals is what copy did; --json prints it.
type copyTotals struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Sessions is the number of sessions in the source.
	Sessions int64 `json:"sessions"`
	// Copied were written to the target (new or changed since the last
	// copy); Unchanged were already there with the same Sequence and
	// LastSeq; Diverged have a higher Sequence in the target than in the
	// source (written there since) and were left alone.
	Copied    int64    `json:"copied"`
	Unchanged int64    `json:"unchanged"`
	Diverged  []string `json:"diverged"`
	// What the copied sessions held.
	Entries     int64 `json:"entries"`
	Compactions int64 `json:"compactions"`
	Checkpoints int64 `json:"checkpoints"`
	UsageRows   int64 `json:"usage_rows"`
	Sources     int64 `json:"source_files"`
	Bytes       int64 `json:"body_bytes"`
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

Each session is written in its own transaction on the target, so a copy
that is killed leaves whole sessions only, and running it again copies
only what is missing or changed: a session whose Sequence and LastSeq in
the target equal the source's is skipped. A session whose Sequence in the
target is higher than in the source was written there since; it is left
alone and reported as diverged (exit code 1). Sessions deleted from the
source are not deleted from the target.`,
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
			return a.runCopy(o)
		},
	}
	c.Flags().StringVar(&o.from, "from", "", "source database: file path or postgres:// URL (read only)")
	c.Flags().StringVar(&o.to, "to", "", "target database: file path or postgres:// URL (created when missing)")
	c.Flags().BoolVar(&o.json, "json", false, "print the totals as JSON")
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

	t := copyTotals{From: location(src), To: location(dst), Sessions: int64(len(infos)), Diverged: []string{}}
	bar := a.newCopyBar(len(infos))
	for _, info := range infos {
		if err := a.copySession(src, dst, info.ID, &t); err != nil {
			bar.finish()
			return err
		}
		bar.add()
	}
	bar.finish()

	if o.json {
		if err := writeJSON(a.stdout, t); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.stdout, "copied %d of %d sessions from %s to %s (%d unchanged, %d diverged): %d entries, %d compactions, %d checkpoints, %d usage rows, %d source files, %s of bodies\n",
			t.Copied, t.Sessions, t.From, t.To, t.Unchanged, len(t.Diverged), t.Entries, t.Compactions, t.Checkpoints, t.UsageRows, t.Sources, humanBytes(t.Bytes))
	}
	if len(t.Diverged) > 0 {
		return fmt.Errorf("%d session(s) changed in %s since the last copy were left alone, first %s: delete them there to copy them again", len(t.Diverged), t.To, t.Diverged[0])
	}
	return nil
}

// copySession copies one session unless the target already has it as the
// source does. The target's sequence is the write's precondition, so a
// writer racing the copy on the target makes it fail rather than lose.
func (a *app) copySession(src, dst copyStore, id string, t *copyTotals) error {
	d, err := src.DumpSession(a.ctx, id)
	if errors.Is(err, sessiondb.ErrNotFound) {
		t.Sessions-- // deleted from the source since the listing
		return nil
	}
	if err != nil {
		return fmt.Errorf("copy %s: %w", id, err)
	}
	expect := int64(0)
	cur, err := dst.Get(a.ctx, id)
	switch {
	case errors.Is(err, sessiondb.ErrNotFound):
	case err != nil:
		return fmt.Errorf("copy %s: %w", id, err)
	case cur.Sequence == d.Session.Sequence && cur.LastSeq == d.Session.LastSeq:
		t.Unchanged++
		return nil
	case cur.Sequence > d.Session.Sequence:
		t.Diverged = append(t.Diverged, id)
		return nil
	default:
		expect = cur.Sequence
	}
	if _, err := dst.PutSession(a.ctx, d, sessiondb.Expect(expect)); err != nil {
		return fmt.Errorf("copy %s: %w", id, err)
	}
	t.Copied++
	t.Entries += int64(len(d.Entries))
	t.Compactions += int64(len(d.Compactions))
	t.Checkpoints += int64(len(d.Checkpoints))
	t.UsageRows += int64(len(d.Usage))
	t.Sources += int64(len(d.Sources))
	for _, e := range d.Entries {
		t.Bytes += int64(len(e.Body))
	}
	return nil
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
