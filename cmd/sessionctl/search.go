package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
)

type searchOptions struct {
	session string
	role    string
	kind    string
	limit   int
	json    bool
	// noRedact shows secrets as stored.
	noRedact bool
}

func (a *app) searchCommand() *cobra.Command {
	var o searchOptions
	c := &cobra.Command{
		Use:   "search QUERY",
		Short: "Full-text search over every transcript",
		Long: `Search finds log entries and compaction summaries whose text contains every
term of QUERY (or a "quoted phrase"). Hits with the whole query as a phrase
come first, then by relevance. The query is never interpreted as search
syntax, so any text is safe to pass.

The table shows the session, the log position (seq; "summary" for a
compaction summary), the role and a snippet with matches in **bold**.`,
		Example: `  sessionctl search "database is locked"
  sessionctl search deploy --session my-alias --role assistant --json`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if o.limit < 0 {
				return usageErrorf(c, "--limit must be >= 0, got %d", o.limit)
			}
			if o.limit > sessiondb.MaxSearchLimit {
				return usageErrorf(c, "--limit must be at most %d, got %d", sessiondb.MaxSearchLimit, o.limit)
			}
			return a.runSearch(args[0], o)
		},
	}
	c.Flags().StringVarP(&o.session, "session", "s", "", "search only this session (ID or alias)")
	c.Flags().StringVar(&o.role, "role", "", "only entries with this role (user, assistant, tool, …)")
	c.Flags().StringVar(&o.kind, "kind", "", "only entries of this kind (message, custom, …)")
	c.Flags().IntVarP(&o.limit, "limit", "n", sessiondb.DefaultSearchLimit, "show at most N hits")
	c.Flags().BoolVar(&o.json, "json", false, "print the hits as a JSON array")
	c.Flags().BoolVar(&o.noRedact, "no-redact", false, "show secrets in snippets as stored instead of [REDACTED:rule], and find hits inside them")
	return c
}

type hitJSON struct {
	SessionID    string  `json:"session_id"`
	SessionTitle string  `json:"session_title"`
	Seq          int64   `json:"seq"`
	Summary      bool    `json:"summary"`
	Kind         string  `json:"kind"`
	Role         string  `json:"role"`
	CreatedAt    string  `json:"created_at"`
	Snippet      string  `json:"snippet"`
	Score        float64 `json:"score"`
}

func (a *app) runSearch(query string, o searchOptions) error {
	st, err := a.openRead(nil)
	if err != nil {
		return err
	}
	opts := sessiondb.SearchOptions{Role: o.role, Kind: o.kind, Limit: o.limit}
	if o.session != "" {
		if opts.SessionID, err = resolve(a.ctx, st, o.session); err != nil {
			return err
		}
	}
	if !o.noRedact {
		st = redactedView(st)
	}
	hits, err := st.Search(a.ctx, query, opts)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if o.json {
		out := make([]hitJSON, 0, len(hits))
		for _, h := range hits {
			out = append(out, hitJSON{
				SessionID: h.SessionID, SessionTitle: h.SessionTitle, Seq: h.Seq, Summary: h.Summary,
				Kind: h.Kind, Role: h.Role, CreatedAt: jsonTime(h.CreatedAt), Snippet: h.Snippet, Score: h.Score,
			})
		}
		return writeJSON(a.stdout, out)
	}
	if len(hits) == 0 {
		fmt.Fprintf(a.stdout, "no matches for %q\n", query)
		return nil
	}
	tw := newTable(a.stdout)
	fmt.Fprintln(tw, "SESSION\tSEQ\tROLE\tCREATED (UTC)\tSNIPPET")
	// A Codex prompt or answer is found twice, in its message and in the
	// event_msg echo; people see it once (--json keeps every hit).
	for _, h := range jsonlimport.DropEchoes(hits) {
		seq := fmt.Sprint(h.Seq)
		if h.Summary {
			seq = "summary"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", cell(h.SessionID, 0), seq, cell(h.Role, 20), tableTime(h.CreatedAt), fold(h.Snippet))
	}
	return tw.Flush()
}
