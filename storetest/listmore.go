package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb"
)

// ---- List: forks of a session, usage totals with the page, Lookup ---------

func listMoreTests() []testCase {
	return []testCase{
		{name: "ParentID", fn: testListParentID},
		{name: "ParentIDPagination", fn: testListParentIDPagination},
		{name: "ParentIDDeletedParent", fn: testListParentIDDeletedParent},
		{name: "Usage", fn: testListUsage},
		{name: "Lookup", fn: testLookup},
	}
}

// testListParentID: only the direct forks of the parent, newest first,
// combined with Query; grandchildren and unrelated sessions are left out.
func testListParentID(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "p", 6)
	mustSession(t, s, "other", 2)
	fork := func(src string, at int64, id string) {
		t.Helper()
		if _, err := s.Fork(bg(t), src, at, id); err != nil {
			t.Fatalf("Fork(%s, %d, %s): %v", src, at, id, err)
		}
	}
	fork("p", 2, "f-a")
	fork("p", 5, "f-b")
	fork("other", 1, "f-other")
	fork("f-a", 1, "f-a-child")
	// f-a is the most recently updated fork of p.
	mustAppend(t, s, "f-a", msgs(7, 7)...)
	if _, err := s.UpdateMeta(bg(t), "f-b", sessiondb.MetaPatch{Title: ptr("second try")}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "f-a", msgs(8, 8)...)

	got := listAll(t, s, sessiondb.ListOptions{ParentID: "p"})
	if diff := cmp.Diff([]string{"f-a", "f-b"}, idsOf(got)); diff != "" {
		t.Errorf("List{ParentID: p} (-want +got):\n%s", diff)
	}
	for _, in := range got {
		want := map[string]int64{"f-a": 2, "f-b": 5}[in.ID]
		if in.ParentID != "p" || in.ForkSeq != want {
			t.Errorf("%s: ParentID %q ForkSeq %d; want p, %d", in.ID, in.ParentID, in.ForkSeq, want)
		}
	}
	if got := idsOf(listAll(t, s, sessiondb.ListOptions{ParentID: "f-a"})); !cmp.Equal(got, []string{"f-a-child"}) {
		t.Errorf("List{ParentID: f-a} = %q, want [f-a-child]", got)
	}
	if got := idsOf(listAll(t, s, sessiondb.ListOptions{ParentID: "p", Query: "SECOND"})); !cmp.Equal(got, []string{"f-b"}) {
		t.Errorf("List{ParentID: p, Query: SECOND} = %q, want [f-b]", got)
	}
	for _, id := range []string{"f-a-child", "nobody", "P"} {
		if got := listAll(t, s, sessiondb.ListOptions{ParentID: id}); len(got) != 0 {
			t.Errorf("List{ParentID: %q} = %q, want none", id, idsOf(got))
		}
	}
	_, _, err := s.List(bg(t), sessiondb.ListOptions{ParentID: "bad\x00id"})
	wantErr(t, err, sessiondb.ErrInvalid, "List with an invalid ParentID")
}

// testListParentIDPagination walks many forks with a small page: no fork
// twice, none missed, only forks.
func testListParentIDPagination(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "p", 3)
	var want []string
	for i := 0; i < 7; i++ {
		id := fmt.Sprintf("f%02d", i)
		if _, err := s.Fork(bg(t), "p", int64(i%3+1), id); err != nil {
			t.Fatal(err)
		}
		createAt(t, s, fmt.Sprintf("x%02d", i), "not a fork", base.Add(time.Duration(i)*time.Hour))
		want = append([]string{id}, want...) // each fork is newer than the last
	}
	got := idsOf(listAll(t, s, sessiondb.ListOptions{ParentID: "p", Limit: 2}))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("forks of p, 2 per page (-want +got):\n%s", diff)
	}
}

// testListParentIDDeletedParent: forks of a deleted session are still
// found by its ID.
func testListParentIDDeletedParent(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "p", 2)
	if _, err := s.Fork(bg(t), "p", 1, "orphan"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(bg(t), "p"); err != nil {
		t.Fatal(err)
	}
	if got := idsOf(listAll(t, s, sessiondb.ListOptions{ParentID: "p"})); !cmp.Equal(got, []string{"orphan"}) {
		t.Errorf("forks of deleted p = %q, want [orphan]", got)
	}
}

// testListUsage: with Usage, every row carries what UsageTotals returns
// (zero totals for a session without usage), on every page and with a
// Query; without it, Usage is nil.
func testListUsage(t *testing.T, s sessiondb.Store) {
	for i := 0; i < 5; i++ {
		id := fmt.Sprintf("u%d", i)
		c := sessiondb.Commit{Create: &sessiondb.Session{ID: id, Title: fmt.Sprintf("title %d", i)}, Append: msgs(1, 2)}
		for j := 0; j < i; j++ { // u0 has no usage at all
			c.Usage = append(c.Usage, sessiondb.Usage{Seq: 2, Model: "m", InputTokens: int64(100*i + j),
				OutputTokens: 7, CacheReadTokens: int64(i), CacheWriteTokens: 3, ReasoningTokens: int64(j), Cost: 0.25 * float64(i)})
		}
		mustCommit(t, s, id, c)
	}
	// A second commit adds to u3's ledger.
	mustCommit(t, s, "u3", sessiondb.Commit{Usage: []sessiondb.Usage{{Model: "n", InputTokens: 1000, Cost: 1}}})

	for _, opts := range []sessiondb.ListOptions{{Usage: true}, {Usage: true, Limit: 2}, {Usage: true, Query: "TITLE", Limit: 3}} {
		infos := listAll(t, s, opts)
		if len(infos) != 5 {
			t.Fatalf("List(%+v) returned %d sessions, want 5", opts, len(infos))
		}
		for _, in := range infos {
			want, err := s.UsageTotals(bg(t), in.ID)
			if err != nil {
				t.Fatal(err)
			}
			if in.Usage == nil {
				t.Errorf("List(%+v): %s has no Usage", opts, in.ID)
				continue
			}
			if !cmp.Equal(*in.Usage, want) {
				t.Errorf("List(%+v): %s Usage %+v, UsageTotals %+v", opts, in.ID, *in.Usage, want)
			}
		}
	}
	infos, _, err := s.List(bg(t), sessiondb.ListOptions{Usage: true, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]sessiondb.UsageTotals{}
	for _, in := range infos {
		byID[in.ID] = *in.Usage
	}
	if u := byID["u3"]; u.Calls != 4 || u.InputTokens != 300+301+302+1000 || u.Cost != 0.75*3+1 {
		t.Errorf("u3 totals %+v; want 4 calls, 1903 input tokens, cost 3.25", u)
	}
	if u := byID["u0"]; u != (sessiondb.UsageTotals{}) {
		t.Errorf("u0 (no usage) totals %+v, want zero", u)
	}
	plain, _, err := s.List(bg(t), sessiondb.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range plain {
		if in.Usage != nil {
			t.Errorf("List without Usage: %s has Usage %+v", in.ID, *in.Usage)
		}
	}
}

// testLookup: a store that implements sessiondb.SessionLookup resolves
// as Resolve does and returns what Get does, counts included.
func testLookup(t *testing.T, s sessiondb.Store) {
	lk, ok := s.(sessiondb.SessionLookup)
	if !ok {
		t.Skip("the store does not implement sessiondb.SessionLookup")
	}
	if _, err := s.Create(bg(t), sessiondb.Session{ID: "lk", Title: "looked up", Aliases: []string{"nick", "agent:main:x"},
		Attrs: raw(`{"model" : "m"}`)}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "lk", msgs(1, 4)...)
	if _, err := s.Truncate(bg(t), "lk", 2); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "agent:main:x") // a path key: the alias wins (rule 2)
	want := mustGet(t, s, "lk")
	for _, key := range []string{"lk", "nick", "agent:main:x"} {
		got, err := lk.Lookup(bg(t), key)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", key, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Lookup(%q) differs from Get (-want +got):\n%s", key, diff)
		}
	}
	_, err := lk.Lookup(bg(t), "missing")
	wantErr(t, err, sessiondb.ErrNotFound, "Lookup of an unknown name")
	_, err = lk.Lookup(bg(t), "")
	wantErr(t, err, sessiondb.ErrInvalid, "Lookup of an empty name")
}
