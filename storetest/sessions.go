package storetest

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sessiondb/sessiondb"
)

func sessionTests() []testCase {
	return []testCase{
		{name: "CreateCallerID", fn: testCreateCallerID},
		{name: "CreateDefaults", fn: testCreateDefaults},
		{name: "CreateZeroUpdatedAt", fn: testCreateZeroUpdatedAt},
		{name: "CreateGeneratedID", fn: testCreateGeneratedID},
		{name: "CreateDuplicateID", fn: testCreateDuplicateID},
		{name: "CreateSharedAlias", fn: testCreateSharedAlias},
		{name: "CreateMaxLenID", fn: testCreateMaxLenID},
		{name: "GetUnknown", fn: testGetUnknown},
		{name: "Resolve", fn: testResolve},
		{name: "ResolveRules", fn: testResolveRules},
	}
}

func testCreateCallerID(t *testing.T, s sessiondb.Store) {
	created := time.Date(2025, 1, 2, 3, 4, 5, 600_000_000, time.UTC)
	in := sessiondb.Session{
		ID:        "caller-id",
		Title:     "A title ✓ 日本",
		Summary:   "a summary",
		Version:   3,
		Scope:     raw(`{"team" : "x", "n":[1,2]}`),
		Attrs:     raw(`{"model":"m-1","cwd":"/tmp/w","provider":"p"}`),
		Aliases:   []string{"alias-b", "alias-a"},
		CreatedAt: created,
		UpdatedAt: created.Add(time.Hour),
	}
	got, err := s.Create(bg(t), in)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if got.Sequence < 1 {
		t.Errorf("Create returned Sequence %d, want >= 1", got.Sequence)
	}
	want := in
	want.Sequence = got.Sequence
	if diff := metaDiff(want, got); diff != "" {
		t.Errorf("Create returned (-want +got):\n%s", diff)
	}
	wantJSON(t, got.Scope, `{"team" : "x", "n":[1,2]}`, "Create Scope")
	if diff := metaDiff(want, mustGet(t, s, "caller-id")); diff != "" {
		t.Errorf("Get after Create (-want +got):\n%s", diff)
	}
}

func testCreateDefaults(t *testing.T, s sessiondb.Store) {
	before := time.Now()
	got, err := s.Create(bg(t), sessiondb.Session{ID: "defaults"})
	after := time.Now()
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	wantNear(t, got.CreatedAt, before, after, "CreatedAt")
	wantNear(t, got.UpdatedAt, before, after, "UpdatedAt")
	g := mustGet(t, s, "defaults")
	if !g.CreatedAt.Equal(got.CreatedAt) || !g.UpdatedAt.Equal(got.UpdatedAt) {
		t.Errorf("Get times (%v, %v) differ from Create's (%v, %v)", g.CreatedAt, g.UpdatedAt, got.CreatedAt, got.UpdatedAt)
	}
	if g.Sequence < 1 || g.LastSeq != 0 || g.Title != "" || g.Scope != nil || g.Attrs != nil || len(g.Aliases) != 0 || g.ParentID != "" || g.ForkSeq != 0 {
		t.Errorf("fresh session = %+v, want Sequence>=1, LastSeq 0 and empty fields (nil Scope/Attrs)", g)
	}
}

// testCreateZeroUpdatedAt: "zero times get now" holds for each time on
// its own, so a session created with only CreatedAt was updated now.
func testCreateZeroUpdatedAt(t *testing.T, s sessiondb.Store) {
	created := time.Date(2020, 2, 3, 4, 5, 6, 0, time.UTC)
	before := time.Now()
	got, err := s.Create(bg(t), sessiondb.Session{ID: "old", CreatedAt: created})
	if err != nil {
		t.Fatal(err)
	}
	if !got.CreatedAt.Equal(created) {
		t.Errorf("CreatedAt = %v, want %v", got.CreatedAt, created)
	}
	wantNear(t, mustGet(t, s, "old").UpdatedAt, before, time.Now(), "UpdatedAt of a session created with only CreatedAt")
}

func testCreateGeneratedID(t *testing.T, s sessiondb.Store) {
	before := time.Now()
	a, err := s.Create(bg(t), sessiondb.Session{Title: "a"})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	b, err := s.Create(bg(t), sessiondb.Session{Title: "b"})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	after := time.Now()
	wantGeneratedID(t, a.ID, before, after, "generated ID")
	wantGeneratedID(t, b.ID, before, after, "generated ID")
	if a.ID == b.ID {
		t.Fatalf("two generated IDs are equal: %q", a.ID)
	}
	if err := sessiondb.ValidateID(a.ID); err != nil {
		t.Errorf("generated ID invalid: %v", err)
	}
	if g := mustGet(t, s, a.ID); g.Title != "a" {
		t.Errorf("Get(generated) title = %q, want a", g.Title)
	}
	if id, err := s.Resolve(bg(t), b.ID); err != nil || id != b.ID {
		t.Errorf("Resolve(generated) = %q, %v", id, err)
	}
}

func testCreateDuplicateID(t *testing.T, s sessiondb.Store) {
	if _, err := s.Create(bg(t), sessiondb.Session{ID: "dup", Title: "first"}); err != nil {
		t.Fatal(err)
	}
	before := mustGet(t, s, "dup")
	_, err := s.Create(bg(t), sessiondb.Session{ID: "dup", Title: "second"})
	wantErr(t, err, sessiondb.ErrExists, "Create with a taken ID")
	after := mustGet(t, s, "dup")
	if diff := metaDiff(before, after); diff != "" {
		t.Errorf("failed Create changed the session (-before +after):\n%s", diff)
	}
}

func testCreateSharedAlias(t *testing.T, s sessiondb.Store) {
	if _, err := s.Create(bg(t), sessiondb.Session{ID: "holder", Aliases: []string{"shared", "mine"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(bg(t), sessiondb.Session{ID: "newcomer", Aliases: []string{"free", "shared"}}); err != nil {
		t.Fatalf("Create with an alias another session lists: %v", err)
	}
	if g := mustGet(t, s, "newcomer"); !slices.Equal(g.Aliases, []string{"free", "shared"}) {
		t.Errorf("newcomer aliases = %q, want [free shared] in the order given", g.Aliases)
	}
	if g := mustGet(t, s, "holder"); !slices.Equal(g.Aliases, []string{"shared", "mine"}) {
		t.Errorf("holder aliases = %q, want [shared mine]: a shared alias is never moved", g.Aliases)
	}
	// "holder.meta.json" sorts before "newcomer.meta.json".
	for _, tc := range []struct{ in, want string }{{"shared", "holder"}, {"free", "newcomer"}, {"mine", "holder"}} {
		if id, err := s.Resolve(bg(t), tc.in); err != nil || id != tc.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tc.in, id, err, tc.want)
		}
	}
	// The first holder's delete hands the alias to the next one.
	if err := s.Delete(bg(t), "holder"); err != nil {
		t.Fatal(err)
	}
	if id, err := s.Resolve(bg(t), "shared"); err != nil || id != "newcomer" {
		t.Errorf("Resolve(shared) after the first holder's delete = %q, %v; want newcomer", id, err)
	}
}

// testResolveRules checks each of Resolve's documented rules, which are
// picoclaw's ResolveSessionKey.
func testResolveRules(t *testing.T, s sessiondb.Store) {
	create := func(id string, aliases ...string) {
		t.Helper()
		if _, err := s.Create(bg(t), sessiondb.Session{ID: id, Aliases: aliases}); err != nil {
			t.Fatalf("Create(%q, %q): %v", id, aliases, err)
		}
	}
	// Every routed picoclaw session lists agent:main:main; the one whose
	// meta file sorts first wins.
	create("sk_v1_bb", "agent:main:main", "agent:main:telegram:group:1")
	create("sk_v1_aa", "agent:main:main")
	create("sk_v1_cc", "legacy:key", "plain")
	// Rule 2 over rule 3: a legacy session whose ID is a path key loses to
	// a session listing that key (picoclaw's PrefersMetadataOverLegacyFile).
	create("legacy:key")
	mustAppend(t, s, "legacy:key", msgs(1, 1)...)
	// picoclaw's file-name order, not the IDs' byte order: "a_b.meta.json"
	// < "a_z.meta.json" although "a:z" < "a_b"; "a-b.meta.json" <
	// "a.meta.json" although "a" < "a-b".
	create("a:z", "agent:x:main")
	create("a_b", "agent:x:main")
	create("a", "agent:y:main")
	create("a-b", "agent:y:main")
	// Rule 1: a plain key that is a session's ID names it, even when
	// another session lists it (set after the fact with UpdateMeta).
	create("direct")
	create("lister", "direct", "lister:own")
	// Rule 3: the session with the ID when no one lists it.
	create("only:mine")
	for _, tc := range []struct{ in, want string }{
		{"agent:main:main", "sk_v1_aa"},
		{"agent:main:telegram:group:1", "sk_v1_bb"},
		{"legacy:key", "sk_v1_cc"},
		{"plain", "sk_v1_cc"},
		{"agent:x:main", "a_b"},
		{"agent:y:main", "a-b"},
		{"direct", "direct"},
		{"lister:own", "lister"},
		{"only:mine", "only:mine"},
		{"sk_v1_aa", "sk_v1_aa"},
	} {
		if id, err := s.Resolve(bg(t), tc.in); err != nil || id != tc.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tc.in, id, err, tc.want)
		}
	}
	for _, in := range []string{"agent:main", "AGENT:MAIN:MAIN", " agent:main:main", "agent:main:main:"} {
		_, err := s.Resolve(bg(t), in)
		wantErr(t, err, sessiondb.ErrNotFound, fmt.Sprintf("Resolve(%q)", in))
	}
	// A session listing its own ID drops it; the legacy session keeps its
	// data and stays reachable by Get.
	if g := mustGet(t, s, "legacy:key"); g.LastSeq != 1 {
		t.Errorf("legacy:key LastSeq = %d, want 1", g.LastSeq)
	}
	// Create never moves an alias: a plain ID another session lists is
	// refused, a path-key ID is created and the alias keeps winning.
	_, err := s.Create(bg(t), sessiondb.Session{ID: "plain"})
	wantErr(t, err, sessiondb.ErrExists, "Create of a plain ID another session lists as an alias")
	create("agent:main:main")
	if id, err := s.Resolve(bg(t), "agent:main:main"); err != nil || id != "sk_v1_aa" {
		t.Errorf("Resolve(agent:main:main) after creating a session with that ID = %q, %v; want sk_v1_aa", id, err)
	}
	if id, err := s.Resolve(bg(t), "plain"); err != nil || id != "sk_v1_cc" {
		t.Errorf("Resolve(plain) after the refused Create = %q, %v; want sk_v1_cc", id, err)
	}
	// Asked for explicitly (an importer of picoclaw data), it is created
	// and then wins by rule 1; the lister keeps listing it.
	if _, err := s.Commit(bg(t), "plain", sessiondb.Commit{Create: &sessiondb.Session{}, ShadowAliases: true}); err != nil {
		t.Fatalf("Create of a listed plain ID with ShadowAliases: %v", err)
	}
	if id, err := s.Resolve(bg(t), "plain"); err != nil || id != "plain" {
		t.Errorf("Resolve(plain) after the shadowing Create = %q, %v; want plain", id, err)
	}
	if g := mustGet(t, s, "sk_v1_cc"); !slices.Equal(g.Aliases, []string{"legacy:key", "plain"}) {
		t.Errorf("sk_v1_cc aliases = %q after the shadowing Create, want them kept", g.Aliases)
	}
	// List's Query finds every session listing an alias (it does not look
	// at IDs).
	got := idsOf(listAll(t, s, sessiondb.ListOptions{Query: "agent:main:main"}))
	slices.Sort(got)
	if want := []string{"sk_v1_aa", "sk_v1_bb"}; !slices.Equal(got, want) {
		t.Errorf("List(Query agent:main:main) = %q, want %q", got, want)
	}
}

func testCreateMaxLenID(t *testing.T, s sessiondb.Store) {
	id := strings.Repeat("é", sessiondb.MaxIDLen/2) // exactly MaxIDLen bytes
	if len(id) != sessiondb.MaxIDLen {
		t.Fatalf("test bug: id is %d bytes", len(id))
	}
	if _, err := s.Create(bg(t), sessiondb.Session{ID: id}); err != nil {
		t.Fatalf("Create with a %d-byte ID: %v", len(id), err)
	}
	if g := mustGet(t, s, id); g.ID != id {
		t.Errorf("Get returned ID %q", g.ID)
	}
	mustAppend(t, s, id, msgs(1, 1)...)
	wantTranscript(t, s, id, bodies(1, 1))
}

func testGetUnknown(t *testing.T, s sessiondb.Store) {
	mustCreate(t, s, "known")
	_, err := s.Get(bg(t), "unknown")
	wantErr(t, err, sessiondb.ErrNotFound, "Get(unknown)")
}

func testResolve(t *testing.T, s sessiondb.Store) {
	if _, err := s.Create(bg(t), sessiondb.Session{ID: "r1", Aliases: []string{"nick", "other-nick"}}); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "r2")
	for _, tc := range []struct{ in, want string }{
		{"r1", "r1"}, {"r2", "r2"}, {"nick", "r1"}, {"other-nick", "r1"},
	} {
		got, err := s.Resolve(bg(t), tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"unknown", "NICK", "nic"} {
		_, err := s.Resolve(bg(t), in)
		wantErr(t, err, sessiondb.ErrNotFound, fmt.Sprintf("Resolve(%q)", in))
	}
	// Creating a plain ID that is another session's alias would move the
	// alias (the ID would win in Resolve): it is refused.
	_, err := s.Create(bg(t), sessiondb.Session{ID: "nick"})
	wantErr(t, err, sessiondb.ErrExists, "Create of an ID that is another session's alias")
	if got, err := s.Resolve(bg(t), "nick"); err != nil || got != "r1" {
		t.Errorf("Resolve(nick) after the refused Create = %q, %v; want r1", got, err)
	}
}

// ---- List ------------------------------------------------------------------

func listTests() []testCase {
	return []testCase{
		{name: "Order", fn: testListOrder},
		{name: "Pagination", fn: testListPagination},
		{name: "DefaultLimit", fn: testListDefaultLimit},
		{name: "QueryTitleAndAlias", fn: testListQuery},
		{name: "QueryPagination", fn: testListQueryPagination},
		{name: "QueryNotOnID", fn: testListQueryNotOnID},
		{name: "Counts", fn: testListCounts},
		{name: "UpdateMovesToFront", fn: testListUpdateMovesToFront},
	}
}

func listAll(t *testing.T, s sessiondb.Store, opts sessiondb.ListOptions) []sessiondb.SessionInfo {
	t.Helper()
	var all []sessiondb.SessionInfo
	seen := map[string]bool{}
	for page := 0; ; page++ {
		if page > 1000 {
			t.Fatalf("List did not finish after %d pages", page)
		}
		infos, next, err := s.List(bg(t), opts)
		if err != nil {
			t.Fatalf("List(%+v) page %d: %v", opts, page, err)
		}
		limit := opts.Limit
		if limit == 0 {
			limit = sessiondb.DefaultListLimit
		}
		if len(infos) > limit {
			t.Errorf("List page %d has %d sessions, limit %d", page, len(infos), limit)
		}
		for _, in := range infos {
			if seen[in.ID] {
				t.Errorf("List page %d repeats session %q", page, in.ID)
			}
			seen[in.ID] = true
		}
		all = append(all, infos...)
		if next == "" {
			return all
		}
		if next == opts.Cursor {
			t.Fatalf("List returned the cursor it was given (%q): no progress", next)
		}
		opts.Cursor = next
	}
}

func idsOf(infos []sessiondb.SessionInfo) []string {
	ids := make([]string, len(infos))
	for i, in := range infos {
		ids[i] = in.ID
	}
	return ids
}

func createAt(t *testing.T, s sessiondb.Store, id, title string, updated time.Time, aliases ...string) {
	t.Helper()
	_, err := s.Create(bg(t), sessiondb.Session{ID: id, Title: title, CreatedAt: base, UpdatedAt: updated, Aliases: aliases})
	if err != nil {
		t.Fatalf("Create(%q): %v", id, err)
	}
}

func testListOrder(t *testing.T, s sessiondb.Store) {
	createAt(t, s, "s-a", "A", base.Add(3*time.Minute))
	createAt(t, s, "s-b", "B", base.Add(1*time.Minute))
	createAt(t, s, "s-c", "C", base.Add(4*time.Minute))
	createAt(t, s, "s-d", "D", base.Add(1*time.Minute)) // ties with s-b: ID descending
	createAt(t, s, "s-e", "E", base.Add(5*time.Minute))
	infos, next, err := s.List(bg(t), sessiondb.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if next != "" {
		t.Errorf("List of 5 sessions returned cursor %q, want \"\"", next)
	}
	want := []string{"s-e", "s-c", "s-a", "s-d", "s-b"}
	if diff := cmp.Diff(want, idsOf(infos)); diff != "" {
		t.Errorf("List order (-want +got):\n%s", diff)
	}
	for _, in := range infos {
		g := mustGet(t, s, in.ID)
		if diff := metaDiff(g, in.Session); diff != "" {
			t.Errorf("List info for %s differs from Get (-get +list):\n%s", in.ID, diff)
		}
	}
}

type listed struct {
	id      string
	updated time.Time
}

func expectedOrder(ls []listed) []string {
	slices.SortFunc(ls, func(a, b listed) int {
		if c := b.updated.Compare(a.updated); c != 0 {
			return c
		}
		return strings.Compare(b.id, a.id)
	})
	ids := make([]string, len(ls))
	for i, l := range ls {
		ids[i] = l.id
	}
	return ids
}

func testListPagination(t *testing.T, s sessiondb.Store) {
	var ls []listed
	for i := range 23 {
		id := fmt.Sprintf("p-%02d", i)
		up := base.Add(time.Duration(i%7) * time.Minute) // many ties
		createAt(t, s, id, "t", up)
		ls = append(ls, listed{id, up})
	}
	want := expectedOrder(ls)
	for _, limit := range []int{1, 5, 7, 22, 23, 50} {
		got := idsOf(listAll(t, s, sessiondb.ListOptions{Limit: limit}))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("walking pages of %d (-want +got):\n%s", limit, diff)
		}
	}
	// A page that holds the last session is the last page.
	infos, next, err := s.List(bg(t), sessiondb.ListOptions{Limit: 23})
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 23 || next != "" {
		t.Errorf("List(limit 23) of 23 sessions: %d sessions, cursor %q; want 23 and \"\"", len(infos), next)
	}
}

func testListDefaultLimit(t *testing.T, s sessiondb.Store) {
	n := sessiondb.DefaultListLimit + 1
	for i := range n {
		if _, err := s.Create(bg(t), sessiondb.Session{ID: fmt.Sprintf("d-%03d", i), UpdatedAt: base.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	infos, next, err := s.List(bg(t), sessiondb.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != sessiondb.DefaultListLimit || next == "" {
		t.Fatalf("List{} of %d sessions: %d sessions, cursor %q; want %d and a cursor", n, len(infos), next, sessiondb.DefaultListLimit)
	}
	if infos[0].ID != fmt.Sprintf("d-%03d", n-1) {
		t.Errorf("first listed = %q, want the newest", infos[0].ID)
	}
	rest, next2, err := s.List(bg(t), sessiondb.ListOptions{Cursor: next})
	if err != nil {
		t.Fatal(err)
	}
	if len(rest) != 1 || rest[0].ID != "d-000" || next2 != "" {
		t.Errorf("second page = %v, cursor %q; want [d-000] and \"\"", idsOf(rest), next2)
	}
}

func testListQuery(t *testing.T, s sessiondb.Store) {
	createAt(t, s, "q1", "Alpha Project", base.Add(1*time.Minute))
	createAt(t, s, "q2", "beta notes", base.Add(2*time.Minute))
	createAt(t, s, "q3", "plain", base.Add(3*time.Minute), "Gamma-Alias")
	createAt(t, s, "q4", "100% done", base.Add(4*time.Minute))
	createAt(t, s, "q5", "snake_case", base.Add(5*time.Minute), "zeta")
	createAt(t, s, "q6", "other", base.Add(6*time.Minute))
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"alpha", []string{"q1"}},
		{"PROJECT", []string{"q1"}},
		{"Notes", []string{"q2"}},
		{"gamma", []string{"q3"}},  // alias only
		{"-ALIAS", []string{"q3"}}, // alias only, case-insensitive
		{"%", []string{"q4"}},      // LIKE wildcards are literal
		{"_", []string{"q5"}},
		{"zet", []string{"q5"}},
		{"nothing-matches", nil},
		{"", []string{"q6", "q5", "q4", "q3", "q2", "q1"}},
	} {
		got := idsOf(listAll(t, s, sessiondb.ListOptions{Query: tc.q}))
		if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("List(Query %q) (-want +got):\n%s", tc.q, diff)
		}
	}
}

// testListQueryNotOnID: Query matches titles and aliases, not IDs.
func testListQueryNotOnID(t *testing.T, s sessiondb.Store) {
	createAt(t, s, "id-with-needle", "plain title", base.Add(time.Minute))
	createAt(t, s, "other-id", "title with needle", base.Add(2*time.Minute))
	got := idsOf(listAll(t, s, sessiondb.ListOptions{Query: "needle"}))
	if diff := cmp.Diff([]string{"other-id"}, got); diff != "" {
		t.Errorf("List(Query needle) (-want +got); the documented filter is title or alias, not ID:\n%s", diff)
	}
}

func testListQueryPagination(t *testing.T, s sessiondb.Store) {
	var ls []listed
	for i := range 20 {
		title := "odd one"
		if i%2 == 0 {
			title = "EVEN one"
		}
		id := fmt.Sprintf("qp-%02d", i)
		up := base.Add(time.Duration(i%3) * time.Minute)
		createAt(t, s, id, title, up)
		if i%2 == 0 {
			ls = append(ls, listed{id, up})
		}
	}
	want := expectedOrder(ls)
	got := idsOf(listAll(t, s, sessiondb.ListOptions{Query: "even", Limit: 3}))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paged List(Query even) (-want +got):\n%s", diff)
	}
}

func testListCounts(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "empty", 0)
	mustSession(t, s, "plain", 3)
	mustSession(t, s, "compacted", 5)
	if _, err := s.Compact(bg(t), "compacted", sessiondb.Compaction{
		KeepFromSeq: 4,
		Summary:     entriesOf(`{"role":"user","content":"s1"}`, `{"role":"assistant","content":"s2"}`),
	}); err != nil {
		t.Fatal(err)
	}
	mustSession(t, s, "truncated", 3)
	if _, err := s.Truncate(bg(t), "truncated", 0); err != nil {
		t.Fatal(err)
	}
	mustSession(t, s, "replaced", 4)
	if _, err := s.SetHistory(bg(t), "replaced", msgs(10, 11)); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int64{ // message count, entry count
		"empty":     {0, 0},
		"plain":     {3, 3},
		"compacted": {4, 5},
		"truncated": {0, 3},
		"replaced":  {2, 6},
	}
	infos := listAll(t, s, sessiondb.ListOptions{})
	if len(infos) != len(want) {
		t.Fatalf("List returned %d sessions, want %d", len(infos), len(want))
	}
	for _, in := range infos {
		w := want[in.ID]
		if in.MessageCount != w[0] || in.EntryCount != w[1] {
			t.Errorf("%s: MessageCount %d, EntryCount %d; want %d, %d", in.ID, in.MessageCount, in.EntryCount, w[0], w[1])
		}
		if n := int64(len(mustLoad(t, s, in.ID, sessiondb.LoadOptions{}))); n != in.MessageCount {
			t.Errorf("%s: MessageCount %d but Load returns %d entries", in.ID, in.MessageCount, n)
		}
		g := mustGet(t, s, in.ID)
		if in.Sequence != g.Sequence || in.LastSeq != g.LastSeq {
			t.Errorf("%s: List says Sequence %d LastSeq %d, Get says %d %d", in.ID, in.Sequence, in.LastSeq, g.Sequence, g.LastSeq)
		}
	}
}

func testListUpdateMovesToFront(t *testing.T, s sessiondb.Store) {
	createAt(t, s, "u1", "", base.Add(1*time.Minute))
	createAt(t, s, "u2", "", base.Add(2*time.Minute))
	createAt(t, s, "u3", "", base.Add(3*time.Minute))
	// A write without an explicit time records now, which is after base.
	mustAppend(t, s, "u1", msgs(1, 1)...)
	got := idsOf(listAll(t, s, sessiondb.ListOptions{}))
	if diff := cmp.Diff([]string{"u1", "u3", "u2"}, got); diff != "" {
		t.Errorf("List after appending to u1 (-want +got):\n%s", diff)
	}
}

// ---- UpdateMeta --------------------------------------------------------------

func metaTests() []testCase {
	return []testCase{
		{name: "EachField", fn: testUpdateMetaFields},
		{name: "ClearJSON", fn: testUpdateMetaClear},
		{name: "UpdatedAt", fn: testUpdateMetaUpdatedAt},
		{name: "Failures", fn: testUpdateMetaFailures},
	}
}

func ptr[T any](v T) *T { return &v }

func testUpdateMetaFields(t *testing.T, s sessiondb.Store) {
	cur, err := s.Create(bg(t), sessiondb.Session{
		ID: "m", Title: "t0", Summary: "s0", Version: 1,
		Scope: raw(`{"s":0}`), Attrs: raw(`{"a":0}`), Aliases: []string{"m-old"},
	})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name  string
		patch sessiondb.MetaPatch
		apply func(*sessiondb.Session)
	}{
		{"Title", sessiondb.MetaPatch{Title: ptr("new title ✓")}, func(s *sessiondb.Session) { s.Title = "new title ✓" }},
		{"Summary", sessiondb.MetaPatch{Summary: ptr("new summary")}, func(s *sessiondb.Session) { s.Summary = "new summary" }},
		{"Scope", sessiondb.MetaPatch{Scope: raw("{ \"b\" : 1 ,\"a\":[ 2 ]\n}")}, func(s *sessiondb.Session) { s.Scope = raw("{ \"b\" : 1 ,\"a\":[ 2 ]\n}") }},
		{"Attrs", sessiondb.MetaPatch{Attrs: raw(`{"model":"x",  "cwd":"/w","z":"\u00e9"}`)}, func(s *sessiondb.Session) { s.Attrs = raw(`{"model":"x",  "cwd":"/w","z":"\u00e9"}`) }},
		{"Version", sessiondb.MetaPatch{Version: ptr(7)}, func(s *sessiondb.Session) { s.Version = 7 }},
		{"Aliases", sessiondb.MetaPatch{Aliases: &[]string{"m-x1", "m-x2"}}, func(s *sessiondb.Session) { s.Aliases = []string{"m-x1", "m-x2"} }},
		{"Several", sessiondb.MetaPatch{Title: ptr("t2"), Version: ptr(0)}, func(s *sessiondb.Session) { s.Title = "t2"; s.Version = 0 }},
		{"AliasesEmpty", sessiondb.MetaPatch{Aliases: &[]string{}}, func(s *sessiondb.Session) { s.Aliases = nil }},
	}
	for _, st := range steps {
		want := cur
		st.apply(&want)
		want.Sequence = cur.Sequence + 1
		got, err := s.UpdateMeta(bg(t), "m", st.patch)
		if err != nil {
			t.Fatalf("UpdateMeta %s: %v", st.name, err)
		}
		// UpdatedAt moves; compare it separately.
		want.UpdatedAt = got.UpdatedAt
		if diff := metaDiff(want, got); diff != "" {
			t.Errorf("UpdateMeta %s returned (-want +got):\n%s", st.name, diff)
		}
		g := mustGet(t, s, "m")
		if diff := metaDiff(want, g); diff != "" {
			t.Errorf("Get after UpdateMeta %s (-want +got):\n%s", st.name, diff)
		}
		if string(g.Scope) != string(want.Scope) || string(g.Attrs) != string(want.Attrs) {
			t.Errorf("after %s: Scope %q Attrs %q, want byte-exact %q %q", st.name, g.Scope, g.Attrs, want.Scope, want.Attrs)
		}
		cur = g
	}
	for _, a := range []string{"m-old", "m-x1", "m-x2"} {
		_, err := s.Resolve(bg(t), a)
		wantErr(t, err, sessiondb.ErrNotFound, "Resolve of an alias removed by UpdateMeta "+a)
	}
	if _, err := s.UpdateMeta(bg(t), "m", sessiondb.MetaPatch{Aliases: &[]string{"m-x3"}}); err != nil {
		t.Fatal(err)
	}
	if id, err := s.Resolve(bg(t), "m-x3"); err != nil || id != "m" {
		t.Errorf("Resolve(m-x3) = %q, %v", id, err)
	}
	// An alias freed by one session can be taken by another.
	if _, err := s.Create(bg(t), sessiondb.Session{ID: "m2", Aliases: []string{"m-old"}}); err != nil {
		t.Errorf("Create with an alias freed by UpdateMeta: %v", err)
	}
}

func testUpdateMetaClear(t *testing.T, s sessiondb.Store) {
	if _, err := s.Create(bg(t), sessiondb.Session{ID: "c", Scope: raw(`{"s":1}`), Attrs: raw(`{"a":1}`)}); err != nil {
		t.Fatal(err)
	}
	got, err := s.UpdateMeta(bg(t), "c", sessiondb.MetaPatch{Scope: raw(`null`)})
	if err != nil {
		t.Fatal(err)
	}
	g := mustGet(t, s, "c")
	if len(got.Scope) != 0 || len(g.Scope) != 0 {
		t.Errorf("Scope after patch with JSON null = %q (returned) / %q (Get), want nil", got.Scope, g.Scope)
	}
	wantJSON(t, g.Attrs, `{"a":1}`, "Attrs untouched by a Scope patch")
	if _, err := s.UpdateMeta(bg(t), "c", sessiondb.MetaPatch{Attrs: raw(`null`)}); err != nil {
		t.Fatal(err)
	}
	if g := mustGet(t, s, "c"); len(g.Attrs) != 0 {
		t.Errorf("Attrs after patch with JSON null = %q, want nil", g.Attrs)
	}
}

func testUpdateMetaUpdatedAt(t *testing.T, s sessiondb.Store) {
	mustCreate(t, s, "u")
	at := time.Date(2021, 6, 7, 8, 9, 10, 11_000_000, time.UTC)
	got, err := s.UpdateMeta(bg(t), "u", sessiondb.MetaPatch{Title: ptr("x"), UpdatedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	if !got.UpdatedAt.Equal(at) || !mustGet(t, s, "u").UpdatedAt.Equal(at) {
		t.Errorf("UpdatedAt = %v (returned) / %v (Get), want the override %v", got.UpdatedAt, mustGet(t, s, "u").UpdatedAt, at)
	}
	before := time.Now()
	got, err = s.UpdateMeta(bg(t), "u", sessiondb.MetaPatch{Title: ptr("y")})
	if err != nil {
		t.Fatal(err)
	}
	wantNear(t, got.UpdatedAt, before, time.Now(), "UpdatedAt of a patch without override")
}

func testUpdateMetaFailures(t *testing.T, s sessiondb.Store) {
	if _, err := s.Create(bg(t), sessiondb.Session{ID: "f", Title: "keep", Aliases: []string{"f-a"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(bg(t), sessiondb.Session{ID: "g", Aliases: []string{"g-a"}}); err != nil {
		t.Fatal(err)
	}
	before := mustGet(t, s, "f")
	_, err := s.UpdateMeta(bg(t), "f", sessiondb.MetaPatch{Title: ptr("changed"), Scope: raw(`{"broken":`)})
	wantErr(t, err, sessiondb.ErrInvalid, "UpdateMeta with a non-JSON Scope")
	_, err = s.UpdateMeta(bg(t), "f", sessiondb.MetaPatch{Title: ptr("changed"), Attrs: raw(`not json`)})
	wantErr(t, err, sessiondb.ErrInvalid, "UpdateMeta with non-JSON Attrs")
	_, err = s.UpdateMeta(bg(t), "f", sessiondb.MetaPatch{Title: ptr("changed"), Aliases: &[]string{"ok", ""}})
	wantErr(t, err, sessiondb.ErrInvalid, "UpdateMeta with an empty alias")
	_, err = s.UpdateMeta(bg(t), "f", sessiondb.MetaPatch{Title: ptr("changed"), Aliases: &[]string{"new-f", "bad\x01"}})
	wantErr(t, err, sessiondb.ErrInvalid, "UpdateMeta with an alias holding a control character")
	after := mustGet(t, s, "f")
	if diff := metaDiff(before, after); diff != "" {
		t.Errorf("failed UpdateMeta calls changed the session (-before +after):\n%s", diff)
	}
	_, err = s.Resolve(bg(t), "new-f")
	wantErr(t, err, sessiondb.ErrNotFound, "alias from a failed UpdateMeta")
	// Listing another session's alias is allowed; it stays that session's
	// in Resolve ("f.meta.json" < "g.meta.json", so f now comes first).
	if _, err := s.UpdateMeta(bg(t), "g", sessiondb.MetaPatch{Aliases: &[]string{"g-a", "f-a"}}); err != nil {
		t.Fatalf("UpdateMeta with an alias another session lists: %v", err)
	}
	if id, err := s.Resolve(bg(t), "f-a"); err != nil || id != "f" {
		t.Errorf("Resolve(f-a) = %q, %v; want f", id, err)
	}
	_, err = s.UpdateMeta(bg(t), "nope", sessiondb.MetaPatch{Title: ptr("x")})
	wantErr(t, err, sessiondb.ErrNotFound, "UpdateMeta(unknown)")
}

// ---- Delete ----------------------------------------------------------------

func deleteTests() []testCase {
	return []testCase{
		{name: "EveryTrace", fn: testDeleteEveryTrace},
		{name: "ForksSurvive", fn: testDeleteForksSurvive},
		{name: "Unknown", fn: testDeleteUnknown},
		{name: "Concurrent", fn: testDeleteConcurrent},
	}
}

// fillSession gives session id something in every table.
func fillSession(t *testing.T, s sessiondb.Store, id, alias, sourcePath string) {
	t.Helper()
	if _, err := s.Create(bg(t), sessiondb.Session{ID: id, Title: "full", Aliases: []string{alias}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(bg(t), id, sessiondb.Commit{
		Append:      msgs(1, 6),
		Compactions: []sessiondb.Compaction{{KeepFromSeq: 4, Summary: entriesOf(`{"role":"user","content":"sum"}`), Details: raw(`{"why":"test"}`)}},
		State:       raw(`{"state":1}`),
		Interrupt:   raw(`{"pending":["call-1"]}`),
		Usage:       []sessiondb.Usage{{Model: "m", InputTokens: 10, OutputTokens: 5, Cost: 0.5}},
		Source:      &sessiondb.SourceFile{Path: sourcePath, Format: "zot", SessionID: id, Size: 10, Offset: 10, SHA256: strings.Repeat("ab", 32), ModTime: base},
	}); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if _, err := s.SaveCheckpoint(bg(t), sessiondb.Checkpoint{ID: id + "-cp", SessionID: id, Label: "cp"}); err != nil {
		t.Fatalf("SaveCheckpoint: %v", err)
	}
}

func testDeleteEveryTrace(t *testing.T, s sessiondb.Store) {
	fillSession(t, s, "victim", "victim-alias", "/src/victim.jsonl")
	fillSession(t, s, "bystander", "bystander-alias", "/src/bystander.jsonl")
	if err := s.Delete(bg(t), "victim"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	ctx := bg(t)
	gone := map[string]error{}
	_, gone["Get"] = s.Get(ctx, "victim")
	_, gone["Resolve(alias)"] = s.Resolve(ctx, "victim-alias")
	_, gone["Load"] = s.Load(ctx, "victim", sessiondb.LoadOptions{})
	_, gone["Entries"] = s.Entries(ctx, "victim", 0, 0)
	_, gone["LoadState"] = s.LoadState(ctx, "victim")
	_, gone["LoadInterrupt"] = s.LoadInterrupt(ctx, "victim")
	_, gone["Compactions"] = s.Compactions(ctx, "victim")
	_, gone["ListCheckpoints"] = s.ListCheckpoints(ctx, "victim")
	_, gone["LoadCheckpoint"] = s.LoadCheckpoint(ctx, "victim-cp")
	_, gone["UsageTotals"] = s.UsageTotals(ctx, "victim")
	_, gone["SourceFile"] = s.SourceFile(ctx, "/src/victim.jsonl")
	_, gone["LoadFull"] = s.LoadFull(ctx, "victim", sessiondb.LoadOptions{})
	gone["Delete again"] = s.Delete(ctx, "victim")
	for what, err := range gone {
		wantErr(t, err, sessiondb.ErrNotFound, what+" after Delete")
	}
	if ids := idsOf(listAll(t, s, sessiondb.ListOptions{})); !slices.Equal(ids, []string{"bystander"}) {
		t.Errorf("List after Delete = %v, want [bystander]", ids)
	}

	// Re-creating the ID must give an empty session: nothing was left behind.
	if _, err := s.Create(ctx, sessiondb.Session{ID: "victim", Aliases: []string{"victim-alias"}}); err != nil {
		t.Fatalf("re-Create after Delete (same ID and alias): %v", err)
	}
	g := mustGet(t, s, "victim")
	if g.LastSeq != 0 || g.Title != "" {
		t.Errorf("re-created session = %+v, want empty", g)
	}
	if got := mustLoad(t, s, "victim", sessiondb.LoadOptions{}); len(got) != 0 {
		t.Errorf("re-created session has transcript %v", bodiesOf(got))
	}
	if got := mustEntries(t, s, "victim", 0, 0); len(got) != 0 {
		t.Errorf("re-created session has %d log rows", len(got))
	}
	if st := mustState(t, s, "victim"); st != nil {
		t.Errorf("re-created session has state %q", st)
	}
	if in := mustInterrupt(t, s, "victim"); in != nil {
		t.Errorf("re-created session has interrupt %q", in)
	}
	if cs := mustCompactions(t, s, "victim"); len(cs) != 0 {
		t.Errorf("re-created session has %d compactions", len(cs))
	}
	if cps, err := s.ListCheckpoints(ctx, "victim"); err != nil || len(cps) != 0 {
		t.Errorf("re-created session checkpoints = %v, %v", cps, err)
	}
	if u, err := s.UsageTotals(ctx, "victim"); err != nil || u != (sessiondb.UsageTotals{}) {
		t.Errorf("re-created session usage = %+v, %v; want zero", u, err)
	}
	_, err := s.SourceFile(ctx, "/src/victim.jsonl")
	wantErr(t, err, sessiondb.ErrNotFound, "SourceFile of deleted session after re-create")

	// The bystander is intact.
	wantTranscript(t, s, "bystander", append([]string{`{"role":"user","content":"sum"}`}, bodies(4, 6)...))
	wantJSON(t, mustState(t, s, "bystander"), `{"state":1}`, "bystander state")
	wantJSON(t, mustInterrupt(t, s, "bystander"), `{"pending":["call-1"]}`, "bystander interrupt")
	if u, err := s.UsageTotals(ctx, "bystander"); err != nil || u.Calls != 1 || u.InputTokens != 10 {
		t.Errorf("bystander usage = %+v, %v", u, err)
	}
	if _, err := s.LoadCheckpoint(ctx, "bystander-cp"); err != nil {
		t.Errorf("bystander checkpoint: %v", err)
	}
	if sf, err := s.SourceFile(ctx, "/src/bystander.jsonl"); err != nil || sf.SessionID != "bystander" {
		t.Errorf("bystander source file = %+v, %v", sf, err)
	}
	if id, err := s.Resolve(ctx, "bystander-alias"); err != nil || id != "bystander" {
		t.Errorf("Resolve(bystander-alias) = %q, %v", id, err)
	}
}

func testDeleteForksSurvive(t *testing.T, s sessiondb.Store) {
	fillSession(t, s, "parent", "parent-alias", "/src/parent.jsonl")
	fork, err := s.Fork(bg(t), "parent", 6, "child")
	if err != nil {
		t.Fatalf("Fork: %v", err)
	}
	grand, err := s.Fork(bg(t), "child", 0, "grandchild")
	if err != nil {
		t.Fatalf("Fork of fork: %v", err)
	}
	wantChild := append([]string{`{"role":"user","content":"sum"}`}, bodies(4, 6)...)
	before, err := s.LoadFull(bg(t), "child", sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(bg(t), "parent"); err != nil {
		t.Fatal(err)
	}
	after, err := s.LoadFull(bg(t), "child", sessiondb.LoadOptions{})
	if err != nil {
		t.Fatalf("LoadFull of a fork whose parent was deleted: %v", err)
	}
	if diff := cmp.Diff(wantChild, bodiesOf(after.Transcript)); diff != "" {
		t.Errorf("fork transcript after parent delete (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("fork changed by parent delete (-before +after):\n%s", diff)
	}
	if after.Session.ParentID != "parent" || after.Session.ForkSeq != 6 || fork.ParentID != "parent" {
		t.Errorf("fork ParentID/ForkSeq = %q/%d, want parent/6 (kept after the parent is gone)", after.Session.ParentID, after.Session.ForkSeq)
	}
	wantTranscript(t, s, grand.ID, wantChild)
	mustAppend(t, s, "child", msgs(100, 100)...)
	wantTranscript(t, s, "child", append(wantChild, msgBody(100)))
	wantTranscript(t, s, grand.ID, wantChild)
}

func testDeleteUnknown(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "keep", 2)
	wantErr(t, s.Delete(bg(t), "unknown"), sessiondb.ErrNotFound, "Delete(unknown)")
	wantTranscript(t, s, "keep", bodies(1, 2))
}

func testDeleteConcurrent(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "once", 3)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = s.Delete(bg(t), "once") })
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errsIs(err, sessiondb.ErrNotFound):
			t.Errorf("concurrent Delete: %v", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d of %d concurrent Deletes succeeded, want exactly 1", ok, len(errs))
	}
}
