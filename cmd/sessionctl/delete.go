package main

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

func (a *app) deleteCommand() *cobra.Command {
	var yes, secure bool
	c := &cobra.Command{
		Use:   "delete ID... [--yes]",
		Short: "Delete sessions and everything stored with them",
		Long: `Delete removes sessions with their log, state, interrupt, compactions,
checkpoints, usage and import records. Forks of a deleted session keep
working. Every ID is resolved before anything is deleted, so a typo deletes
nothing.

Confirmation: on a terminal, delete asks before deleting unless --yes is
given. When stdin is not a terminal (scripts, pipes), --yes is required and
its absence is a usage error (exit 2): a script never deletes by accident
and never hangs on a prompt.

Deleted text stays readable in the database file's free pages until
'sessionctl vacuum', and in every backup (.bak-v*) taken before, until the
backup is removed ('sessionctl vacuum --keep-backups N'). --secure-delete
overwrites the deleted content with zeros as it is deleted.`,
		Example: `  sessionctl delete my-alias
  sessionctl delete --yes 20260320_143000_6f00bfe3f7c54b2f86d780df58ccf0a1 other-session`,
		Args:              minArgs(1),
		ValidArgsFunction: a.completeSessions(true),
		RunE: func(c *cobra.Command, args []string) error {
			if !yes && !a.stdinTTY {
				return usageErrorf(c, "stdin is not a terminal: pass --yes to delete without confirmation")
			}
			st, err := a.openExisting(&openOptions{SecureDelete: secure})
			if err != nil {
				return err
			}
			ids, err := resolveAll(a.ctx, st, args)
			if err != nil {
				return err
			}
			if !yes {
				ok, err := a.confirm(fmt.Sprintf("delete %d session(s): %s?", len(ids), strings.Join(ids, ", ")))
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
				fmt.Fprintf(a.stdout, "deleted %s\n", id)
			}
			return nil
		},
	}
	c.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	c.Flags().BoolVar(&secure, "secure-delete", false, "overwrite the deleted content with zeros (SQLite secure_delete)")
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
