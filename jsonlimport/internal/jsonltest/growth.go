package jsonltest

// Growth equality (issue 21, item 0): a file imported at several growing
// prefixes, then whole, must leave the store exactly as one import of the
// final file does. GrowthSnapshot is what is compared.

import (
	"context"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// GrowthEntry is one log or transcript entry as compared.
type GrowthEntry struct {
	Kind, Role string
	Summary    bool
	CreatedAt  time.Time
	Body       string
}

// GrowthSession is everything compared of one session.
type GrowthSession struct {
	Title      string
	Summary    string
	Attrs      string
	ParentID   string
	ForkSeq    int64
	CreatedAt  time.Time
	UpdatedAt  time.Time
	Messages   int64
	Log        []GrowthEntry
	Transcript []GrowthEntry
	// Usage per provider, model and UTC day, then the session's totals.
	Usage  map[string]sessiondb.UsageTotals
	Totals sessiondb.UsageTotals
}

// GrowthSnapshot reads every session of s, to compare a store that
// imported a file at growing prefixes with one that imported it once.
func GrowthSnapshot(t testing.TB, s sessiondb.Store, since time.Time) map[string]GrowthSession {
	t.Helper()
	// A time the importer took from the clock (a session whose source
	// has none) differs between two imports: compare it as "now".
	clock := func(tm time.Time) time.Time {
		if !tm.Before(since) {
			return time.Time{}
		}
		return tm.UTC()
	}
	ctx := context.Background()
	out := map[string]GrowthSession{}
	infos, _, err := s.List(ctx, sessiondb.ListOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		id := info.ID
		sess, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		g := GrowthSession{Title: sess.Title, Summary: sess.Summary, Attrs: string(sess.Attrs), ParentID: sess.ParentID,
			ForkSeq: sess.ForkSeq, CreatedAt: clock(sess.CreatedAt), UpdatedAt: clock(sess.UpdatedAt), Usage: map[string]sessiondb.UsageTotals{}}
		full, err := s.LoadFull(ctx, id, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		g.Messages = full.Session.MessageCount
		for _, e := range full.Transcript {
			g.Transcript = append(g.Transcript, GrowthEntry{Kind: e.Kind, Role: e.Role, Summary: e.Summary, CreatedAt: clock(e.CreatedAt), Body: string(e.Body)})
		}
		log, err := s.Entries(ctx, id, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range log {
			g.Log = append(g.Log, GrowthEntry{Kind: e.Kind, Role: e.Role, CreatedAt: clock(e.CreatedAt), Body: string(e.Body)})
		}
		rows, err := s.UsageReport(ctx, sessiondb.UsageQuery{SessionID: id, ByModel: true, ByDay: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			g.Usage[r.Provider+"/"+r.Model+"@"+r.Day] = RoundCost(r.UsageTotals)
		}
		tot, err := s.UsageTotals(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		g.Totals = RoundCost(tot)
		out[id] = g
	}
	return out
}

// RoundCost keeps costs comparable: a sum of the same estimates added in
// another order may differ in the last bits.
func RoundCost(u sessiondb.UsageTotals) sessiondb.UsageTotals {
	u.Cost = float64(int64(u.Cost*1e9+0.5)) / 1e9
	return u
}
