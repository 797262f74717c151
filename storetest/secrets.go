package storetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

func secretTests() []testCase {
	return []testCase{
		{name: "RedactedReads", fn: secretsRedactedReads},
		{name: "ListAndScrub", fn: secretsListAndScrub},
		{name: "DeleteAndPrune", fn: secretsDeleteAndPrune},
		{name: "ScanAfterQuiet", fn: secretsScanAfterQuiet},
	}
}

// Planted secrets: an AWS access key id and a PostgreSQL URL with a
// password, made here (not real ones).
const (
	plantedAWSKey   = "AKIAQ3EGRJ4WPZ7XL2MN"
	plantedPassword = "pw-Xk29fLq7Zt3Rv8"
)

// leakyBody is a tool result holding the planted secrets, as an agent's
// archive stores one.
func leakyBody(t testing.TB) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"role": "tool", "content": "deploy log:\nexport AWS_ACCESS_KEY_ID=" + plantedAWSKey +
		"\nDATABASE_URL=postgres://app:" + plantedPassword + "@db.internal:5432/prod\nok"})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func keeper(t *testing.T, s sessiondb.Store) sessiondb.SecretKeeper {
	t.Helper()
	k, ok := s.(sessiondb.SecretKeeper)
	if !ok {
		t.Skip("store does not keep secrets (sessiondb.SecretKeeper)")
	}
	return k
}

// scanAll runs the secret scan until nothing is left.
func scanAll(t *testing.T, k sessiondb.SecretKeeper) {
	t.Helper()
	for range 10000 {
		more, err := k.ScanSecrets(bg(t))
		if err != nil {
			t.Fatalf("ScanSecrets: %v", err)
		}
		if !more {
			n, err := k.SecretStatus(bg(t))
			if err != nil || n != 0 {
				t.Fatalf("after the scan: %d entries unscanned, %v", n, err)
			}
			return
		}
	}
	t.Fatal("ScanSecrets never finished")
}

// leaks reports the planted secrets b holds.
func leaks(b []byte) string {
	var out []string
	for _, s := range []string{plantedAWSKey, plantedPassword} {
		if bytes.Contains(b, []byte(s)) {
			out = append(out, s)
		}
	}
	return strings.Join(out, ", ")
}

// UnscannedRedaction plants secrets in a store whose background scan is
// off (each backend's own tests call it) and checks that the redacted
// view hands none of them out although nothing was scanned: reads scan
// what the scan has not seen, as search scans what the index has not.
// Reading records nothing: the entries stay unscanned.
func UnscannedRedaction(t *testing.T, s sessiondb.Store) {
	t.Helper()
	k := keeper(t, s)
	plantLeaky(t, s, "unscanned")
	n, err := k.SecretStatus(bg(t))
	if err != nil || n != 3 {
		t.Fatalf("SecretStatus %d, %v: want 3 entries unscanned (is the scan off?)", n, err)
	}
	checkRedacted(t, s, "unscanned")
	if n, err := k.SecretStatus(bg(t)); err != nil || n != 3 {
		t.Fatalf("after reading, SecretStatus %d, %v: want 3", n, err)
	}
	scanAll(t, k)
	checkRedacted(t, s, "unscanned")
}

// checkRedacted reads session id (which holds leakyBody at seq 2 among
// clean entries, see plantLeaky) through s's redacted view with every
// read that returns its text, and fails if any of them hands out a
// planted secret, returns a body that is not valid JSON, or changes a
// clean entry.
func checkRedacted(t *testing.T, s sessiondb.Store, id string) {
	t.Helper()
	ctx := bg(t)
	v := keeper(t, s).Redacted()
	raw, err := s.Entries(ctx, id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, es []sessiondb.Entry) {
		t.Helper()
		if len(es) == 0 {
			t.Fatalf("%s: no entries", what)
		}
		for _, e := range es {
			if l := leaks(e.Body); l != "" {
				t.Errorf("%s: entry %d hands out %s: %s", what, e.Seq, l, e.Body)
			}
			if !json.Valid(e.Body) {
				t.Errorf("%s: entry %d is not JSON after redaction: %s", what, e.Seq, e.Body)
			}
			for _, r := range raw {
				if r.Seq == e.Seq && leaks(r.Body) == "" && !bytes.Equal(r.Body, e.Body) {
					t.Errorf("%s: clean entry %d changed: %s", what, e.Seq, e.Body)
				}
				if r.Seq == e.Seq && leaks(r.Body) != "" &&
					(!bytes.Contains(e.Body, []byte("[REDACTED:aws-access-token]")) || !bytes.Contains(e.Body, []byte("[REDACTED:url-password]"))) {
					t.Errorf("%s: entry %d lacks its placeholders: %s", what, e.Seq, e.Body)
				}
			}
		}
	}
	es, err := v.Load(ctx, id, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check("Load", es)
	if es, err = v.Load(ctx, id, sessiondb.LoadOptions{LastN: 2}); err != nil {
		t.Fatal(err)
	}
	check("Load LastN", es)
	if es, err = v.Entries(ctx, id, 2, 2); err != nil {
		t.Fatal(err)
	}
	check("Entries", es)
	f, err := v.LoadFull(ctx, id, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check("LoadFull", f.Transcript)
	hits, err := v.Search(ctx, "deploy", sessiondb.SearchOptions{SessionID: id})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, h := range hits {
		found = found || h.Seq == 2
		if l := leaks([]byte(h.Snippet)); l != "" {
			t.Errorf("search snippet hands out %s: %s", l, h.Snippet)
		}
	}
	if !found {
		t.Errorf("search for a word beside the secrets lost the hit: %v", hits)
	}
	// A query for the secret itself finds nothing: a redacted reader
	// cannot probe for it.
	for _, q := range []string{plantedAWSKey, plantedPassword[:6]} {
		if hits, err := v.Search(ctx, q, sessiondb.SearchOptions{}); err != nil || len(hits) != 0 {
			t.Errorf("redacted search for %q: %v, %v", q, hits, err)
		}
	}
	// A caller that pages by offset keeps its place: the hit is there,
	// withheld, holding nothing.
	if hits, err := v.Search(ctx, plantedAWSKey, sessiondb.SearchOptions{KeepWithheld: true}); err != nil ||
		len(hits) != 1 || hits[0] != (sessiondb.Hit{Withheld: true}) {
		t.Errorf("redacted search for the key, KeepWithheld: %+v, %v (want one withheld hit)", hits, err)
	}
	if hits, err := s.Search(ctx, plantedAWSKey, sessiondb.SearchOptions{}); err != nil || len(hits) != 1 {
		t.Errorf("plain search for the key: %v, %v (want the entry: stored text is unchanged)", hits, err)
	}
}

// plantLeaky creates session id: a question, leakyBody, an answer.
func plantLeaky(t *testing.T, s sessiondb.Store, id string) []byte {
	t.Helper()
	leaky := leakyBody(t)
	_, err := s.Commit(bg(t), id, sessiondb.Commit{Create: &sessiondb.Session{Title: "leaky"},
		Append: []sessiondb.Entry{say("user", "how did we deploy?"), {Body: leaky}, say("assistant", "the deploy finished")}})
	if err != nil {
		t.Fatal(err)
	}
	return leaky
}

// secretsRedactedReads: reads of the redacted view never hand out a
// planted secret, before the scan (whatever the background scan has
// reached) and after it; the store's own reads return the stored bytes.
func secretsRedactedReads(t *testing.T, s sessiondb.Store) {
	k := keeper(t, s)
	leaky := plantLeaky(t, s, "leaky")
	checkRedacted(t, s, "leaky")
	scanAll(t, k)
	checkRedacted(t, s, "leaky")
	es, err := s.Entries(bg(t), "leaky", 2, 2)
	if err != nil || len(es) != 1 || !bytes.Equal(es[0].Body, leaky) {
		t.Fatalf("stored body changed: %v, %v", es, err)
	}
	// A view of the view is the view; a title with a token is masked.
	title := "deploy with token ghp_" + strings.Repeat("a1B2c3D4e5", 3) + "F6g7H8"
	if _, err := s.UpdateMeta(bg(t), "leaky", sessiondb.MetaPatch{Title: &title}); err != nil {
		t.Fatal(err)
	}
	got, err := k.Redacted().(sessiondb.SecretKeeper).Redacted().Get(bg(t), "leaky")
	if err != nil || strings.Contains(got.Title, "ghp_") {
		t.Fatalf("redacted title %q, %v", got.Title, err)
	}
}

// secretsListAndScrub: Secrets lists each secret once per session with
// its first sighting and never the secret; Scrub rewrites the bodies
// holding secrets (and only those), keeps seqs, records itself, and the
// secret is gone from search.
func secretsListAndScrub(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	k := keeper(t, s)
	plantLeaky(t, s, "a")
	mustAppend(t, s, "a", sessiondb.Entry{Body: leakyBody(t)}) // seq 4: the same secrets again
	// A compaction whose summary repeats the key (scanned when read).
	if _, err := s.Compact(ctx, "a", sessiondb.Compaction{KeepFromSeq: 2,
		Summary: []sessiondb.Entry{say("user", "summary: the deploy used key "+plantedAWSKey)}}); err != nil {
		t.Fatal(err)
	}
	plantLeaky(t, s, "b")
	mustAppend(t, s, "b", say("user", "unrelated"))
	found, err := k.Secrets(ctx, sessiondb.SecretQuery{})
	if err != nil {
		t.Fatal(err)
	}
	bySession := map[string]map[string]sessiondb.SecretFound{}
	for _, f := range found {
		if strings.Contains(f.Masked, plantedAWSKey) || strings.Contains(f.Masked, plantedPassword) {
			t.Errorf("Secrets prints a secret: %+v", f)
		}
		if bySession[f.SessionID] == nil {
			bySession[f.SessionID] = map[string]sessiondb.SecretFound{}
		}
		bySession[f.SessionID][f.Rule] = f
	}
	for _, id := range []string{"a", "b"} {
		aws, url := bySession[id]["aws-access-token"], bySession[id]["url-password"]
		if aws.FirstSeq != 2 || url.FirstSeq != 2 || aws.FirstAt.IsZero() {
			t.Errorf("session %s: first sightings %+v %+v", id, aws, url)
		}
		if want := map[string]int{"a": 2, "b": 1}[id]; aws.Count != want+map[string]int{"a": 1}[id] || url.Count != want {
			t.Errorf("session %s: counts %d %d, want %d (and the summary's key)", id, aws.Count, url.Count, want)
		}
	}
	if len(found) != 4 {
		t.Errorf("Secrets: %d rows, want 4: %+v", len(found), found)
	}
	only, err := k.Secrets(ctx, sessiondb.SecretQuery{SessionID: "b", Rule: "url-password"})
	if err != nil || len(only) != 1 || only[0].SessionID != "b" {
		t.Errorf("Secrets of b, url-password: %+v, %v", only, err)
	}
	// Half scanned, half not: the scrub covers both.
	if _, err := k.ScanSecrets(ctx); err != nil {
		t.Fatal(err)
	}
	before, err := s.Get(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	rawB, err := s.Entries(ctx, "b", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := k.Scrub(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Entries != 3 || rec.Secrets != 5 || rec.Rules["aws-access-token"] != 3 || rec.Rules["url-password"] != 2 {
		t.Errorf("scrub record %+v (want 2 entries and a summary message)", rec)
	}
	cs, err := s.Compactions(ctx, "a")
	if err != nil || len(cs) != 1 || len(cs[0].Summary) != 1 || leaks(cs[0].Summary[0].Body) != "" ||
		!bytes.Contains(cs[0].Summary[0].Body, []byte("[REDACTED:aws-access-token]")) {
		t.Errorf("scrubbed summary: %+v, %v", cs, err)
	}
	after, err := s.Get(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if after.Sequence != before.Sequence+1 || after.LastSeq != before.LastSeq || after.EntryCount != before.EntryCount {
		t.Errorf("scrub: session %+v, before %+v", after, before)
	}
	es, err := s.Entries(ctx, "a", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range es {
		if e.Seq != int64(i+1) || leaks(e.Body) != "" || !json.Valid(e.Body) {
			t.Errorf("scrubbed entry %d: %s", e.Seq, e.Body)
		}
	}
	if !bytes.Contains(es[1].Body, []byte("[REDACTED:url-password]")) {
		t.Errorf("scrubbed body lacks its placeholder: %s", es[1].Body)
	}
	nowB, err := s.Entries(ctx, "b", 0, 0)
	if err != nil || fmt.Sprint(nowB) != fmt.Sprint(rawB) {
		t.Errorf("scrub of a changed b: %v", err)
	}
	hits, err := s.Search(ctx, plantedAWSKey, sessiondb.SearchOptions{})
	if err != nil || hitSeqs(hits) != "b/2" {
		t.Errorf("search for the scrubbed key: %s, %v (want only b/2)", hitSeqs(hits), err)
	}
	hits, err = s.Search(ctx, "REDACTED:aws-access-token", sessiondb.SearchOptions{})
	if seqs := hitSeqs(hits); err != nil || len(hits) != 3 || !strings.Contains(seqs, "a/2") || !strings.Contains(seqs, "a/4") || !strings.Contains(seqs, "a/0") {
		t.Errorf("search for the placeholder: %s, %v (want a/2, a/4 and the summary)", seqs, err)
	}
	if found, err := k.Secrets(ctx, sessiondb.SecretQuery{SessionID: "a"}); err != nil || len(found) != 0 {
		t.Errorf("secrets of a after the scrub: %+v, %v", found, err)
	}
	scrubs, err := k.Scrubs(ctx)
	if err != nil || len(scrubs) != 1 || scrubs[0].SessionID != "a" || scrubs[0].Entries != 3 || scrubs[0].At.IsZero() {
		t.Errorf("Scrubs: %+v, %v", scrubs, err)
	}
	// Again: nothing to do, nothing recorded, no revision.
	if rec, err := k.Scrub(ctx, "a"); err != nil || rec.Entries != 0 {
		t.Errorf("second scrub: %+v, %v", rec, err)
	}
	if again, err := s.Get(ctx, "a"); err != nil || again.Sequence != after.Sequence {
		t.Errorf("second scrub bumped the sequence: %v", err)
	}
	if scrubs, err := k.Scrubs(ctx); err != nil || len(scrubs) != 1 {
		t.Errorf("Scrubs after a second scrub: %+v, %v", scrubs, err)
	}
	scanAll(t, k)
	if _, err := k.Scrub(ctx, "missing"); err == nil {
		t.Error("scrub of a missing session succeeded")
	}
}

// secretsDeleteAndPrune: the spans of deleted and pruned entries go with
// them; the scan and the listing go on.
func secretsDeleteAndPrune(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	k := keeper(t, s)
	plantLeaky(t, s, "gone")
	plantLeaky(t, s, "pruned")
	scanAll(t, k)
	if err := s.Delete(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Truncate(ctx, "pruned", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prune(ctx, "pruned"); err != nil {
		t.Fatal(err)
	}
	found, err := k.Secrets(ctx, sessiondb.SecretQuery{})
	if err != nil || len(found) != 0 {
		t.Fatalf("secrets after delete and prune: %+v, %v", found, err)
	}
	plantLeaky(t, s, "gone") // the same ID again
	scanAll(t, k)
	if found, err := k.Secrets(ctx, sessiondb.SecretQuery{}); err != nil || len(found) != 2 {
		t.Fatalf("secrets of a recreated session: %+v, %v", found, err)
	}
}

// secretsScanAfterQuiet: once the scan has found nothing left, a secret
// appended to any session is found by the next steps, wherever the
// session lies in the scan's order: the first session (before where the
// last step stopped, so the scan must wrap around) and the last. More
// sessions than one step takes, so that the steps stop part way.
func secretsScanAfterQuiet(t *testing.T, s sessiondb.Store) {
	k := keeper(t, s)
	const n = 300
	id := func(i int) string { return fmt.Sprintf("quiet-%03d", i) }
	for i := range n {
		mustCommit(t, s, id(i), sessiondb.Commit{Create: &sessiondb.Session{}, Append: []sessiondb.Entry{say("user", "nothing secret")}})
	}
	scanAll(t, k)
	more, err := k.ScanSecrets(bg(t)) // quiet: nothing new
	if err != nil || more {
		t.Fatalf("a step after the scan ended: more %v, %v", more, err)
	}
	for _, i := range []int{0, n - 1} {
		mustCommit(t, s, id(i), sessiondb.Commit{Append: []sessiondb.Entry{{Body: leakyBody(t)}}})
	}
	scanAll(t, k)
	found, err := k.Secrets(bg(t), sessiondb.SecretQuery{Rule: "aws-access-token"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.SessionID)
	}
	if want := []string{id(0), id(n - 1)}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("sessions with the key: %v, want %v", got, want)
	}
}
