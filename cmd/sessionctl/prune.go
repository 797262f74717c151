package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

func (a *app) pruneCommand() *cobra.Command {
	var all, yes, secure, dryRun bool
	var sel sessionSelector
	c := &cobra.Command{
		Use:   "prune (ID | --all | --format FORMAT | --source PATH)",
		Short: "Delete log entries that no compaction reaches any more",
		Long: `Prune physically deletes the log entries that the current compaction no
longer reaches (truncated, compacted or replaced history) and the superseded
compactions, except what agent checkpoints still need. It is the only
command that deletes history; run 'sessionctl vacuum' afterwards to return
the space to the file system. Until then the deleted text stays readable in
the file's free pages (unless --secure-delete, which overwrites it with
zeros), and in any backup (.bak-v*) taken before.

--all prunes every session; --format and --source the sessions imported
from that format (none: written by an application) or from that file or the
files under that directory (both given: the sessions that match both).
--dry-run says which sessions and how many would be pruned, and prunes
nothing.

Confirmation: prune of more than one session asks on a terminal unless
--yes is given; when stdin is not a terminal --yes is required (as for
delete).`,
		Example: `  sessionctl prune my-alias
  sessionctl prune --all
  sessionctl prune --format claude-code --dry-run`,
		Args:              rangeArgs(0, 1),
		ValidArgsFunction: a.completeSessions(false),
		RunE: func(c *cobra.Command, args []string) error {
			if err := sel.check(c); err != nil {
				return err
			}
			modes := 0
			for _, on := range []bool{all, len(args) == 1, sel.active()} {
				if on {
					modes++
				}
			}
			if modes != 1 {
				return usageErrorf(c, "give one session ID, --all, or --format/--source")
			}
			many := all || sel.active()
			if many && !yes && !dryRun && !a.stdinTTY {
				return usageErrorf(c, "stdin is not a terminal: pass --yes to prune several sessions (it deletes history)")
			}
			st, err := a.openExisting(&openOptions{SecureDelete: secure})
			if err != nil {
				return err
			}
			var ids []string
			what := ""
			switch {
			case all:
				if ids, err = allSessionIDs(a.ctx, st); err != nil {
					return err
				}
				what = " (all)"
			case sel.active():
				infos, err := a.selectSessions(st, &sel)
				if err != nil {
					return err
				}
				for _, si := range infos {
					ids = append(ids, si.ID)
				}
				what = " " + sel.describe()
			default:
				id, err := resolve(a.ctx, st, args[0])
				if err != nil {
					return err
				}
				ids = []string{id}
			}
			if dryRun {
				for _, id := range ids {
					fmt.Fprintf(a.stdout, "would prune %s\n", visible(id))
				}
				fmt.Fprintf(a.stdout, "dry run: the unreachable history of %d session(s)%s would be pruned; nothing pruned\n", len(ids), what)
				return nil
			}
			if many && !yes {
				ok, err := a.confirm(fmt.Sprintf("prune the unreachable history of %d session(s)%s (it cannot be undone)?", len(ids), what))
				if err != nil {
					return err
				}
				if !ok {
					return errors.New("aborted; nothing pruned")
				}
			}
			var total int64
			for _, id := range ids {
				n, err := st.Prune(a.ctx, id)
				if err != nil {
					return fmt.Errorf("prune %s (after deleting %d entries elsewhere): %w", id, total, err)
				}
				total += n
				if !many {
					fmt.Fprintf(a.stdout, "pruned %d entries from %s\n", n, id)
				}
			}
			if many {
				fmt.Fprintf(a.stdout, "pruned %d entries from %d sessions\n", total, len(ids))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&all, "all", false, "prune every session")
	c.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation (--all, --format, --source)")
	c.Flags().BoolVarP(&dryRun, "dry-run", "n", false, "say which sessions and how many would be pruned; prune nothing")
	c.Flags().BoolVar(&secure, "secure-delete", false, "overwrite the pruned content with zeros (SQLite secure_delete)")
	sel.addFlags(c, "prune")
	return c
}
