package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/pressly/goose/v3"
	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
)

func (a *app) migrateCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "migrate (status|up|down-to VERSION)",
		Short: "Show or change the database schema version",
		Long: `Migrate runs the schema migrations embedded in this binary (goose SQL files).
Every other command migrates a database up automatically when it opens it;
migrate lets you look first, or go back.

  status       the applied and pending migrations
  up           apply every pending migration (a backup is taken next to a
               database that holds data, as at any open)
  down-to V    roll back to version V. Rolling back drops tables and their
               data: a backup is taken first (unless --no-backup), and
               --yes is required when stdin is not a terminal.`,
		Args: cobra.ArbitraryArgs,
		RunE: needSubcommand,
	}
	c.AddCommand(a.migrateStatusCommand(), a.migrateUpCommand(), a.migrateDownToCommand())
	return c
}

type migrationJSON struct {
	Version   int64  `json:"version"`
	Source    string `json:"source"`
	State     string `json:"state"`
	AppliedAt string `json:"applied_at,omitempty"`
}

type migrateStatusJSON struct {
	Current    int64           `json:"current"`
	Latest     int64           `json:"latest"`
	Migrations []migrationJSON `json:"migrations"`
}

// provider opens the existing database without migrating it and returns
// goose's provider over it.
func (a *app) provider() (sessiondb.Store, *goose.Provider, error) {
	st, err := a.openExisting(&openOptions{NoMigrate: true})
	if err != nil {
		return nil, nil, err
	}
	mg, ok := st.(migrator)
	if !ok {
		return nil, nil, fmt.Errorf("migrate: %s has no migrations", location(st))
	}
	p, err := mg.MigrationProvider(a.ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("load migrations: %w", err)
	}
	return st, p, nil
}

func (a *app) migrateStatusCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:     "status",
		Short:   "Show applied and pending migrations",
		Example: `  sessionctl migrate status --json`,
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			_, p, err := a.provider()
			if err != nil {
				return err
			}
			statuses, err := p.Status(a.ctx)
			if err != nil {
				return fmt.Errorf("migration status: %w", err)
			}
			current, latest, err := p.GetVersions(a.ctx)
			if err != nil {
				return fmt.Errorf("schema version: %w", err)
			}
			out := migrateStatusJSON{Current: current, Latest: latest, Migrations: []migrationJSON{}}
			for _, s := range statuses {
				m := migrationJSON{Version: s.Source.Version, Source: s.Source.Path, State: string(s.State)}
				if !s.AppliedAt.IsZero() {
					m.AppliedAt = jsonTime(s.AppliedAt)
				}
				out.Migrations = append(out.Migrations, m)
			}
			if asJSON {
				return writeJSON(a.stdout, out)
			}
			fmt.Fprintf(a.stdout, "schema version %d, latest %d\n", current, latest)
			tw := newTable(a.stdout)
			fmt.Fprintln(tw, "VERSION\tSTATE\tAPPLIED (UTC)\tSOURCE")
			for _, s := range statuses {
				applied := "-"
				if !s.AppliedAt.IsZero() {
					applied = tableTime(s.AppliedAt)
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", s.Source.Version, s.State, applied, s.Source.Path)
			}
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return c
}

func (a *app) migrateUpCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "up",
		Short:   "Apply every pending migration",
		Example: `  sessionctl migrate up`,
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			st, p, err := a.provider()
			if err != nil {
				return err
			}
			before, latest, err := p.GetVersions(a.ctx)
			if err != nil {
				return fmt.Errorf("schema version: %w", err)
			}
			if before >= latest {
				fmt.Fprintf(a.stdout, "%s is at version %d, the latest; nothing to do\n", location(st), before)
				return nil
			}
			// Reopen with migrations on: Open applies them the careful way
			// (backup of a database holding data, then an integrity check).
			if err := st.Close(); err != nil {
				return fmt.Errorf("close %s: %w", location(st), err)
			}
			a.store = nil
			st, err = a.open(nil)
			if err != nil {
				return err
			}
			p, err = st.(migrator).MigrationProvider(a.ctx)
			if err != nil {
				return fmt.Errorf("load migrations: %w", err)
			}
			after, err := p.GetDBVersion(a.ctx)
			if err != nil {
				return fmt.Errorf("schema version: %w", err)
			}
			fmt.Fprintf(a.stdout, "migrated %s from version %d to %d\n", location(st), before, after)
			return nil
		},
	}
}

func (a *app) migrateDownToCommand() *cobra.Command {
	var yes, noBackup bool
	c := &cobra.Command{
		Use:     "down-to VERSION",
		Short:   "Roll the schema back to VERSION (drops newer tables and their data)",
		Example: `  sessionctl migrate down-to 0 --yes`,
		Args:    exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			version, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || version < 0 {
				return usageErrorf(c, "VERSION must be a non-negative integer, got %q", args[0])
			}
			if !yes && !a.stdinTTY {
				return usageErrorf(c, "stdin is not a terminal: pass --yes to roll back (it drops data)")
			}
			st, p, err := a.provider()
			if err != nil {
				return err
			}
			current, err := p.GetDBVersion(a.ctx)
			if err != nil {
				return fmt.Errorf("schema version: %w", err)
			}
			if version >= current {
				fmt.Fprintf(a.stdout, "%s is at version %d; nothing to roll back\n", location(st), current)
				return nil
			}
			if !yes {
				ok, err := a.confirm(fmt.Sprintf("roll %s back from version %d to %d, dropping the data of the newer tables?", location(st), current, version))
				if err != nil {
					return err
				}
				if !ok {
					return errors.New("aborted; nothing changed")
				}
			}
			bk, hasBackups := st.(backupKeeper)
			if !noBackup && !hasBackups {
				fmt.Fprintln(a.stdout, note(st, "backups"))
			}
			if !noBackup && hasBackups {
				// Rolling back drops tables with their data: keep a copy
				// to restore from, as 'up' does before migrating.
				bak, err := bk.Backup(a.ctx)
				if err != nil {
					return fmt.Errorf("nothing rolled back: %w", err)
				}
				fmt.Fprintf(a.stdout, "backed up %s to %s\n", location(st), bak)
			}
			results, err := p.DownTo(a.ctx, version)
			for _, r := range results {
				if r.Error == nil {
					fmt.Fprintf(a.stdout, "rolled back %s\n", r.Source.Path)
				}
			}
			if err != nil {
				return fmt.Errorf("roll back to %d: %w", version, err)
			}
			fmt.Fprintf(a.stdout, "%s is at version %d\n", location(st), version)
			return nil
		},
	}
	c.Flags().BoolVar(&noBackup, "no-backup", false, "roll back without taking a backup first")
	c.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	return c
}
