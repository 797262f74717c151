package main

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
)

type searchOptions struct {
	session string
	project string
	role    string
	kind    string
	limit   int
	json    bool
	wide    bool
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

Each hit shows the session, the log position (seq; "summary" for a
compaction summary), the role, the time and a snippet of the text. On a
terminal the snippet is on a line of its own under its hit, cut to the
terminal's width, with the matches in bold; piped, or with --wide, each hit
is one line and the snippet plain text. --json keeps the store's snippet,
matches between ** and **.`,
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
	c.Flags().StringVarP(&o.project, "project", "p", "", "search only the sessions whose project (working directory) contains TEXT")
	c.Flags().BoolVar(&o.wide, "wide", false, "one line a hit, snippets as plain text (the default when stdout is not a terminal)")
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
	opts := sessiondb.SearchOptions{Role: o.role, Kind: o.kind, Limit: o.limit, Project: o.project, Machine: a.machineFlag}
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
	// A Codex prompt or answer is found twice, in its message and in the
	// event_msg echo; people see it once (--json keeps every hit).
	hits = jsonlimport.DropEchoes(hits)
	width := a.outWidth(o.wide)
	bold := a.stdoutTTY && !o.wide
	t := &fitTable{cols: []fitCol{{head: "SESSION", own: true}, {head: "SEQ", right: true}, {head: "ROLE"}, {head: "CREATED (UTC)"}}}
	if width == 0 {
		t.cols = append(t.cols, fitCol{head: "SNIPPET"})
	}
	for _, h := range hits {
		seq := fmt.Sprint(h.Seq)
		if h.Summary {
			seq = "summary"
		}
		parts := sessiondb.SplitSnippet(h.Snippet, query)
		if width == 0 {
			// Piped (or --wide): one line a hit, the snippet as text.
			t.add(cell(h.SessionID, 0), seq, cell(h.Role, 20), tableTime(h.CreatedAt), snippetText(parts, foldWidth, false))
			continue
		}
		// A terminal: the snippet on its own line under its hit, cut to
		// the width, matches in bold.
		t.addSub(snippetText(parts, width-4, bold), cell(h.SessionID, 0), seq, cell(h.Role, 20), tableTime(h.CreatedAt)[:16])
	}
	return t.write(a.stdout, width)
}

// Terminal bold on and off (SGR 1 and 22).
const (
	boldOn  = "\x1b[1m"
	boldOff = "\x1b[22m"
)

// snippetText renders a snippet's parts (sessiondb.SplitSnippet) as one
// line of at most limit runes of text (0: no limit): whitespace runs made
// one space, terminal controls made visible, matches in bold when bold.
// The markers never show: a terminal gets bold, a pipe plain text. When
// the first match would fall beyond the line, the start is cut ("…") so
// that it shows.
func snippetText(parts []sessiondb.SnippetPart, limit int, bold bool) string {
	type seg struct {
		r     []rune
		match bool
	}
	var segs []seg
	var all []rune
	first := -1
	for _, p := range parts {
		t := p.Text
		lead := t != "" && unicode.IsSpace(rune(t[0]))
		trail := t != "" && unicode.IsSpace(rune(t[len(t)-1]))
		t = visible(strings.Join(strings.FieldsFunc(t, unicode.IsSpace), " "))
		if lead && len(all) > 0 {
			t = " " + t
		}
		if trail && t != "" && t != " " {
			t += " "
		}
		if strings.TrimSpace(t) == "" {
			t = strings.TrimSpace(t)
			if lead || trail {
				t = " "
			}
		}
		r := []rune(t)
		if len(all) > 0 && len(r) > 0 && r[0] == ' ' && all[len(all)-1] == ' ' {
			r = r[1:]
		}
		if p.Match && first < 0 {
			first = len(all)
		}
		segs = append(segs, seg{r, p.Match})
		all = append(all, r...)
	}
	from, to := 0, len(all)
	if limit > 0 && len(all) > limit {
		if first > limit/3 {
			from = first - limit/3
		}
		room := limit
		if from > 0 {
			room-- // the leading "…"
		}
		to = min(len(all), from+room)
		if to < len(all) {
			to-- // the trailing "…"
		}
	}
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	at := 0
	for _, sg := range segs {
		lo, hi := max(from-at, 0), min(len(sg.r), to-at)
		at += len(sg.r)
		if lo >= hi {
			continue
		}
		piece := string(sg.r[lo:hi])
		if sg.match && bold {
			piece = boldOn + piece + boldOff
		}
		b.WriteString(piece)
	}
	if to < len(all) {
		b.WriteString("…")
	}
	return b.String()
}
