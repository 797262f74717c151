package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func (a *app) vacuumCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "vacuum",
		Short: "Rebuild the database file to return free space",
		Long: `Vacuum rebuilds the database file so that the pages freed by delete and
prune are returned to the file system. It takes the write lock for as long
as it runs, and temporarily needs up to twice the file's size on disk.`,
		Example: `  sessionctl prune --all && sessionctl vacuum`,
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			st, err := a.openExisting(nil)
			if err != nil {
				return err
			}
			before := fileSize(st.Path()) + fileSize(st.Path()+"-wal")
			if err := st.Vacuum(a.ctx); err != nil {
				return fmt.Errorf("vacuum %s: %w", st.Path(), err)
			}
			after := fileSize(st.Path()) + fileSize(st.Path()+"-wal")
			fmt.Fprintf(a.stdout, "vacuumed %s: %s -> %s\n", st.Path(), humanBytes(before), humanBytes(after))
			return nil
		},
	}
}
