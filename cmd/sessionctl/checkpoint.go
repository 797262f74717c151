package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
)

func (a *app) checkpointCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "checkpoint (list|create|restore)",
		Short: "List, create and restore agent checkpoints (time travel)",
		Long: `An agent checkpoint is a named position in a session's log plus the state
document at that point. Restoring one either forks a new session as it was
at the checkpoint (the default, non-destructive) or rewinds the session
itself (--in-place).`,
		Args: cobra.ArbitraryArgs,
		RunE: needSubcommand,
	}
	c.AddCommand(a.checkpointListCommand(), a.checkpointCreateCommand(), a.checkpointRestoreCommand())
	return c
}

type checkpointJSON struct {
	ID           string `json:"id"`
	SessionID    string `json:"session_id"`
	Label        string `json:"label"`
	AtSeq        int64  `json:"at_seq"`
	CompactionID int64  `json:"compaction_id,omitempty"`
	HasState     bool   `json:"has_state"`
	CreatedAt    string `json:"created_at"`
}

func (a *app) checkpointListCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:               "list SESSION",
		Short:             "List a session's checkpoints, newest first",
		Example:           `  sessionctl checkpoint list my-alias --json`,
		Args:              exactArgs(1),
		ValidArgsFunction: a.completeSessions(false),
		RunE: func(c *cobra.Command, args []string) error {
			st, id, err := a.openSessionRead(args[0])
			if err != nil {
				return err
			}
			cps, err := st.ListCheckpoints(a.ctx, id)
			if err != nil {
				return fmt.Errorf("list checkpoints of %s: %w", id, err)
			}
			if asJSON {
				out := make([]checkpointJSON, 0, len(cps))
				for _, cp := range cps {
					out = append(out, checkpointJSON{
						ID: cp.ID, SessionID: cp.SessionID, Label: cp.Label, AtSeq: cp.AtSeq,
						CompactionID: cp.CompactionID, HasState: cp.State != nil, CreatedAt: jsonTime(cp.CreatedAt),
					})
				}
				return writeJSON(a.stdout, out)
			}
			if len(cps) == 0 {
				fmt.Fprintf(a.stdout, "no checkpoints in %s\n", id)
				return nil
			}
			tw := newTable(a.stdout)
			fmt.Fprintln(tw, "ID\tCREATED (UTC)\tAT SEQ\tLABEL")
			for _, cp := range cps {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", cell(cp.ID, 0), tableTime(cp.CreatedAt), cp.AtSeq, cell(cp.Label, 60))
			}
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the checkpoints as a JSON array")
	return c
}

func (a *app) checkpointCreateCommand() *cobra.Command {
	var label, id string
	c := &cobra.Command{
		Use:               "create SESSION [--label TEXT] [--id ID]",
		Short:             "Checkpoint a session as it is now; prints the checkpoint ID",
		Example:           `  sessionctl checkpoint create my-alias --label "before refactor"`,
		Args:              exactArgs(1),
		ValidArgsFunction: a.completeSessions(false),
		RunE: func(c *cobra.Command, args []string) error {
			st, sid, err := a.openSession(args[0])
			if err != nil {
				return err
			}
			cp, err := st.SaveCheckpoint(a.ctx, sessiondb.Checkpoint{ID: id, SessionID: sid, Label: label})
			if err != nil {
				return fmt.Errorf("checkpoint %s: %w", sid, err)
			}
			fmt.Fprintln(a.stdout, cp.ID)
			return nil
		},
	}
	c.Flags().StringVar(&label, "label", "", "a label for the checkpoint")
	c.Flags().StringVar(&id, "id", "", "checkpoint ID (default: a generated one)")
	return c
}

func (a *app) checkpointRestoreCommand() *cobra.Command {
	var (
		inPlace bool
		newID   string
		asJSON  bool
	)
	c := &cobra.Command{
		Use:   "restore CHECKPOINT [--in-place | --id NEWID]",
		Short: "Restore a checkpoint as a new session (default) or in place",
		Long: `Restore brings back a session as it was at a checkpoint.

By default it forks: a new session (ID --id, or a generated one) gets the
transcript as of the checkpoint's log position and the checkpoint's state;
the original is untouched. It prints the new session's ID.

With --in-place it rewinds the checkpointed session itself, in one commit:
the transcript at the checkpoint is appended again and made current by a
compaction (the later history stays in the log, as after any compaction,
until pruned) and the state becomes the checkpoint's.`,
		Example: `  sessionctl checkpoint restore 20260320_150000_0a1b… --id retry
  sessionctl checkpoint restore 20260320_150000_0a1b… --in-place`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if inPlace && newID != "" {
				return usageErrorf(c, "--in-place and --id exclude each other")
			}
			st, err := a.openExisting(nil)
			if err != nil {
				return err
			}
			cp, err := st.LoadCheckpoint(a.ctx, args[0])
			if errors.Is(err, sessiondb.ErrNotFound) {
				return &notFoundError{what: "checkpoint", id: args[0], hint: "run 'sessionctl checkpoint list SESSION' to see checkpoints"}
			}
			if err != nil {
				return fmt.Errorf("load checkpoint %s: %w", args[0], err)
			}
			// One store transaction either way: the fork gets the
			// checkpoint's transcript and state together, and a rewind
			// cannot interleave with another writer.
			s, err := st.Restore(a.ctx, cp.ID, sessiondb.RestoreOptions{AsFork: !inPlace, NewID: newID})
			if err != nil {
				return fmt.Errorf("restore checkpoint %s: %w", cp.ID, err)
			}
			if asJSON {
				return writeJSON(a.stdout, toSessionJSON(s))
			}
			if inPlace {
				fmt.Fprintf(a.stdout, "rewound %s to checkpoint %s (log position %d)\n", s.ID, cp.ID, cp.AtSeq)
				return nil
			}
			fmt.Fprintln(a.stdout, s.ID)
			return nil
		},
	}
	c.Flags().BoolVar(&inPlace, "in-place", false, "rewind the session itself instead of forking")
	c.Flags().StringVar(&newID, "id", "", "ID of the forked session (default: a generated one)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the restored session as JSON")
	return c
}
