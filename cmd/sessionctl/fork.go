package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func (a *app) forkCommand() *cobra.Command {
	var (
		at     int64
		newID  string
		asJSON bool
	)
	c := &cobra.Command{
		Use:   "fork ID [--at SEQ] [--id NEWID]",
		Short: "Copy a session, as it is now or as it was at a log position",
		Long: `Fork creates a new session whose transcript equals the source's as of log
position SEQ (default: now), with the source's state copied and the parent
recorded. It prints the new session's ID (--json: the new session).`,
		Example: `  sessionctl fork my-alias
  sessionctl fork my-alias --at 12 --id my-alias-retry`,
		Args:              exactArgs(1),
		ValidArgsFunction: a.completeSessions(false),
		RunE: func(c *cobra.Command, args []string) error {
			if at < 0 {
				return usageErrorf(c, "--at must be >= 0, got %d", at)
			}
			st, src, err := a.openSession(args[0])
			if err != nil {
				return err
			}
			s, err := st.Fork(a.ctx, src, at, newID)
			if err != nil {
				return fmt.Errorf("fork %s: %w", src, err)
			}
			if asJSON {
				return writeJSON(a.stdout, toSessionJSON(s))
			}
			fmt.Fprintln(a.stdout, s.ID)
			return nil
		},
	}
	c.Flags().Int64Var(&at, "at", 0, "log position to fork at (0: now)")
	c.Flags().StringVar(&newID, "id", "", "ID of the new session (default: a generated one)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the new session as JSON")
	return c
}
