package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func (a *app) vacuumCommand() *cobra.Command {
	keep := -1
	c := &cobra.Command{
		Use:   "vacuum [--keep-backups N]",
		Short: "Rebuild the database file to return free space",
		Long: `Vacuum rebuilds the database file so that the pages freed by delete and
prune are returned to the file system (and the deleted text leaves the
file). It takes the write lock for as long as it runs, and temporarily
needs up to twice the file's size on disk.

Migration backups (<db>.bak-v*) keep every session as it was, deleted
text included: --keep-backups N removes all but the newest N of them.`,
		Example: `  sessionctl prune --all --yes && sessionctl vacuum
  sessionctl vacuum --keep-backups 1`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if c.Flags().Changed("keep-backups") && keep < 0 {
				return usageErrorf(c, "--keep-backups must be 0 or more")
			}
			st, err := a.openExisting(nil)
			if err != nil {
				return err
			}
			vac, ok := st.(vacuumer)
			fb, isFile := st.(fileBacked)
			if !ok {
				fmt.Fprintln(a.stdout, note(st, "vacuum"))
			} else {
				var before int64
				if isFile {
					before = filesSize(fb.Path())
				}
				if err := vac.Vacuum(a.ctx); err != nil {
					return fmt.Errorf("vacuum %s: %w", location(st), err)
				}
				if isFile {
					after := filesSize(fb.Path())
					fmt.Fprintf(a.stdout, "vacuumed %s: %s -> %s\n", fb.Path(), humanBytes(before), humanBytes(after))
				} else {
					fmt.Fprintf(a.stdout, "vacuumed %s\n", location(st))
				}
			}
			bk, hasBackups := st.(backupKeeper)
			if keep >= 0 && !hasBackups {
				fmt.Fprintln(a.stdout, note(st, "backups"))
			}
			if keep >= 0 && hasBackups {
				removed, err := bk.RemoveBackups(keep)
				for _, p := range removed {
					fmt.Fprintf(a.stdout, "removed backup %s\n", p)
				}
				if err != nil {
					return err
				}
			}
			return nil
		},
	}
	c.Flags().IntVar(&keep, "keep-backups", -1, "remove all but the newest N migration backups")
	return c
}
