package viewer

import (
	"fmt"
	"math"
	"net/http"
	"sort"

	"github.com/sessiondb/sessiondb"
)

// chart is a bar chart drawn as inline SVG by the template from these
// numbers: no script, no external library. Labels are text nodes, escaped
// by html/template like everything else.
type chart struct {
	Title  string
	Width  int
	Height int
	Bars   []bar
	Max    string
	// Horizontal: one row per bar, label on the left (hbarChart).
	Horizontal bool
}

type bar struct {
	X, Y, W, H int
	Label      string
	Value      string
	LabelX     int
	LabelY     int
	ShowLabel  bool
	Anchor     string // text-anchor of the label: middle (under a bar) or end (left of it)
	ValueX     int    // horizontal charts: where the value is written, after the bar
}

const (
	chartW     = 640
	chartH     = 180
	chartPadB  = 28
	chartPadT  = 12
	chartInner = chartH - chartPadB - chartPadT
)

// barChart lays out vertical bars for values, labels under every
// n-th bar so they do not overlap.
func barChart(title string, labels []string, values []float64, format func(float64) string) chart {
	c := chart{Title: title, Width: chartW, Height: chartH}
	if len(values) == 0 {
		return c
	}
	hi := 0.0
	for _, v := range values {
		hi = math.Max(hi, v)
	}
	c.Max = format(hi)
	slot := float64(chartW-8) / float64(len(values))
	every := int(math.Ceil(float64(len(values)) * 70 / chartW))
	for i, v := range values {
		hgt := 0
		if hi > 0 {
			hgt = int(math.Round(v / hi * chartInner))
		}
		if v > 0 && hgt == 0 {
			hgt = 1
		}
		x := 4 + int(float64(i)*slot)
		w := max(1, int(slot*0.8))
		c.Bars = append(c.Bars, bar{
			X: x, Y: chartPadT + chartInner - hgt, W: w, H: hgt,
			Label: labels[i], Value: format(v),
			LabelX: x + w/2, LabelY: chartH - 10, ShowLabel: every <= 1 || i%every == 0, Anchor: "middle",
		})
	}
	return c
}

// hbarChart lays out horizontal bars, one row per label, for categories
// whose names are too long to sit under a bar (models).
func hbarChart(title string, labels []string, values []float64, format func(float64) string) chart {
	const rowH, labelW, valueW = 22, 190, 80
	c := chart{Title: title, Width: chartW, Height: len(values)*rowH + 8, Horizontal: true}
	if len(values) == 0 {
		return c
	}
	hi := 0.0
	for _, v := range values {
		hi = math.Max(hi, v)
	}
	c.Max = format(hi)
	span := float64(chartW - labelW - valueW)
	for i, v := range values {
		w := 0
		if hi > 0 {
			w = int(math.Round(v / hi * span))
		}
		if v > 0 && w == 0 {
			w = 1
		}
		label, cut := clip(labels[i], 28)
		if cut {
			label += "…"
		}
		y := 4 + i*rowH
		c.Bars = append(c.Bars, bar{
			X: labelW, Y: y + 3, W: w, H: rowH - 8, Label: label, Value: format(v),
			LabelX: labelW - 6, LabelY: y + rowH/2 + 4, ShowLabel: true, Anchor: "end", ValueX: labelW + w + 6,
		})
	}
	return c
}

type usageData struct {
	Title    string
	Days     []sessiondb.UsageRow
	Models   []sessiondb.UsageRow
	Total    sessiondb.UsageTotals
	Charts   []chart
	Session  string
	ModelMax float64
}

func tokens(u sessiondb.UsageTotals) int64 {
	return u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens
}

func (h *Handler) usagePage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	d := usageData{Title: "Usage"}
	q := sessiondb.UsageQuery{ByDay: true}
	if sid := r.URL.Query().Get("session"); sid != "" {
		id, err := h.st.Resolve(ctx, sid)
		if err != nil {
			h.fail(w, r, status(err), err)
			return
		}
		q.SessionID, d.Session = id, id
	}
	days, err := h.st.UsageReport(ctx, q)
	if err != nil {
		h.fail(w, r, status(err), err)
		return
	}
	q.ByDay, q.ByModel = false, true
	models, err := h.st.UsageReport(ctx, q)
	if err != nil {
		h.fail(w, r, status(err), err)
		return
	}
	sort.Slice(days, func(i, j int) bool { return days[i].Day < days[j].Day })
	sort.Slice(models, func(i, j int) bool { return models[i].Cost > models[j].Cost })
	d.Days, d.Models = days, models
	var labels []string
	var tok, cst []float64
	for _, u := range days {
		labels = append(labels, u.Day)
		tok = append(tok, float64(tokens(u.UsageTotals)))
		cst = append(cst, u.Cost)
		d.Total.Calls += u.Calls
		d.Total.InputTokens += u.InputTokens
		d.Total.OutputTokens += u.OutputTokens
		d.Total.CacheReadTokens += u.CacheReadTokens
		d.Total.CacheWriteTokens += u.CacheWriteTokens
		d.Total.ReasoningTokens += u.ReasoningTokens
		d.Total.Cost += u.Cost
		d.Total.Unpriced += u.Unpriced
	}
	intf := func(v float64) string { return formatInt(int64(v)) }
	costf := func(v float64) string { return fmt.Sprintf("$%.2f", v) }
	perDay := barChart("Cost per day", labels, cst, costf)
	unpricedBars(perDay.Bars, days)
	d.Charts = append(d.Charts, barChart("Tokens per day", labels, tok, intf), perDay)
	var ml []string
	var mc, mt []float64
	for _, u := range models {
		ml = append(ml, u.Model)
		mc = append(mc, u.Cost)
		mt = append(mt, float64(tokens(u.UsageTotals)))
	}
	perModel := hbarChart("Cost per model", ml, mc, costf)
	unpricedBars(perModel.Bars, models)
	d.Charts = append(d.Charts, perModel, hbarChart("Tokens per model", ml, mt, intf))
	h.render(w, r, http.StatusOK, "usage", d)
}

// unpricedBars labels the cost bars of rows whose calls have no price
// "unpriced" (their cost is unknown, not $0.00); bars[i] is rows[i]'s.
func unpricedBars(bars []bar, rows []sessiondb.UsageRow) {
	for i := range bars {
		if i < len(rows) && rows[i].Unpriced > 0 {
			bars[i].Value = costText(rows[i].Cost, rows[i].Unpriced, rows[i].Calls)
		}
	}
}

// costText is a cost as the pages show it: "unpriced" for calls none of
// which has a price, "$X + unpriced" when some lack one (issue 38: an
// unknown cost is never shown as $0.00).
func costText(cost float64, unpriced, calls int64) string {
	switch {
	case unpriced == 0:
		return fmt.Sprintf("$%.2f", cost)
	case unpriced >= calls:
		return "unpriced"
	}
	return fmt.Sprintf("$%.2f + unpriced", cost)
}
