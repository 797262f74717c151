// Package sessionview reads what tests compare between two stores that
// imported the same files (a live mirror against one import of the final
// files): each session's log byte for byte, its effective transcript,
// usage totals, state, interrupt, title and parent. It is shared by the
// tests of package watch and the torture suite.
package sessionview

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/sessiondb/sessiondb"
)

// Session is one session as the comparisons see it.
type Session struct {
	// Format is the source format it was imported from.
	Format string
	// Log is every log row, "seq kind role body".
	Log []string
	// Transcript is the effective transcript, "kind role body".
	Transcript []string
	Usage      sessiondb.UsageTotals
	State      string
	Interrupt  string
	Title      string
	Parent     string
}

// Read reads every session of st.
func Read(ctx context.Context, st sessiondb.Store) (map[string]Session, error) {
	out := map[string]Session{}
	cursor := ""
	for {
		infos, next, err := st.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit, Cursor: cursor})
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		for _, in := range infos {
			s, err := read(ctx, st, in.ID)
			if err != nil {
				return nil, err
			}
			out[in.ID] = s
		}
		if next == "" || len(infos) == 0 {
			return out, nil
		}
		cursor = next
	}
}

func read(ctx context.Context, st sessiondb.Store, id string) (Session, error) {
	var v Session
	es, err := st.Entries(ctx, id, 1, 1<<62)
	if err != nil {
		return v, fmt.Errorf("read log of %s: %w", id, err)
	}
	for _, e := range es {
		v.Log = append(v.Log, fmt.Sprintf("%d %s %s %s", e.Seq, e.Kind, e.Role, e.Body))
	}
	full, err := st.LoadFull(ctx, id, sessiondb.LoadOptions{})
	if err != nil {
		return v, fmt.Errorf("load %s: %w", id, err)
	}
	for _, e := range full.Transcript {
		v.Transcript = append(v.Transcript, fmt.Sprintf("%s %s %s", e.Kind, e.Role, e.Body))
	}
	v.Format = full.Session.SourceFormat
	v.State, v.Interrupt = string(full.State), string(full.Interrupt)
	v.Title, v.Parent = full.Session.Title, full.Session.ParentID
	if v.Usage, err = st.UsageTotals(ctx, id); err != nil {
		return v, fmt.Errorf("usage of %s: %w", id, err)
	}
	return v, nil
}

// Diff is how one session of got differs from want.
type Diff struct {
	ID     string
	Format string
	// LogOnly is true when only the log differs (transcript, usage,
	// state, interrupt, title and parent are equal).
	LogOnly bool
	Reason  string
}

func (d Diff) String() string { return fmt.Sprintf("session %s (%s): %s", d.ID, d.Format, d.Reason) }

// Compare returns how got differs from want, session by session.
func Compare(got, want map[string]Session) []Diff {
	ids := map[string]bool{}
	for id := range got {
		ids[id] = true
	}
	for id := range want {
		ids[id] = true
	}
	sorted := make([]string, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Strings(sorted)
	var out []Diff
	for _, id := range sorted {
		g, gok := got[id]
		w, wok := want[id]
		format := w.Format
		if !wok {
			format = g.Format
		}
		d := Diff{ID: id, Format: format}
		var reasons []string
		switch {
		case !gok:
			reasons = append(reasons, "missing")
		case !wok:
			reasons = append(reasons, "not in one import of the final files")
		default:
			if r := firstDiff("effective transcript", g.Transcript, w.Transcript); r != "" {
				reasons = append(reasons, r)
			}
			if !sameUsage(g.Usage, w.Usage) {
				reasons = append(reasons, fmt.Sprintf("usage totals %+v, want %+v", g.Usage, w.Usage))
			}
			if g.State != w.State || g.Interrupt != w.Interrupt {
				reasons = append(reasons, fmt.Sprintf("state %.80q interrupt %.80q, want %.80q %.80q", g.State, g.Interrupt, w.State, w.Interrupt))
			}
			if g.Title != w.Title || g.Parent != w.Parent {
				reasons = append(reasons, fmt.Sprintf("title %q parent %q, want %q %q", g.Title, g.Parent, w.Title, w.Parent))
			}
			d.LogOnly = len(reasons) == 0
			if r := firstDiff("log", g.Log, w.Log); r != "" {
				reasons = append(reasons, r)
			} else {
				d.LogOnly = false
			}
		}
		if len(reasons) > 0 {
			d.Reason = strings.Join(reasons, "; ")
			out = append(out, d)
		}
	}
	return out
}

// sameUsage compares usage totals; costs are sums of floats, which the
// backends add in different orders, so they may differ in the last bits.
func sameUsage(a, b sessiondb.UsageTotals) bool {
	ca, cb := a.Cost, b.Cost
	a.Cost, b.Cost = 0, 0
	return a == b && math.Abs(ca-cb) <= 1e-9*max(1, math.Abs(cb))
}

func firstDiff(what string, got, want []string) string {
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("%s of %d rows, want %d; first difference at row %d: got %.200q, want %.200q", what, len(got), len(want), i+1, g, w)
		}
	}
	return ""
}
