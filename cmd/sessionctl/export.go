package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb/jsonlimport"
)

type exportOptions struct {
	all    bool
	format string
	out    string
	json   bool
}

func (a *app) exportCommand() *cobra.Command {
	var o exportOptions
	c := &cobra.Command{
		Use:   "export (ID... | --all) --format picoclaw|zot|swink --out DIR",
		Short: "Write sessions back in a source tool's format",
		Long: `Export writes sessions into DIR in the chosen format, such that the source
tool's own loader returns the same transcript. It prints the files written,
one per line (--json: a JSON array of paths). IDs may be aliases.`,
		Example: `  sessionctl export my-alias --format picoclaw --out /tmp/picoclaw
  sessionctl export --all --format zot --out backup/ --json`,
		ValidArgsFunction: a.completeSessions(true),
		RunE: func(c *cobra.Command, args []string) error {
			switch {
			case o.all && len(args) > 0:
				return usageErrorf(c, "give session IDs or --all, not both")
			case !o.all && len(args) == 0:
				return usageErrorf(c, "give at least one session ID, or --all")
			}
			switch o.format {
			case jsonlimport.FormatPicoclaw, jsonlimport.FormatZot, jsonlimport.FormatSwink:
			case "":
				return usageErrorf(c, "--format is required: picoclaw, zot or swink")
			default:
				return usageErrorf(c, "unknown --format %q: use picoclaw, zot or swink", o.format)
			}
			if o.out == "" {
				return usageErrorf(c, "--out DIR is required")
			}
			return a.runExport(args, o)
		},
	}
	c.Flags().BoolVar(&o.all, "all", false, "export every session")
	c.Flags().StringVarP(&o.format, "format", "f", "", "output format: picoclaw, zot or swink")
	c.Flags().StringVarP(&o.out, "out", "o", "", "output directory (created if missing)")
	c.Flags().BoolVar(&o.json, "json", false, "print the files written as a JSON array")
	return c
}

func (a *app) runExport(args []string, o exportOptions) error {
	st, err := a.open(nil)
	if err != nil {
		return err
	}
	var ids []string
	if o.all {
		if ids, err = allSessionIDs(a.ctx, st); err != nil {
			return err
		}
	} else {
		ids, err = resolveAll(a.ctx, st, args)
		if err != nil {
			return err
		}
	}
	if err := os.MkdirAll(o.out, 0o700); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	files, err := jsonlimport.Export(a.ctx, st, ids, o.format, o.out)
	if err != nil {
		return fmt.Errorf("export to %s: %w", o.out, err)
	}
	if o.json {
		if files == nil {
			files = []string{}
		}
		return writeJSON(a.stdout, files)
	}
	for _, f := range files {
		fmt.Fprintln(a.stdout, f)
	}
	return nil
}
