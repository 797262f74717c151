package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
)

func (a *app) renameCommand() *cobra.Command {
	return &cobra.Command{
		Use:               "rename ID TITLE",
		Short:             "Set a session's title",
		Example:           `  sessionctl rename my-alias "Fix flaky login test"`,
		Args:              exactArgs(2),
		ValidArgsFunction: a.completeSessions(false),
		RunE: func(c *cobra.Command, args []string) error {
			st, id, err := a.openSession(args[0])
			if err != nil {
				return err
			}
			title := args[1]
			if _, err := st.UpdateMeta(a.ctx, id, sessiondb.MetaPatch{Title: &title}); err != nil {
				return fmt.Errorf("rename %s: %w", id, err)
			}
			fmt.Fprintf(a.stdout, "renamed %s to %q\n", id, title)
			return nil
		},
	}
}
