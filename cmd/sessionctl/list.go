package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
)

type listOptions struct {
	limit   int
	query   string
	project string
	parent  string
	// archived keeps the sessions whose source is gone.
	archived bool
	json     bool
	wide     bool
	// noRedact shows secrets in titles and summaries as stored.
	noRedact bool
	// order is the key sessions are listed by (sessiondb.ListOrder), asc
	// turns it oldest (or A) first.
	order string
	asc   bool
}

func (a *app) listCommand() *cobra.Command {
	var o listOptions
	c := &cobra.Command{
		Use:   "list",
		Short: "List sessions, newest first (or by creation or ID)",
		Example: `  sessionctl list
  sessionctl list --query deploy --limit 20
  sessionctl list --project OpenCore
  sessionctl list --parent 20260320_143000_6f00bfe3f7c54b2f86d780df58ccf0a1
  sessionctl list --order id --asc --limit 0
  sessionctl list --json | jq -r '.[].id'`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if o.limit < 0 {
				return usageErrorf(c, "--limit must be >= 0, got %d", o.limit)
			}
			switch sessiondb.ListOrder(o.order) {
			case sessiondb.ByUpdated, sessiondb.ByCreated, sessiondb.ByID:
			default:
				return usageErrorf(c, "unknown --order %q: use updated, created or id", o.order)
			}
			return a.runList(o)
		},
	}
	c.Flags().IntVarP(&o.limit, "limit", "n", 100, "show at most N sessions (0: all)")
	c.Flags().StringVarP(&o.query, "query", "q", "", "only sessions whose title, an alias or project contains TEXT")
	c.Flags().StringVarP(&o.project, "project", "p", "", "only sessions whose project (working directory) contains TEXT")
	c.Flags().BoolVar(&o.wide, "wide", false, "print every column whole, however wide (the default when stdout is not a terminal)")
	c.Flags().StringVar(&o.parent, "parent", "", "only the forks of session `ID` (its ID, not an alias)")
	c.Flags().StringVar(&o.order, "order", "updated", "list by `KEY`: updated, created or id")
	c.Flags().BoolVar(&o.asc, "asc", false, "oldest (or lowest ID) first instead of newest first")
	c.Flags().BoolVar(&o.json, "json", false, "print a JSON array of sessions (with each one's preview: its first user message, cut to 200 characters)")
	c.Flags().BoolVar(&o.archived, "archived", false, "only the sessions whose source is gone (they exist only in sessiondb)")
	c.Flags().BoolVar(&o.noRedact, "no-redact", false, "show secrets in titles as stored instead of [REDACTED:rule]")
	return c
}

func (a *app) runList(o listOptions) error {
	if o.project != "" {
		// The filter is read as the projects were recorded: a path of
		// another machine's layout becomes this store's (projectmap.go).
		maps, err := a.pathMaps()
		if err != nil {
			return err
		}
		o.project = jsonlimport.MapPath(maps, o.project)
	}
	st, err := a.openRead(nil)
	if err != nil {
		return err
	}
	if !o.noRedact {
		st = redactedView(st)
	}
	infos, err := listSessionsOpts(a.ctx, st, sessiondb.ListOptions{Query: o.query, Project: o.project, ParentID: o.parent,
		Machine: a.machineFlag, Archived: o.archived, Order: sessiondb.ListOrder(o.order), Ascending: o.asc}, o.limit)
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
		case a.machineFlag != "":
			fmt.Fprintf(a.stdout, "no sessions from machine %q\n", a.machineFlag)
		case o.archived:
			fmt.Fprintln(a.stdout, "no sessions whose source is gone")
		case o.query != "" || o.project != "":
			fmt.Fprintf(a.stdout, "no sessions match %q\n", strings.TrimSpace(o.query+" "+o.project))
		default:
			fmt.Fprintln(a.stdout, "no sessions (import some with 'sessionctl import PATH')")
		}
		return nil
	}
	return listTable(infos, a.outWidth(o.wide)).write(a.stdout, a.outWidth(o.wide))
}

// listTable lays the sessions out for width (0: no limit, every cell
// whole). A terminal under compactWidth columns gets ID, day, message
// count and title; a wider one the time, format and project too, with
// titles and projects cut to fit.
func listTable(infos []sessiondb.SessionInfo, width int) *fitTable {
	compact := width > 0 && width < compactWidth
	t := &fitTable{cols: []fitCol{{head: "ID", own: true}, {head: "UPDATED (UTC)"}, {head: "MSGS", right: true},
		{head: "FORMAT"}, {head: "PROJECT", cut: 12, keepEnd: true}, {head: "TITLE", cut: 12}}}
	if compact {
		t.cols = []fitCol{{head: "ID", own: true}, {head: "UPDATED"}, {head: "MSGS", right: true}, {head: "TITLE", cut: 12}}
	}
	// A SOURCE column says which sessions exist only in sessiondb (their
	// source is gone), shown when the listing holds one.
	gone := false
	for _, si := range infos {
		gone = gone || si.Archived()
	}
	if gone {
		at := len(t.cols) - 1
		t.cols = append(t.cols[:at], append([]fitCol{{head: "SOURCE"}}, t.cols[at:]...)...)
	}
	for _, si := range infos {
		title := si.Title
		if title == "" && si.Preview != "" {
			// No title: the first user message says what the session was.
			title = "“" + squeezeSpace(si.Preview) + "”"
		}
		if len(si.Aliases) > 0 {
			title += " [" + strings.Join(si.Aliases, ", ") + "]"
		}
		format, project := orDash(si.SourceFormat), orDash(si.Project)
		updated := tableTime(si.UpdatedAt)
		var row []string
		switch {
		case compact:
			row = []string{cell(si.ID, 0), updated[:min(len(updated), 10)], fmt.Sprint(si.MessageCount), cell(title, 0)}
		case width > 0:
			row = []string{cell(si.ID, 0), updated[:min(len(updated), 16)], fmt.Sprint(si.MessageCount), format, cell(project, 0), cell(title, 0)}
		default:
			row = []string{cell(si.ID, 0), updated, fmt.Sprint(si.MessageCount), format, cell(project, 0), cell(title, 60)}
		}
		if gone {
			at := len(row) - 1
			row = append(row[:at], append([]string{sourceMark(si.Session)}, row[at:]...)...)
		}
		t.add(row...)
	}
	return t
}

// orDash is s, or "-" when empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// sourceMark is what the SOURCE column says of a session: "gone since
// DAY" when its source is gone (it exists only in sessiondb), "-"
// otherwise.
func sourceMark(s sessiondb.Session) string {
	if !s.Archived() {
		return "-"
	}
	return "gone " + s.SourceGoneAt.UTC().Format("2006-01-02")
}
