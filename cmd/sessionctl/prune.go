package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

func (a *app) pruneCommand() *cobra.Command {
	var all, yes, secure bool
	c := &cobra.Command{
		Use:   "prune (ID | --all)",
		Short: "Delete log entries that no compaction reaches any more",
		Long: `Prune physically deletes the log entries that the current compaction no
longer reaches (truncated, compacted or replaced history) and the superseded
compactions, except what agent checkpoints still need. It is the only
command that deletes history; run 'sessionctl vacuum' afterwards to return
the space to the file system. Until then the deleted text stays readable in
the file's free pages (unless --secure-delete, which overwrites it with
zeros), and in any backup (.bak-v*) taken before.

Confirmation: prune --all asks on a terminal unless --yes is given; when
stdin is not a terminal --yes is required (as for delete).`,
		Example: `  sessionctl prune my-alias
  sessionctl prune --all`,
		Args:              rangeArgs(0, 1),
		ValidArgsFunction: a.completeSessions(false),
		RunE: func(c *cobra.Command, args []string) error {
			if all == (len(args) == 1) {
				return usageErrorf(c, "give one session ID or --all")
			}
			if all && !yes && !a.stdinTTY {
				return usageErrorf(c, "stdin is not a terminal: pass --yes to prune every session (it deletes history)")
			}
			st, err := a.openExisting(&openOptions{SecureDelete: secure})
			if err != nil {
				return err
			}
			var ids []string
			if all {
				if ids, err = allSessionIDs(a.ctx, st); err != nil {
					return err
				}
				if !yes {
					ok, err := a.confirm(fmt.Sprintf("prune the unreachable history of all %d sessions (it cannot be undone)?", len(ids)))
					if err != nil {
						return err
					}
					if !ok {
						return errors.New("aborted; nothing pruned")
					}
				}
			} else {
				id, err := resolve(a.ctx, st, args[0])
				if err != nil {
					return err
				}
				ids = []string{id}
			}
			var total int64
			for _, id := range ids {
				n, err := st.Prune(a.ctx, id)
				if err != nil {
					return fmt.Errorf("prune %s (after deleting %d entries elsewhere): %w", id, total, err)
				}
				total += n
				if !all {
					fmt.Fprintf(a.stdout, "pruned %d entries from %s\n", n, id)
				}
			}
			if all {
				fmt.Fprintf(a.stdout, "pruned %d entries from %d sessions\n", total, len(ids))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&all, "all", false, "prune every session")
	c.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation (--all)")
	c.Flags().BoolVar(&secure, "secure-delete", false, "overwrite the pruned content with zeros (SQLite secure_delete)")
	return c
}
