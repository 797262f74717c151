package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	// Time zone data in the binary, so that --tz works where the system
	// has none (containers, Windows).
	_ "time/tzdata"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
)

// The usage report, as Claude Code users know it from ccusage: tokens and
// cost per local day, month, session or model, for every format in the
// database and on either backend.
//
// Local days. The store groups the ledger by UTC quarter hour and model
// (sessiondb.UsageQuery.ByQuarterHour); each quarter hour falls within one
// day of any time zone in use today (all are a whole number of quarter
// hours off UTC, +05:30 and +05:45 included), so folding the quarter hours
// into days and months with the zone's rules is exact across DST changes.
// A quarter hour whose calls straddle a local midnight (a zone offset that
// is not a whole number of quarter hours, found in historical data only)
// is an error rather than a guess. --since and --until are local dates,
// both inclusive; they become the UTC instants of the local midnights
// that bound them, and the store selects the calls in between.

type usageOptions struct {
	since, until string
	tz           string
	breakdown    bool
	json         bool
	prices       string
	project      string
	wide         bool
}

func (a *app) usageCommand() *cobra.Command {
	var o usageOptions
	c := &cobra.Command{
		Use:   "usage [daily|monthly|session|model|project|machine]",
		Short: "Report tokens and cost per day, month, session, model, project or machine",
		Long: `Usage reports the usage ledger (the tokens and cost of every model call
imported or recorded) grouped by local day (the default), month, session,
model or project (the sessions' working directory), with the tokens and cost
of each group, the models used and a total. --project keeps the sessions
whose project contains TEXT. The machine view groups by the machine the
sessions were imported on; --machine NAME keeps that machine's sessions.
It is the report Claude Code users run with ccusage, for every format in the
database: its JSON uses ccusage's field names.

Days and months are those of --tz (an IANA time zone such as Europe/Paris or
Asia/Kolkata; default the local zone, as ccusage; UTC works), right across
DST changes and for +05:30/+05:45 zones. --since and --until are dates in
that zone (YYYY-MM-DD or YYYYMMDD), both inclusive. With --tz UTC, the days
are those of the usage_daily view and the figures equal its sums.

Costs are as stored: what the tool recorded (pi), or sessiondb's estimate
from its price table (Claude Code, Codex). With --prices FILE (or
$SESSIONDB_PRICES), estimated costs are computed from that price file over
the built-in prices for this report, without changing the database (see
sessionctl reprice to store them).

Tables list one row per group; --breakdown adds a row per model under each.
On a terminal they fit its width: below 100 columns the compact view (input,
output and cost, as ccusage's), session titles and projects on a line of
their own under each session; piped, or with --wide, every column whole.
With --json the report is one object ("since"/"until" are "" when open,
"prices" is "stored" without --prices):
{"timezone","since","until","prices","project",
 "daily"|"monthly"|"sessions"|"models"|"projects":[{"date"|"month"|"sessionId","title","project",
   "firstActivity","lastActivity"|"modelName"|"project", "calls","inputTokens","outputTokens",
   "cacheCreationTokens","cacheReadTokens","reasoningTokens","totalTokens","totalCost",
   "modelsUsed":[...],
   "modelBreakdowns":[{"modelName","calls","inputTokens","outputTokens",
     "cacheCreationTokens","cacheReadTokens","reasoningTokens","totalTokens","cost"}]}],
 "totals":{"calls","inputTokens","outputTokens","cacheCreationTokens",
   "cacheReadTokens","reasoningTokens","totalTokens","totalCost"}}
(the model view has no modelsUsed or modelBreakdowns). totalTokens is input +
output + cache creation + cache read, as ccusage counts it; reasoning tokens
are part of the output tokens. Calls whose model has no price (no price
list, built-in, LiteLLM's or --prices, has it) have an unknown cost: the
tables say "unpriced" (or "$X + unpriced" for a group where some calls are
priced), never $0.00, and the JSON gives "unpricedCalls" (left out when
0) beside "totalCost"/"cost", which then sums the priced calls only.`,
		Example: `  sessionctl usage                              # per day, local time
  sessionctl usage daily --since 2026-03-01 --breakdown
  sessionctl usage monthly --tz UTC --json
  sessionctl usage session --since 20260301 --until 20260331
  sessionctl usage project
  sessionctl usage daily --project OpenCore
  sessionctl usage model --prices model_prices_and_context_window.json`,
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: []string{"daily", "monthly", "session", "model", "project", "machine"},
		RunE: func(c *cobra.Command, args []string) error {
			view := "daily"
			if len(args) == 1 {
				view = args[0]
			}
			switch view {
			case "daily", "monthly", "session", "model", "project", "machine":
			default:
				return usageErrorf(c, "unknown usage view %q: use daily, monthly, session, model, project or machine", view)
			}
			return a.runUsage(c, view, o)
		},
	}
	c.Flags().StringVarP(&o.since, "since", "s", "", "first day to report, in --tz (YYYY-MM-DD or YYYYMMDD)")
	c.Flags().StringVarP(&o.until, "until", "u", "", "last day to report, inclusive, in --tz (YYYY-MM-DD or YYYYMMDD)")
	c.Flags().StringVarP(&o.tz, "tz", "z", "", "IANA time zone of days and months (default the local zone)")
	c.Flags().BoolVarP(&o.breakdown, "breakdown", "b", false, "add a row per model under each group (tables; JSON always has modelBreakdowns)")
	c.Flags().BoolVar(&o.json, "json", false, "print the report as JSON")
	c.Flags().StringVarP(&o.project, "project", "p", "", "only the sessions whose project (working directory) contains TEXT")
	c.Flags().BoolVar(&o.wide, "wide", false, "print every column whole, however wide (the default when stdout is not a terminal)")
	addPricesFlag(c, &o.prices)
	return c
}

// usageNumbers are the figures of a group, and their JSON.
type usageNumbers struct {
	Calls               int64   `json:"calls"`
	InputTokens         int64   `json:"inputTokens"`
	OutputTokens        int64   `json:"outputTokens"`
	CacheCreationTokens int64   `json:"cacheCreationTokens"`
	CacheReadTokens     int64   `json:"cacheReadTokens"`
	ReasoningTokens     int64   `json:"reasoningTokens"`
	TotalTokens         int64   `json:"totalTokens"`
	TotalCost           float64 `json:"totalCost"`
	// UnpricedCalls counts the calls whose cost is unknown (no price for
	// their model): TotalCost sums the others.
	UnpricedCalls int64 `json:"unpricedCalls,omitempty"`
}

func (n *usageNumbers) add(r sessiondb.UsageRow) {
	n.Calls += r.Calls
	n.InputTokens += r.InputTokens
	n.OutputTokens += r.OutputTokens
	n.CacheCreationTokens += r.CacheWriteTokens
	n.CacheReadTokens += r.CacheReadTokens
	n.ReasoningTokens += r.ReasoningTokens
	n.TotalTokens += r.InputTokens + r.OutputTokens + r.CacheWriteTokens + r.CacheReadTokens
	n.TotalCost += r.Cost
	n.UnpricedCalls += r.Unpriced
}

// modelBreakdown is one model's part of a group.
type modelBreakdown struct {
	ModelName           string  `json:"modelName"`
	Calls               int64   `json:"calls"`
	InputTokens         int64   `json:"inputTokens"`
	OutputTokens        int64   `json:"outputTokens"`
	CacheCreationTokens int64   `json:"cacheCreationTokens"`
	CacheReadTokens     int64   `json:"cacheReadTokens"`
	ReasoningTokens     int64   `json:"reasoningTokens"`
	TotalTokens         int64   `json:"totalTokens"`
	Cost                float64 `json:"cost"`
	UnpricedCalls       int64   `json:"unpricedCalls,omitempty"`
}

// usageGroup is what every grouped item of the report has.
type usageGroup struct {
	usageNumbers
	ModelsUsed      []string         `json:"modelsUsed"`
	ModelBreakdowns []modelBreakdown `json:"modelBreakdowns"`
}

type usageDay struct {
	Date string `json:"date"`
	usageGroup
}

type usageMonth struct {
	Month string `json:"month"`
	usageGroup
}

type usageSession struct {
	SessionID     string `json:"sessionId"`
	Title         string `json:"title"`
	Project       string `json:"project"`
	FirstActivity string `json:"firstActivity"`
	LastActivity  string `json:"lastActivity"`
	usageGroup
}

type usageProject struct {
	Project       string `json:"project"`
	Sessions      int    `json:"sessions"`
	FirstActivity string `json:"firstActivity"`
	LastActivity  string `json:"lastActivity"`
	usageGroup
}

// usageMachine is a group of the machine view: the calls of the sessions
// imported on one machine ("" for sessions no machine recorded).
type usageMachine struct {
	Machine       string `json:"machine"`
	Sessions      int    `json:"sessions"`
	FirstActivity string `json:"firstActivity"`
	LastActivity  string `json:"lastActivity"`
	usageGroup
}

type usageModel struct {
	ModelName     string `json:"modelName"`
	FirstActivity string `json:"firstActivity"`
	LastActivity  string `json:"lastActivity"`
	usageNumbers
}

// usageReport is the --json output of usage: exactly one of the lists is
// present, [] when nothing was used.
type usageReport struct {
	TimeZone string          `json:"timezone"`
	Since    string          `json:"since"`
	Until    string          `json:"until"`
	Prices   string          `json:"prices"`
	Project  string          `json:"project,omitempty"`
	Machine  string          `json:"machine,omitempty"`
	Daily    *[]usageDay     `json:"daily,omitempty"`
	Monthly  *[]usageMonth   `json:"monthly,omitempty"`
	Sessions *[]usageSession `json:"sessions,omitempty"`
	Models   *[]usageModel   `json:"models,omitempty"`
	Projects *[]usageProject `json:"projects,omitempty"`
	Machines *[]usageMachine `json:"machines,omitempty"`
	Totals   usageNumbers    `json:"totals"`
}

// group accumulates one group while the report is folded.
type group struct {
	key         string
	n           usageNumbers
	models      map[string]*modelBreakdown
	first, last time.Time
	sessions    map[string]bool // the project view: the sessions counted
}

func (g *group) add(model string, r sessiondb.UsageRow) {
	g.n.add(r)
	m := g.models[model]
	if m == nil {
		m = &modelBreakdown{ModelName: model}
		g.models[model] = m
	}
	m.Calls += r.Calls
	m.InputTokens += r.InputTokens
	m.OutputTokens += r.OutputTokens
	m.CacheCreationTokens += r.CacheWriteTokens
	m.CacheReadTokens += r.CacheReadTokens
	m.ReasoningTokens += r.ReasoningTokens
	m.TotalTokens += r.InputTokens + r.OutputTokens + r.CacheWriteTokens + r.CacheReadTokens
	m.Cost += r.Cost
	m.UnpricedCalls += r.Unpriced
	if !r.FirstAt.IsZero() && (g.first.IsZero() || r.FirstAt.Before(g.first)) {
		g.first = r.FirstAt
	}
	if r.LastAt.After(g.last) {
		g.last = r.LastAt
	}
}

// usageGroupOf lists g's models (by name) and breakdowns (by cost, most
// expensive first, then by name).
func usageGroupOf(g *group) usageGroup {
	out := usageGroup{usageNumbers: g.n, ModelsUsed: []string{}, ModelBreakdowns: []modelBreakdown{}}
	for name, m := range g.models {
		out.ModelsUsed = append(out.ModelsUsed, name)
		out.ModelBreakdowns = append(out.ModelBreakdowns, *m)
	}
	sort.Strings(out.ModelsUsed)
	sort.Slice(out.ModelBreakdowns, func(i, j int) bool {
		a, b := out.ModelBreakdowns[i], out.ModelBreakdowns[j]
		if a.Cost != b.Cost {
			return a.Cost > b.Cost
		}
		return a.ModelName < b.ModelName
	})
	return out
}

func (a *app) runUsage(c *cobra.Command, view string, o usageOptions) error {
	loc, zone, err := usageZone(o.tz)
	if err != nil {
		return usageErrorf(c, "%v", err)
	}
	since, err := parseUsageDate("--since", o.since)
	if err != nil {
		return usageErrorf(c, "%v", err)
	}
	until, err := parseUsageDate("--until", o.until)
	if err != nil {
		return usageErrorf(c, "%v", err)
	}
	if !since.IsZero() && !until.IsZero() && until.Before(since) {
		return usageErrorf(c, "--until %s is before --since %s", o.until, o.since)
	}
	table, given, err := a.priceTable(o.prices)
	if err != nil {
		return err
	}
	st, err := a.openRead(nil)
	if err != nil {
		return err
	}

	q := sessiondb.UsageQuery{ByModel: true, Project: o.project, Machine: a.machineFlag}
	rep := usageReport{TimeZone: zone, Prices: "stored", Project: o.project, Machine: a.machineFlag}
	// A bound outside the years a stored time can have (0001-9999 UTC) is
	// no bound: the end of 9999-12-31 is in year 10000, which the stores'
	// times do not reach (it compared as before them: 0 calls).
	if !since.IsZero() {
		if b := dayStart(since, loc); b.UTC().Year() >= 1 {
			q.Since = b
		}
		rep.Since = since.Format(time.DateOnly)
	}
	if !until.IsZero() {
		if b := dayStart(until.AddDate(0, 0, 1), loc); b.UTC().Year() <= 9999 {
			q.Until = b
		}
		rep.Until = until.Format(time.DateOnly)
	}
	if given {
		q.Prices = table.Func()
		rep.Prices = table.Source()
	}
	switch view {
	case "daily", "monthly":
		q.ByQuarterHour = true
	case "session":
		q.BySession = true
	case "project":
		q.ByProject, q.BySession = true, true
	case "machine":
		q.ByMachine, q.BySession = true, true
	}
	rows, err := st.UsageReport(a.ctx, q)
	if err != nil {
		return err
	}

	// Fold the rows into groups, in an order of our own: costs are sums of
	// doubles, and the same rows added in another order (the backends sort
	// text differently) would differ in their last digits.
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		if a.SessionID != b.SessionID {
			return a.SessionID < b.SessionID
		}
		if a.Provider != b.Provider {
			return a.Provider < b.Provider
		}
		return a.Model < b.Model
	})
	groups := map[string]*group{}
	for _, r := range rows {
		var key string
		switch view {
		case "daily", "monthly":
			day, err := localDay(r, loc, zone)
			if err != nil {
				return err
			}
			key = day
			if view == "monthly" {
				key = day[:7]
			}
		case "session":
			key = r.SessionID
		case "model":
			key = r.Model
		case "project":
			key = r.Project
		case "machine":
			key = r.Machine
		}
		g := groups[key]
		if g == nil {
			g = &group{key: key, models: map[string]*modelBreakdown{}, sessions: map[string]bool{}}
			groups[key] = g
		}
		if r.SessionID != "" {
			g.sessions[r.SessionID] = true
		}
		g.add(r.Model, r)
		rep.Totals.add(r)
	}
	ordered := make([]*group, 0, len(groups))
	for _, g := range groups {
		ordered = append(ordered, g)
	}
	sort.Slice(ordered, func(i, j int) bool {
		gi, gj := ordered[i], ordered[j]
		switch view {
		case "session": // by last activity, the latest last
			if !gi.last.Equal(gj.last) {
				return gi.last.Before(gj.last)
			}
		case "model", "project", "machine": // the most expensive first
			if gi.n.TotalCost != gj.n.TotalCost {
				return gi.n.TotalCost > gj.n.TotalCost
			}
		}
		return gi.key < gj.key
	})

	switch view {
	case "daily":
		list := []usageDay{}
		for _, g := range ordered {
			list = append(list, usageDay{Date: g.key, usageGroup: usageGroupOf(g)})
		}
		rep.Daily = &list
	case "monthly":
		list := []usageMonth{}
		for _, g := range ordered {
			list = append(list, usageMonth{Month: g.key, usageGroup: usageGroupOf(g)})
		}
		rep.Monthly = &list
	case "session":
		lookup, _ := st.(sessiondb.SessionLookup)
		list := []usageSession{}
		for _, g := range ordered {
			s := usageSession{SessionID: g.key, FirstActivity: jsonTime(g.first), LastActivity: jsonTime(g.last), usageGroup: usageGroupOf(g)}
			var sess sessiondb.Session
			if lookup != nil {
				sess, err = lookup.Lookup(a.ctx, g.key)
			} else {
				sess, err = st.Get(a.ctx, g.key)
			}
			if err == nil {
				s.Title, s.Project = sess.Title, sess.Project
			}
			list = append(list, s)
		}
		rep.Sessions = &list
	case "project":
		list := []usageProject{}
		for _, g := range ordered {
			list = append(list, usageProject{Project: g.key, Sessions: len(g.sessions), FirstActivity: jsonTime(g.first),
				LastActivity: jsonTime(g.last), usageGroup: usageGroupOf(g)})
		}
		rep.Projects = &list
	case "machine":
		list := []usageMachine{}
		for _, g := range ordered {
			list = append(list, usageMachine{Machine: g.key, Sessions: len(g.sessions), FirstActivity: jsonTime(g.first),
				LastActivity: jsonTime(g.last), usageGroup: usageGroupOf(g)})
		}
		rep.Machines = &list
	case "model":
		list := []usageModel{}
		for _, g := range ordered {
			list = append(list, usageModel{ModelName: g.key, FirstActivity: jsonTime(g.first), LastActivity: jsonTime(g.last), usageNumbers: g.n})
		}
		rep.Models = &list
	}
	if o.json {
		return writeJSON(a.stdout, rep)
	}
	return printUsage(a.stdout, view, rep, o.breakdown, a.outWidth(o.wide))
}

// usageZone resolves --tz: an IANA name, or the local zone when empty
// (or "Local").
func usageZone(name string) (*time.Location, string, error) {
	if name == "" || name == "Local" {
		return time.Local, localZoneName(), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, "", fmt.Errorf("unknown time zone %q for --tz: use an IANA name such as UTC, Europe/Paris or America/New_York", name)
	}
	return loc, loc.String(), nil
}

// localZoneName names the local zone for the report as Go chose it
// (time.Local): $TZ when set (UTC when empty or unknown), else the target
// of /etc/localtime, else "Local".
func localZoneName() string {
	if tz, ok := os.LookupEnv("TZ"); ok {
		tz = strings.TrimPrefix(tz, ":")
		if _, err := time.LoadLocation(tz); err != nil || tz == "" {
			return "UTC"
		}
		return tz
	}
	if target, err := filepath.EvalSymlinks("/etc/localtime"); err == nil {
		if i := strings.Index(target, "zoneinfo/"); i >= 0 {
			return target[i+len("zoneinfo/"):]
		}
	}
	return "Local"
}

// parseUsageDate reads a --since/--until date: YYYY-MM-DD or YYYYMMDD.
// The zero time means none.
func parseUsageDate(flag, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.DateOnly, "20060102"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%s %q is not a date: want YYYY-MM-DD or YYYYMMDD", flag, s)
}

// dayStart is the first instant of the day d (a date, read in UTC) in
// loc. Where DST starts at midnight (the day begins at 01:00) or ends
// there (00:00 happens twice), time.Date may give an instant of the day
// before or the second midnight: step by quarter hours until the instant
// is the first of d.
func dayStart(d time.Time, loc *time.Location) time.Time {
	want := d.Format(time.DateOnly)
	t := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc)
	for range 4 * 24 {
		if t.In(loc).Format(time.DateOnly) >= want {
			break
		}
		t = t.Add(15 * time.Minute)
	}
	for range 4 * 24 {
		if t.Add(-15*time.Minute).In(loc).Format(time.DateOnly) != want {
			break
		}
		t = t.Add(-15 * time.Minute)
	}
	return t
}

// localDay is the day, in loc, of the calls of r (a quarter-hour group).
func localDay(r sessiondb.UsageRow, loc *time.Location, zone string) (string, error) {
	day := r.Start.In(loc).Format(time.DateOnly)
	if end := r.Start.Add(15*time.Minute - time.Nanosecond).In(loc).Format(time.DateOnly); end == day {
		return day, nil
	}
	// The quarter hour straddles a local midnight: fine if its calls do
	// not.
	first, last := r.FirstAt.In(loc).Format(time.DateOnly), r.LastAt.In(loc).Format(time.DateOnly)
	if first == last {
		return first, nil
	}
	return "", fmt.Errorf("usage: time zone %s is not a whole number of quarter hours off UTC at %s, and calls of that quarter hour fall on two days: use another --tz",
		zone, r.Start.UTC().Format(time.RFC3339))
}

// printUsage writes the report as a table fitted to width (0: no limit;
// see table.go). Below compactWidth columns it is ccusage's compact view:
// input, output and cost. The session view on a terminal puts each
// session's title, project and models on a line of their own under it,
// since no terminal has room for them beside a session ID and the
// figures.
func printUsage(w io.Writer, view string, rep usageReport, breakdown bool, width int) error {
	title := map[string]string{"daily": "by day", "monthly": "by month", "session": "by session", "model": "by model", "project": "by project", "machine": "by machine"}[view]
	head := "usage " + title + ", time zone " + cell(rep.TimeZone, 0)
	switch {
	case rep.Since != "" && rep.Until != "":
		head += ", " + rep.Since + " to " + rep.Until
	case rep.Since != "":
		head += ", since " + rep.Since
	case rep.Until != "":
		head += ", until " + rep.Until
	}
	if rep.Project != "" {
		head += ", projects matching " + strconv.Quote(rep.Project)
	}
	if rep.Machine != "" {
		head += ", machine " + strconv.Quote(rep.Machine)
	}
	if rep.Prices != "stored" {
		head += "; estimated costs at " + cell(rep.Prices, 0)
	}
	fmt.Fprintln(w, head)
	if rep.Totals.Calls == 0 {
		fmt.Fprintln(w, "no usage recorded")
		return nil
	}
	fitted, compact := width > 0, width > 0 && width < compactWidth
	figures := []fitCol{{head: "INPUT", right: true}, {head: "OUTPUT", right: true}, {head: "CACHE CREATE", right: true},
		{head: "CACHE READ", right: true}, {head: "TOTAL TOKENS", right: true}, {head: "COST (USD)", right: true}}
	nums := func(n usageNumbers) []string {
		return []string{thousands(n.InputTokens), thousands(n.OutputTokens), thousands(n.CacheCreationTokens),
			thousands(n.CacheReadTokens), thousands(n.TotalTokens), costCell(n.TotalCost, n.UnpricedCalls, n.Calls)}
	}
	sub := func(m modelBreakdown) []string {
		return []string{thousands(m.InputTokens), thousands(m.OutputTokens), thousands(m.CacheCreationTokens),
			thousands(m.CacheReadTokens), thousands(m.TotalTokens), costCell(m.Cost, m.UnpricedCalls, m.Calls)}
	}
	if compact {
		// ccusage's compact mode: input, output and cost.
		figures = []fitCol{figures[0], figures[1], figures[5]}
		all := nums
		nums = func(n usageNumbers) []string { f := all(n); return []string{f[0], f[1], f[5]} }
		allSub := sub
		sub = func(m modelBreakdown) []string { f := allSub(m); return []string{f[0], f[1], f[5]} }
	}
	modelName := func(m string) string {
		if fitted {
			return shortModel(m)
		}
		return modelCell(m)
	}
	models := func(g usageGroup) string {
		names := make([]string, len(g.ModelsUsed))
		for i, m := range g.ModelsUsed {
			names[i] = modelName(m)
		}
		if fitted && len(names) > 2 {
			names = append(names[:2:2], fmt.Sprintf("+%d", len(g.ModelsUsed)-2))
		}
		max := 60
		if fitted {
			max = 0 // the table cuts it to the terminal
		}
		return cell(strings.Join(names, ", "), max)
	}
	t := &fitTable{}
	row := func(lead []string, n []string) { t.add(append(lead, n...)...) }
	breakdowns := func(lead int, g usageGroup) {
		if !breakdown {
			return
		}
		for _, m := range g.ModelBreakdowns {
			cells := make([]string, lead)
			cells[lead-1] = "└ " + modelName(m.ModelName)
			row(cells, sub(m))
		}
	}
	cols := func(lead ...fitCol) { t.cols = append(lead, figures...) }
	modelsCol := fitCol{head: "MODELS", cut: 12}
	switch view {
	case "daily":
		cols(fitCol{head: "DATE"}, modelsCol)
		for _, d := range *rep.Daily {
			row([]string{d.Date, models(d.usageGroup)}, nums(d.usageNumbers))
			breakdowns(2, d.usageGroup)
		}
		row([]string{"TOTAL", ""}, nums(rep.Totals))
	case "monthly":
		cols(fitCol{head: "MONTH"}, modelsCol)
		for _, m := range *rep.Monthly {
			row([]string{m.Month, models(m.usageGroup)}, nums(m.usageNumbers))
			breakdowns(2, m.usageGroup)
		}
		row([]string{"TOTAL", ""}, nums(rep.Totals))
	case "project":
		cols(fitCol{head: "PROJECT", cut: 16, keepEnd: true}, fitCol{head: "SESSIONS", right: true}, modelsCol)
		for _, p := range *rep.Projects {
			row([]string{cell(orDash(p.Project), 0), strconv.Itoa(p.Sessions), models(p.usageGroup)}, nums(p.usageNumbers))
			breakdowns(3, p.usageGroup)
		}
		row([]string{"TOTAL", "", ""}, nums(rep.Totals))
	case "machine":
		cols(fitCol{head: "MACHINE"}, fitCol{head: "SESSIONS", right: true}, modelsCol)
		for _, m := range *rep.Machines {
			row([]string{cell(orDash(m.Machine), 0), strconv.Itoa(m.Sessions), models(m.usageGroup)}, nums(m.usageNumbers))
			breakdowns(3, m.usageGroup)
		}
		row([]string{"TOTAL", "", ""}, nums(rep.Totals))
	case "session":
		if !fitted {
			cols(fitCol{head: "SESSION"}, fitCol{head: "PROJECT"}, fitCol{head: "TITLE"}, fitCol{head: "LAST ACTIVITY"}, fitCol{head: "MODELS"})
			for _, s := range *rep.Sessions {
				last, _ := time.Parse(time.RFC3339Nano, s.LastActivity)
				row([]string{cell(s.SessionID, 40), cell(orDash(s.Project), 0), cell(s.Title, 40), tableTime(last), models(s.usageGroup)}, nums(s.usageNumbers))
				breakdowns(5, s.usageGroup)
			}
			row([]string{"TOTAL", "", "", "", ""}, nums(rep.Totals))
			break
		}
		// A terminal: the ID, the day and the figures on the row, the
		// rest on a line under it.
		cols(fitCol{head: "SESSION", own: true}, fitCol{head: "LAST"})
		for _, s := range *rep.Sessions {
			last, _ := time.Parse(time.RFC3339Nano, s.LastActivity)
			var about []string
			if s.Title != "" {
				about = append(about, cell(s.Title, 0))
			}
			if s.Project != "" {
				about = append(about, cell(s.Project, 0))
			}
			about = append(about, models(s.usageGroup))
			t.addSub(strings.Join(about, " · "), append([]string{cell(s.SessionID, 0), tableTime(last)[:10]}, nums(s.usageNumbers)...)...)
			breakdowns(2, s.usageGroup)
		}
		row([]string{"TOTAL", ""}, nums(rep.Totals))
	case "model":
		cols(fitCol{head: "MODEL", cut: 12}, fitCol{head: "CALLS", right: true})
		for _, m := range *rep.Models {
			row([]string{modelName(m.ModelName), thousands(m.Calls)}, nums(m.usageNumbers))
		}
		row([]string{"TOTAL", thousands(rep.Totals.Calls)}, nums(rep.Totals))
	}
	if err := t.write(w, width); err != nil {
		return err
	}
	if compact {
		_, err := fmt.Fprintf(w, "compact view: --wide (or %d+ columns) adds the cache and total tokens\n", compactWidth)
		return err
	}
	return nil
}

// shortModel names a model briefly for a terminal, as ccusage does:
// Anthropic's "claude-" prefix and a snapshot date dropped
// (claude-opus-4-5-20251101 is opus-4-5); other names as they are.
func shortModel(m string) string {
	if m == "" {
		return "(none)"
	}
	s := strings.TrimPrefix(m, "claude-")
	if i := strings.LastIndexByte(s, '-'); i > 0 && len(s)-i-1 == 8 {
		if _, err := strconv.Atoi(s[i+1:]); err == nil {
			s = s[:i]
		}
	}
	return cell(s, 0)
}

// thousands writes n with thousands separators: 1,234,567.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// costCell writes the cost of calls of which unpriced have no price:
// "unpriced" when none has one, the priced part and "+ unpriced" when
// some lack one, never "$0.00" for calls whose cost is unknown.
func costCell(cost float64, unpriced, calls int64) string {
	switch {
	case unpriced == 0:
		return dollars(cost)
	case unpriced >= calls:
		return "unpriced"
	}
	return dollars(cost) + " + unpriced"
}

// dollars writes a cost in US dollars, to the cent ("$0.00" for less).
func dollars(x float64) string {
	return "$" + strconv.FormatFloat(x, 'f', 2, 64)
}
