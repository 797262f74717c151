package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
)

type listOptions struct {
	limit  int
	query  string
	parent string
	json   bool
	// noRedact shows secrets in titles and summaries as stored.
	noRedact bool
}

func (a *app) listCommand() *cobra.Command {
	var o listOptions
	c := &cobra.Command{
		Use:   "list",
		Short: "List sessions, newest first",
		Example: `  sessionctl list
  sessionctl list --query deploy --limit 20
  sessionctl list --parent 20260320_143000_6f00bfe3f7c54b2f86d780df58ccf0a1
  sessionctl list --json | jq -r '.[].id'`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if o.limit < 0 {
				return usageErrorf(c, "--limit must be >= 0, got %d", o.limit)
			}
			return a.runList(o)
		},
	}
	c.Flags().IntVarP(&o.limit, "limit", "n", 100, "show at most N sessions (0: all)")
	c.Flags().StringVarP(&o.query, "query", "q", "", "only sessions whose title or an alias contains TEXT")
	c.Flags().StringVar(&o.parent, "parent", "", "only the forks of session `ID` (its ID, not an alias)")
	c.Flags().BoolVar(&o.json, "json", false, "print a JSON array of sessions")
	c.Flags().BoolVar(&o.noRedact, "no-redact", false, "show secrets in titles as stored instead of [REDACTED:rule]")
	return c
}

func (a *app) runList(o listOptions) error {
	st, err := a.openRead(nil)
	if err != nil {
		return err
	}
	if !o.noRedact {
		st = redactedView(st)
	}
	infos, err := listSessionsOpts(a.ctx, st, sessiondb.ListOptions{Query: o.query, ParentID: o.parent}, o.limit)
	if err != nil {
		return fmt.Errorf("list sessions: %w", err)
	}
	if o.json {
		out := make([]sessionJSON, 0, len(infos))
		for _, si := range infos {
			out = append(out, infoToJSON(si))
		}
		return writeJSON(a.stdout, out)
	}
	if len(infos) == 0 {
		switch {
		case o.parent != "" && o.query != "":
			fmt.Fprintf(a.stdout, "no forks of %q match %q\n", o.parent, o.query)
		case o.parent != "":
			fmt.Fprintf(a.stdout, "no forks of %q\n", o.parent)
		case o.query != "":
			fmt.Fprintf(a.stdout, "no sessions match %q\n", o.query)
		default:
			fmt.Fprintln(a.stdout, "no sessions (import some with 'sessionctl import PATH')")
		}
		return nil
	}
	tw := newTable(a.stdout)
	fmt.Fprintln(tw, "ID\tUPDATED (UTC)\tMSGS\tFORMAT\tTITLE")
	for _, si := range infos {
		title := si.Title
		if len(si.Aliases) > 0 {
			title += " [" + strings.Join(si.Aliases, ", ") + "]"
		}
		format := si.SourceFormat
		if format == "" {
			format = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", cell(si.ID, 0), tableTime(si.UpdatedAt), si.MessageCount, format, cell(title, 60))
	}
	return tw.Flush()
}
