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
			title := args[1]
			if hasControl(title) {
				return usageErrorf(c, "the title %q contains a control, newline or bidirectional-override character", title)
			}
			st, id, err := a.openSession(args[0])
			if err != nil {
				return err
			}
			if _, err := st.UpdateMeta(a.ctx, id, sessiondb.MetaPatch{Title: &title}); err != nil {
				return fmt.Errorf("rename %s: %w", id, err)
			}
			fmt.Fprintf(a.stdout, "renamed %s to %q\n", visible(id), title)
			return nil
		},
	}
}
