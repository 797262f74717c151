package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb/migrations"
)

// version is the release version, set at build time with
// -ldflags "-X main.version=v1.2.3"; otherwise the module version from the
// build information is used.
var version = ""

func (a *app) versionCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:     "version",
		Short:   "Print the version of sessionctl and of the schema it writes",
		Example: `  sessionctl version --json`,
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			v := buildVersion()
			schema, err := migrations.Latest()
			if err != nil {
				return fmt.Errorf("read embedded migrations: %w", err)
			}
			if asJSON {
				return writeJSON(a.stdout, struct {
					Version string `json:"version"`
					Schema  int64  `json:"schema"`
					Go      string `json:"go"`
				}{v, schema, runtime.Version()})
			}
			fmt.Fprintf(a.stdout, "sessionctl %s (schema version %d, %s)\n", v, schema, runtime.Version())
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the versions as JSON")
	return c
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
