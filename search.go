package sessiondb

import (
	"strings"
	"time"
	"unicode"
)

// SearchOptions filters and pages a full-text search.
type SearchOptions struct {
	// SessionID restricts the search to one session (an alias works too).
	SessionID string
	// Project restricts the search to the sessions whose Session.Project
	// contains it (case-insensitive for ASCII), as ListOptions.Project.
	Project string
	// Machine restricts the search to the sessions whose Session.Machine
	// equals it.
	Machine string
	// Role and Kind keep hits with that extracted role / entry kind.
	Role string
	Kind string
	// After and Before bound the entry's CreatedAt (inclusive; zero: open).
	After  time.Time
	Before time.Time
	// Limit caps the page (0: DefaultSearchLimit, at most MaxSearchLimit);
	// Offset skips that many hits. Hits are in one order whatever the page
	// (a common term's hits are ranked a block of 1,000 at a time, newest
	// block first), so paging by Offset never repeats or skips a hit.
	Limit  int
	Offset int
	// KeepWithheld: in a search of a redacted view
	// (SecretKeeper.Redacted), a hit whose terms occur only inside
	// secrets comes back as a Withheld hit, with every other field
	// empty, instead of being left out. A caller that pages by Offset
	// needs it: each store hit then keeps its place, so the next page
	// starts where this one ended. Show none of a withheld hit.
	KeepWithheld bool
}

// DefaultSearchLimit is the page size used when SearchOptions.Limit is 0.
const DefaultSearchLimit = 50

// MaxSearchLimit is the largest page a Search call returns.
const MaxSearchLimit = 1000

// MaxQueryLen bounds a search query, in bytes.
const MaxQueryLen = 4096

// Hit is one search result: a log entry, or a summary message of a
// compaction (then Summary is true and Seq is 0).
type Hit struct {
	SessionID    string
	SessionTitle string
	Seq          int64
	Summary      bool
	Kind         string
	Role         string
	CreatedAt    time.Time
	// Snippet is an excerpt of the entry's text with each match wrapped in
	// HighlightStart … HighlightEnd.
	Snippet string
	// Score orders hits: higher is better. Hits containing the whole query
	// as an exact phrase come first, then by bm25 relevance.
	Score float64
	// Withheld marks a hit a redacted search holds back (see
	// SearchOptions.KeepWithheld); its other fields are empty.
	Withheld bool
}

// Snippet highlight markers.
const (
	HighlightStart = "**"
	HighlightEnd   = "**"
)

// UsageQuery selects usage rows and how to group them.
type UsageQuery struct {
	// SessionID restricts to one session ("" for all).
	SessionID string
	// BySession, ByModel and ByDay choose the grouping; none gives one
	// grand-total row.
	BySession bool
	ByModel   bool
	ByDay     bool
	// ByProject groups by the project of the calls' sessions
	// (Session.Project), given in UsageRow.Project.
	ByProject bool
	// Project, when not "", keeps the calls of the sessions whose
	// Project contains it (case-insensitive for ASCII), as
	// ListOptions.Project.
	Project string
	// ByMachine groups by the machine of the calls' sessions
	// (Session.Machine), given in UsageRow.Machine. Machine, when not "",
	// keeps the calls of the sessions of that machine (exact match).
	ByMachine bool
	Machine   string
	// ByQuarterHour groups by the quarter of an hour (UTC) a call was made
	// in, given in UsageRow.Start. Every time zone in use today is a whole
	// number of quarter hours away from UTC, so these groups fold exactly
	// into the days and months of any zone, across DST changes and in
	// +05:30 or +05:45 zones alike: that is how `sessionctl usage --tz`
	// reports local days.
	ByQuarterHour bool
	// Since and Until, when not zero, keep only the calls made at or after
	// Since and before Until.
	Since, Until time.Time
	// Prices, when not nil, reports the rows whose cost is estimated
	// (Usage.CostEstimated) at the price it gives their model, as
	// Repricer.Reprice would set it, without changing them. Costs a tool
	// recorded, and rows of models Prices does not price, count as stored.
	Prices PriceFunc
}

// UsageRow is one group of a usage report. Fields not grouped by are empty.
type UsageRow struct {
	SessionID string
	Project   string
	Machine   string
	Provider  string
	Model     string
	Day       string    // YYYY-MM-DD, UTC
	Start     time.Time // start of the quarter hour (ByQuarterHour), UTC
	// FirstAt and LastAt are the times of the group's first and last call.
	FirstAt, LastAt time.Time
	UsageTotals
}

// SnippetPart is a piece of a Hit's Snippet: text, or a match of the
// query (without the markers).
type SnippetPart struct {
	Text  string
	Match bool
}

// SplitSnippet splits a Hit's Snippet into its text and its matches,
// without the markers, for a reader that shows matches its own way (a
// terminal's bold, a plain-text delimiter). query is the search's. The
// markers are "**", which text also holds (a glob's **/, markdown's
// bold), so a pair of markers counts only around text that holds a term
// of the query, as Search marks it; any other "**" stays text.
func SplitSnippet(snippet, query string) []SnippetPart {
	terms, _ := SearchTerms(query)
	for i, t := range terms {
		terms[i] = strings.Map(unicode.ToLower, t)
	}
	isMatch := func(s string) bool {
		if s == "" || strings.Contains(s, HighlightStart) {
			return false
		}
		f := strings.Map(unicode.ToLower, s)
		for _, t := range terms {
			if t != "" && strings.Contains(f, t) {
				return true
			}
		}
		return false
	}
	var out []SnippetPart
	text := func(s string) {
		if s == "" {
			return
		}
		if n := len(out); n > 0 && !out[n-1].Match {
			out[n-1].Text += s
			return
		}
		out = append(out, SnippetPart{Text: s})
	}
	done, from := 0, 0
	for {
		a := strings.Index(snippet[from:], HighlightStart)
		if a < 0 {
			break
		}
		a += from
		b := strings.Index(snippet[a+len(HighlightStart):], HighlightEnd)
		if b < 0 {
			break
		}
		b += a + len(HighlightStart)
		if inner := snippet[a+len(HighlightStart) : b]; isMatch(inner) {
			text(snippet[done:a])
			out = append(out, SnippetPart{Text: inner, Match: true})
			done = b + len(HighlightEnd)
			from = done
			continue
		}
		from = a + len(HighlightStart) // this marker is text
	}
	text(snippet[done:])
	return out
}
