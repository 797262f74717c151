package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
)

func (a *app) truncateCommand() *cobra.Command {
	keep := -1
	c := &cobra.Command{
		Use:   "truncate ID --keep N",
		Short: "Keep only the last N messages of a session's transcript",
		Long: `Truncate keeps the last N messages of the effective transcript (summary
messages of the current compaction count, and go first). It records a
compaction without summary: the dropped entries stay in the log, visible
with 'show --all-entries', until 'sessionctl prune' deletes them.`,
		Example:           `  sessionctl truncate my-alias --keep 20`,
		Args:              exactArgs(1),
		ValidArgsFunction: a.completeSessions(false),
		RunE: func(c *cobra.Command, args []string) error {
			if !c.Flags().Changed("keep") {
				return usageErrorf(c, "--keep N is required")
			}
			if keep < 0 {
				return usageErrorf(c, "--keep must be >= 0, got %d", keep)
			}
			st, id, err := a.openSession(args[0])
			if err != nil {
				return err
			}
			if _, err := st.Truncate(a.ctx, id, keep); err != nil {
				return fmt.Errorf("truncate %s: %w", id, err)
			}
			msgs, err := st.Load(a.ctx, id, sessiondb.LoadOptions{})
			if err != nil {
				return fmt.Errorf("load %s: %w", id, err)
			}
			fmt.Fprintf(a.stdout, "truncated %s: transcript now %d messages (run 'sessionctl prune %s' to delete the dropped entries)\n", id, len(msgs), id)
			return nil
		},
	}
	c.Flags().IntVar(&keep, "keep", -1, "number of messages to keep")
	return c
}
