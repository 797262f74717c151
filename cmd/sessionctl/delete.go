package main

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

func (a *app) deleteCommand() *cobra.Command {
	var yes, secure, dryRun bool
	var sel sessionSelector
	c := &cobra.Command{
		Use:   "delete (ID... | --format FORMAT | --source PATH) [--yes]",
		Short: "Delete sessions and everything stored with them",
		Long: `Delete removes sessions with their log, state, interrupt, compactions,
checkpoints, usage and import records. Forks of a deleted session keep
working. Every ID is resolved before anything is deleted, so a typo deletes
nothing.

Instead of IDs, --format and --source select sessions by where they came
from: every session imported from that format (none: written by an
application), or from that file or the files under that directory; both
given, the sessions that match both. --dry-run lists what would be deleted
and how many, and deletes nothing. Importing the same files again brings the
sessions back.

Confirmation: on a terminal, delete asks before deleting unless --yes is
given. When stdin is not a terminal (scripts, pipes), --yes is required and
its absence is a usage error (exit 2): a script never deletes by accident
and never hangs on a prompt.

Deleted text stays readable in the database file's free pages until
'sessionctl vacuum', and in every backup (.bak-v*) taken before, until the
backup is removed ('sessionctl vacuum --keep-backups N'). --secure-delete
overwrites the deleted content with zeros as it is deleted.`,
		Example: `  sessionctl delete my-alias
  sessionctl delete --yes 20260320_143000_6f00bfe3f7c54b2f86d780df58ccf0a1 other-session
  sessionctl delete --source testdata/samples --dry-run   # what the README's samples brought
  sessionctl delete --format picoclaw --yes`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: a.completeSessions(true),
		RunE: func(c *cobra.Command, args []string) error {
			if err := sel.check(c); err != nil {
				return err
			}
			switch {
			case sel.active() && len(args) > 0:
				return usageErrorf(c, "give session IDs or --format/--source, not both")
			case !sel.active() && len(args) == 0:
				return usageErrorf(c, "expected at least 1 argument(s), got 0; usage: %s", c.UseLine())
			}
			if !yes && !dryRun && !a.stdinTTY {
				return usageErrorf(c, "stdin is not a terminal: pass --yes to delete without confirmation")
			}
			st, err := a.openExisting(&openOptions{SecureDelete: secure})
			if err != nil {
				return err
			}
			var ids []string
			what := ""
			if sel.active() {
				infos, err := a.selectSessions(st, &sel)
				if err != nil {
					return err
				}
				for _, si := range infos {
					ids = append(ids, si.ID)
				}
				what = " " + sel.describe()
				if len(ids) == 0 {
					fmt.Fprintf(a.stdout, "no sessions%s; nothing to delete\n", what)
					return nil
				}
			} else if ids, err = resolveAll(a.ctx, st, args); err != nil {
				return err
			}
			if dryRun {
				for _, id := range ids {
					fmt.Fprintf(a.stdout, "would delete %s\n", visible(id))
				}
				fmt.Fprintf(a.stdout, "dry run: %d session(s)%s would be deleted; nothing deleted\n", len(ids), what)
				return nil
			}
			if !yes {
				ok, err := a.confirm(fmt.Sprintf("delete %d session(s)%s: %s?", len(ids), what, visible(idList(ids))))
				if err != nil {
					return err
				}
				if !ok {
					return errors.New("aborted; nothing deleted")
				}
			}
			for i, id := range ids {
				if err := st.Delete(a.ctx, id); err != nil {
					return fmt.Errorf("delete %s (%d of %d already deleted): %w", id, i, len(ids), err)
				}
				fmt.Fprintf(a.stdout, "deleted %s\n", visible(id))
			}
			if sel.active() {
				fmt.Fprintf(a.stdout, "deleted %d session(s)%s\n", len(ids), what)
			}
			return nil
		},
	}
	c.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	c.Flags().BoolVarP(&dryRun, "dry-run", "n", false, "list what would be deleted and how many; delete nothing")
	c.Flags().BoolVar(&secure, "secure-delete", false, "overwrite the deleted content with zeros (SQLite secure_delete)")
	sel.addFlags(c, "delete")
	return c
}

// confirm asks question on stderr and reads the answer from stdin; only
// "y" or "yes" agrees.
func (a *app) confirm(question string) (bool, error) {
	fmt.Fprintf(a.stderr, "%s [y/N] ", question)
	line, err := bufio.NewReader(a.stdin).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(a.stderr)
		return false, nil
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}
