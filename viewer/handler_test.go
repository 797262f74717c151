package viewer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

type response struct {
	code int
	hdr  http.Header
	body string
}

func get(t testing.TB, srv string, path string, hdr ...string) response {
	t.Helper()
	return do(t, http.MethodGet, srv, path, hdr...)
}

func do(t testing.TB, method, srv, path string, hdr ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, srv+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{code: resp.StatusCode, hdr: resp.Header, body: string(b)}
}

// mustPage fetches an HTML page and checks status, headers and that the
// markup holds nothing the viewer did not write itself.
func mustPage(t *testing.T, srv, path string) string {
	t.Helper()
	r := get(t, srv, path)
	if r.code != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", path, r.code, r.body)
	}
	checkHeaders(t, path, r.hdr)
	if ct := r.hdr.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("GET %s: Content-Type %q", path, ct)
	}
	if err := checkHTML(r.body); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return r.body
}

func checkHeaders(t *testing.T, path string, h http.Header) {
	t.Helper()
	csp := h.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") && !strings.Contains(csp, "sandbox") {
		t.Errorf("GET %s: CSP %q", path, csp)
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("GET %s: CSP allows inline code: %q", path, csp)
	}
	if h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("GET %s: no nosniff", path)
	}
}

func mustContain(t *testing.T, what, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("%s: missing %q", what, w)
		}
	}
}

func mustNotContain(t *testing.T, what, body string, bad ...string) {
	t.Helper()
	for _, w := range bad {
		if strings.Contains(body, w) {
			t.Errorf("%s: contains %q", what, w)
		}
	}
}

func TestPagesEscapeHostileTranscripts(t *testing.T) {
	s := seed(t)
	srv := server(t, s.st, Options{}).URL
	pages := []string{
		"/",
		"/?q=deploy",
		"/?q=" + url.QueryEscape(s.hostile),
		"/?q=" + url.QueryEscape("<script>"),
		"/?format=picoclaw&since=2026-01-01&until=2026-12-31",
		"/s/" + s.hostile,
		"/s/" + s.hostile + "?all=1",
		"/s/" + s.compacted,
		"/s/" + s.compacted + "?all=1",
		"/s/refactor",
		"/s/" + s.big,
		"/search?q=deploy",
		"/search?q=" + url.QueryEscape(`"><script>`+pwn+`</script>`),
		"/search?q=pwned",
		"/search?q=" + url.QueryEscape(`"unbalanced`),
		"/search",
		"/usage",
		"/usage?session=" + s.hostile,
	}
	for _, p := range pages {
		body := mustPage(t, srv, p)
		mustNotContain(t, p, body, "<script>", "\u202E") // tags and attributes: checkHTML
	}
}

func TestTranscriptPage(t *testing.T) {
	s := seed(t)
	srv := server(t, s.st, Options{}).URL
	body := mustPage(t, srv, "/s/"+s.hostile)
	// Escaped, visible payloads and the markdown around them.
	mustContain(t, "hostile transcript", body,
		"&lt;script&gt;window.__pwned=1&lt;/script&gt;",
		`<strong>deploy</strong>`, `<code>web</code>`,
		`<a href="https://example.com/runbook" rel="noopener noreferrer nofollow">docs</a>`,
		"click me (javascript:window.__pwned=1)", // not a link
		`\u202egnp.exe`,
		`<table class="md">`, `<pre class="code"><span class="lang">sh</span><code>make deploy`,
		`<details class="thinking">`,
		`/s/`+s.hostile+`/raw/2`,
	)
	// The tool call carries its result; the result entry points to it.
	call := strings.Index(body, `<details class="tool call">`)
	if call < 0 {
		t.Fatal("no tool call block")
	}
	end := strings.Index(body[call:], "</details>")
	block := body[call : call+end]
	mustContain(t, "tool call", block, `<span class="tool-name">bash</span>`, "call_deploy_1", "deployed web v42", `class="status ok"`)
	mustContain(t, "paired result", body, `class="entry role-user paired" id="e3"`, "shown with its call above")
}

func TestTranscriptCompactionAndCheckpoints(t *testing.T) {
	s := seed(t)
	srv := server(t, s.st, Options{}).URL
	body := mustPage(t, srv, "/s/"+s.compacted)
	mustContain(t, "effective", body, "the transcript starts at #9", "Summary: turns 1-8", `id="e9"`, `id="e12"`,
		"show superseded turns (1 compaction)", "before-rename @#6", "9,000 → 1,200 tokens")
	mustNotContain(t, "effective", body, `id="e8"`, `id="e1"`)

	all := mustPage(t, srv, "/s/"+s.compacted+"?all=1")
	mustContain(t, "all", all, `class="entry role-assistant superseded" id="e1"`, "turns before #9 are superseded", `id="e12"`,
		"effective transcript only")
	if strings.Index(all, "turns before #9") > strings.Index(all, `id="e9"`) {
		t.Error("the compaction marker is not where it cut (before #9)")
	}
	// A search hit in a superseded turn opens the full log at that turn.
	at := mustPage(t, srv, "/s/"+s.compacted+"?at=3")
	mustContain(t, "at=3", at, `superseded" id="e3"`)
}

func TestTranscriptPaging(t *testing.T) {
	s := seed(t)
	ctx := context.Background()
	var es []sessiondb.Entry
	for i := 1; i <= 250; i++ {
		es = append(es, sessiondb.Message(fmt.Sprintf(`{"role":"user","content":"line %d"}`, i)))
	}
	ls, err := s.st.Commit(ctx, "long", sessiondb.Commit{Create: &sessiondb.Session{ID: "long"}, Append: es})
	if err != nil {
		t.Fatal(err)
	}
	srv := server(t, s.st, Options{}).URL
	p1 := mustPage(t, srv, "/s/"+ls.ID)
	mustContain(t, "page 1", p1, `id="e1"`, `id="e100"`, `href="/s/long?from=101"`, `href="/s/long?from=151"`)
	mustNotContain(t, "page 1", p1, `id="e101"`)
	p2 := mustPage(t, srv, "/s/long?from=101")
	mustContain(t, "page 2", p2, `id="e101"`, `id="e200"`, `href="/s/long?from=201"`, `href="/s/long?from=1"`)
	mustNotContain(t, "page 2", p2, `id="e100"`, `id="e201"`)
	at := mustPage(t, srv, "/s/long?at=180")
	mustContain(t, "at=180", at, `id="e175"`, `id="e180"`)
}

func TestListPaging(t *testing.T) {
	s := seed(t)
	ctx := context.Background()
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 120; i++ {
		ts := base.Add(time.Duration(i) * time.Minute)
		if _, err := s.st.Create(ctx, sessiondb.Session{ID: fmt.Sprintf("bulk-%03d", i), Title: fmt.Sprintf("bulk %03d", i), CreatedAt: ts, UpdatedAt: ts}); err != nil {
			t.Fatal(err)
		}
	}
	srv := server(t, s.st, Options{}).URL
	p1 := mustPage(t, srv, "/")
	if n := strings.Count(p1, `class="session-row"`); n != ListPageSize {
		t.Fatalf("first page has %d rows, want %d", n, ListPageSize)
	}
	// Newest first: the three seeded sessions (2026), then bulk-119 down.
	mustContain(t, "page 1", p1, "deploy &lt;script&gt;", "bulk 119", "bulk 073", "$0.60", "2,500")
	i := strings.Index(p1, `class="next" href="`)
	if i < 0 {
		t.Fatal("no next link")
	}
	next := p1[i+len(`class="next" href="`):]
	next = strings.ReplaceAll(next[:strings.IndexByte(next, '"')], "&amp;", "&")
	p2 := mustPage(t, srv, next)
	mustContain(t, "page 2", p2, "bulk 072", "bulk 023")
	mustNotContain(t, "page 2", p2, "bulk 073", "bulk 022")

	// Filters: text through the store, an ID through Resolve, date and
	// format on the rows read.
	mustContain(t, "q", mustPage(t, srv, "/?q=bulk+11"), "bulk 119", "bulk 110")
	byID := mustPage(t, srv, "/?q="+s.big)
	mustContain(t, "by id", byID, "a 10 MB tool output")
	old := mustPage(t, srv, "/?until=2025-12-31")
	mustNotContain(t, "until", old, "refactor with a compaction")
	mustContain(t, "until", old, "bulk 119")
	recent := mustPage(t, srv, "/?since=2026-01-01")
	mustContain(t, "since", recent, "refactor with a compaction")
	mustNotContain(t, "since", recent, "bulk 119", `class="next"`)
	mustContain(t, "format", mustPage(t, srv, "/?format=none"), "No sessions match")
}

func TestBigBody(t *testing.T) {
	s := seed(t)
	srv := server(t, s.st, Options{}).URL
	page := mustPage(t, srv, "/s/"+s.big)
	if len(page) > 256<<10 {
		t.Errorf("page of a 10 MB body is %d bytes: the body is not clipped", len(page))
	}
	mustContain(t, "big", page, "clipped at 64 KiB")
	raw := get(t, srv, "/s/"+s.big+"/raw/2")
	if raw.code != 200 || len(raw.body) < 10<<20-200 {
		t.Fatalf("raw: %d, %d bytes", raw.code, len(raw.body))
	}
	if ct := raw.hdr.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Errorf("raw Content-Type %q", ct)
	}
	checkHeaders(t, "raw", raw.hdr)
	if !strings.HasPrefix(raw.hdr.Get("Content-Security-Policy"), "sandbox") {
		t.Errorf("raw CSP %q", raw.hdr.Get("Content-Security-Policy"))
	}
	es, _ := s.st.Entries(context.Background(), s.big, 2, 2)
	if raw.body != string(es[0].Body) {
		t.Error("raw body differs from the stored body")
	}
	if r := get(t, srv, "/s/"+s.big+"/raw/99"); r.code != 404 {
		t.Errorf("raw/99: %d", r.code)
	}
	if r := get(t, srv, "/s/"+s.big+"/raw/x"); r.code != 400 {
		t.Errorf("raw/x: %d", r.code)
	}
}

func TestSearchPage(t *testing.T) {
	s := seed(t)
	srv := server(t, s.st, Options{}).URL
	body := mustPage(t, srv, "/search?q=deployed")
	mustContain(t, "search", body, "<mark>deployed</mark>", `href="/s/`+s.hostile+`?at=3#e3"`)
	sum := mustPage(t, srv, "/search?q=renamed")
	mustContain(t, "summary hit", sum, "compaction summary", `href="/s/`+s.compacted+`"`)
	mustContain(t, "none", mustPage(t, srv, "/search?q=zzzzqqq"), "0 hits")
	long := mustPage(t, srv, "/search?q="+strings.Repeat("a", 5000))
	mustContain(t, "oversized", long, `class="error"`)
}

func TestUsagePage(t *testing.T) {
	s := seed(t)
	srv := server(t, s.st, Options{}).URL
	body := mustPage(t, srv, "/usage")
	mustContain(t, "usage", body, "Tokens per day", "Cost per model", "2026-03-19", "2026-03-21",
		"claude-&lt;b&gt;sonnet&lt;/b&gt;", "$0.65", "<svg viewBox", "<rect ")
	one := mustPage(t, srv, "/usage?session="+s.compacted)
	mustContain(t, "one session", one, "claude-haiku", "$0.05")
	mustNotContain(t, "one session", one, "gpt-5")
	if r := get(t, srv, "/usage?session=nope"); r.code != 404 {
		t.Errorf("usage of a missing session: %d", r.code)
	}
}

func TestAPIMatchesStore(t *testing.T) {
	s := seed(t)
	ctx := context.Background()
	srv := server(t, s.st, Options{}).URL
	decode := func(path string, v any) http.Header {
		t.Helper()
		r := get(t, srv, path)
		if r.code != 200 {
			t.Fatalf("GET %s: %d %s", path, r.code, r.body)
		}
		checkHeaders(t, path, r.hdr)
		if ct := r.hdr.Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Errorf("GET %s: Content-Type %q", path, ct)
		}
		if err := json.Unmarshal([]byte(r.body), v); err != nil {
			t.Fatalf("GET %s: %v\n%s", path, err, r.body)
		}
		return r.hdr
	}
	var list []SessionJSON
	hdr := decode("/api/sessions?limit=2", &list)
	infos, next, _ := s.st.List(ctx, sessiondb.ListOptions{Limit: 2})
	if len(list) != 2 || list[0].ID != infos[0].ID || list[0].Title != infos[0].Title || hdr.Get("X-Next-Cursor") != next {
		t.Fatalf("list: %+v next %q", list, hdr.Get("X-Next-Cursor"))
	}
	if *list[0].MessageCount != infos[0].MessageCount {
		t.Errorf("message_count %d, want %d", *list[0].MessageCount, infos[0].MessageCount)
	}
	var rest []SessionJSON
	decode("/api/sessions?limit=2&cursor="+url.QueryEscape(next), &rest)
	if len(rest) != 1 || rest[0].ID != s.big {
		t.Errorf("second page: %+v", rest)
	}

	var one SessionJSON
	decode("/api/sessions/refactor", &one)
	if one.ID != s.compacted || one.Aliases[0] != "refactor" {
		t.Errorf("session: %+v", one)
	}

	// Transcripts: the stored bodies byte for byte.
	for _, path := range []string{"/api/sessions/" + s.hostile + "/transcript", "/api/sessions/" + s.compacted + "/transcript"} {
		r := get(t, srv, path)
		id := strings.Split(path, "/")[3]
		es, _ := s.st.Load(ctx, id, sessiondb.LoadOptions{})
		var want bytes.Buffer
		_ = writeBodies(&want, es)
		if r.body != want.String() {
			t.Errorf("%s differs from the stored bodies", path)
		}
	}
	var bodies []json.RawMessage
	decode("/api/sessions/"+s.compacted+"/transcript?last=2", &bodies)
	if len(bodies) != 2 || !strings.Contains(string(bodies[1]), "turn 12") {
		t.Errorf("last=2: %s", bodies)
	}
	decode("/api/sessions/"+s.compacted+"/transcript?from=1&to=3", &bodies)
	if len(bodies) != 3 || !strings.Contains(string(bodies[0]), "turn 1 ") {
		t.Errorf("from=1&to=3: %s", bodies)
	}

	var hits []HitJSON
	decode("/api/search?q=deployed&limit=5", &hits)
	if len(hits) == 0 || hits[0].SessionID != s.hostile || !strings.Contains(hits[0].Snippet, "**deployed**") {
		t.Errorf("search: %+v", hits)
	}
	var usage []UsageJSON
	decode("/api/usage?by=model", &usage)
	if len(usage) != 3 {
		t.Errorf("usage by model: %+v", usage)
	}
	decode("/api/usage?by=session,day&session=refactor", &usage)
	if len(usage) != 1 || usage[0].Cost != 0.05 || usage[0].Day != "2026-03-19" || usage[0].SessionID != s.compacted {
		t.Errorf("usage of one session: %+v", usage)
	}

	// Errors are JSON with a status that says what went wrong.
	for path, code := range map[string]int{
		"/api/sessions/nope":                       404,
		"/api/sessions/nope/transcript":            404,
		"/api/sessions?cursor=bogus":               400,
		"/api/sessions?limit=0":                    400,
		"/api/search?q=":                           400,
		"/api/search?q=a&limit=5000":               400,
		"/api/usage?by=week":                       400,
		"/api/sessions/refactor/transcript?last=x": 400,
		"/api/nothing":                             404,
	} {
		r := get(t, srv, path)
		var e map[string]string
		if r.code != code || json.Unmarshal([]byte(r.body), &e) != nil || e["error"] == "" {
			t.Errorf("GET %s: %d %q, want %d and a JSON error", path, r.code, r.body, code)
		}
	}
}

func TestReadOnlyAndLoopback(t *testing.T) {
	s := seed(t)
	srv := server(t, s.st, Options{}).URL
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS"} {
		if r := do(t, m, srv, "/api/sessions"); r.code != http.StatusMethodNotAllowed || r.hdr.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: %d", m, r.code)
		}
	}
	if r := do(t, "HEAD", srv, "/"); r.code != 200 || r.body != "" {
		t.Errorf("HEAD: %d %q", r.code, r.body)
	}
	// DNS rebinding: a page on evil.example resolving to 127.0.0.1.
	for _, host := range []string{"evil.example", "evil.example:8377", "127.0.0.1.evil.example"} {
		if r := get(t, srv, "/api/sessions", "Host", host); r.code != http.StatusMisdirectedRequest {
			t.Errorf("Host %s: %d", host, r.code)
		}
	}
	for _, host := range []string{"localhost:8377", "127.0.0.1", "[::1]:9"} {
		if r := get(t, srv, "/", "Host", host); r.code != 200 {
			t.Errorf("Host %s: %d", host, r.code)
		}
	}
	if r := get(t, srv, "/static/app.js"); r.code != 200 || !strings.Contains(r.body, "DOMContentLoaded") {
		t.Errorf("app.js: %d", r.code)
	}
	if r := get(t, srv, "/s/nope"); r.code != 404 || checkHTML(r.body) != nil {
		t.Errorf("missing session: %d", r.code)
	}
	if r := get(t, srv, "/nowhere"); r.code != 404 {
		t.Errorf("unknown page: %d", r.code)
	}
	if r := get(t, srv, "/?cursor=bogus"); r.code != 400 {
		t.Errorf("bad cursor: %d", r.code)
	}
	if r := get(t, srv, "/?since=yesterday"); r.code != 400 {
		t.Errorf("bad date: %d", r.code)
	}
}

func TestAccessToken(t *testing.T) {
	s := seed(t)
	const tok = "0123456789abcdef"
	srv := server(t, s.st, Options{Token: tok, Remote: true}).URL
	for _, p := range []string{"/", "/api/sessions", "/static/app.js", "/s/" + s.hostile + "/raw/1", "/?token=wrong"} {
		if r := get(t, srv, p); r.code != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d", p, r.code)
		}
	}
	r := get(t, srv, "/search?q=deploy&token="+tok, "Host", "box.lan:8377")
	if r.code != http.StatusSeeOther || r.hdr.Get("Location") != "/search?q=deploy" {
		t.Fatalf("token URL: %d, Location %q", r.code, r.hdr.Get("Location"))
	}
	cookie := r.hdr.Get("Set-Cookie")
	if !strings.Contains(cookie, TokenCookie+"="+tok) || !strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Strict") {
		t.Errorf("cookie %q", cookie)
	}
	if r := get(t, srv, "/", "Cookie", TokenCookie+"="+tok); r.code != 200 {
		t.Errorf("with cookie: %d", r.code)
	}
	if r := get(t, srv, "/", "Cookie", TokenCookie+"=nope"); r.code != 401 {
		t.Errorf("with a wrong cookie: %d", r.code)
	}
	if r := get(t, srv, "/api/sessions", "Authorization", "Bearer "+tok); r.code != 200 {
		t.Errorf("with bearer: %d", r.code)
	}
}

// failStore fails every call, to check that store errors become error
// pages and not panics.
type failStore struct{ sessiondb.Store }

func (failStore) List(context.Context, sessiondb.ListOptions) ([]sessiondb.SessionInfo, string, error) {
	return nil, "", sessiondb.ErrClosed
}
func (failStore) Resolve(context.Context, string) (string, error) { return "", sessiondb.ErrClosed }
func (failStore) Search(context.Context, string, sessiondb.SearchOptions) ([]sessiondb.Hit, error) {
	return nil, sessiondb.ErrClosed
}
func (failStore) UsageReport(context.Context, sessiondb.UsageQuery) ([]sessiondb.UsageRow, error) {
	return nil, sessiondb.ErrClosed
}

func TestStoreErrors(t *testing.T) {
	srv := server(t, failStore{}, Options{Log: discard()}).URL
	for _, p := range []string{"/", "/s/x", "/search?q=a", "/usage", "/api/sessions", "/api/sessions/x", "/api/search?q=a", "/api/usage"} {
		if r := get(t, srv, p); r.code != 500 {
			t.Errorf("GET %s: %d", p, r.code)
		}
	}
}

// TestTranscriptForks: a session's page lists its forks (newest first,
// hostile titles escaped, each with the position it was forked at linking
// to that entry), links to the list of all of them when there are more
// than maxForksShown, and the list page filters by parent.
func TestTranscriptForks(t *testing.T) {
	s := seed(t)
	ctx := context.Background()
	fork := func(at int64, id, title string) {
		t.Helper()
		if _, err := s.st.Fork(ctx, s.compacted, at, id); err != nil {
			t.Fatal(err)
		}
		if _, err := s.st.UpdateMeta(ctx, id, sessiondb.MetaPatch{Title: &title}); err != nil {
			t.Fatal(err)
		}
	}
	fork(10, "fork-hostile", `evil <script>`+pwn+`</script> <img src=x onerror="`+pwn+`"> `+"\u202Etxt.exe")
	fork(4, "fork-untitled", "")
	if _, err := s.st.Fork(ctx, "fork-hostile", 2, "grandchild"); err != nil {
		t.Fatal(err)
	}
	srv := server(t, s.st, Options{}).URL

	body := mustPage(t, srv, "/s/"+s.compacted)
	mustNotContain(t, "forks", body, "<script>", "\u202E", `onerror="`, "all forks", "grandchild")
	mustContain(t, "forks", body, `<div class="forks">`,
		`<a class="fork-link" href="/s/fork-hostile"`, `evil &lt;script&gt;window.__pwned=1&lt;/script&gt; &lt;img src=x onerror=&#34;window.__pwned=1&#34;&gt; \u202etxt.exe</a>`,
		`<a class="fork-at" href="/s/`+s.compacted+`?at=10#e10">@#10</a>`,
		`<a class="fork-link" href="/s/fork-untitled">fork-untitled</a>`,
		`href="/s/`+s.compacted+`?at=4#e4">@#4</a>`)
	if strings.Index(body, "fork-untitled") > strings.Index(body, "fork-hostile") {
		t.Error("forks are not newest first")
	}
	// The entry a fork link points at is on the page it opens.
	mustContain(t, "fork position", mustPage(t, srv, "/s/"+s.compacted+"?at=4"), `id="e4"`)
	// The fork links back to its parent; its own fork is listed on its page.
	mustContain(t, "the fork's page", mustPage(t, srv, "/s/fork-hostile"),
		`<a href="/s/`+s.compacted+`?at=10#e10">`+s.compacted+`</a> at #10`, `<a class="fork-link" href="/s/grandchild"`)
	// Sessions without forks show no forks line.
	mustNotContain(t, "no forks", mustPage(t, srv, "/s/"+s.hostile), `<div class="forks">`)

	for i := 0; i < maxForksShown; i++ {
		if _, err := s.st.Fork(ctx, s.compacted, 12, fmt.Sprintf("more-%02d", i)); err != nil {
			t.Fatal(err)
		}
	}
	body = mustPage(t, srv, "/s/"+s.compacted)
	if n := strings.Count(body, `<a class="fork-link" `); n != maxForksShown {
		t.Errorf("the page lists %d forks, want %d", n, maxForksShown)
	}
	mustContain(t, "many forks", body, `<a class="all-forks" href="/?parent=`+s.compacted+`">all forks »</a>`, "more-19")
	mustNotContain(t, "many forks", body, "fork-untitled") // the oldest is on the list page

	list := mustPage(t, srv, "/?parent="+s.compacted)
	mustContain(t, "list of forks", list, `<h1>Forks of <a href="/s/`+s.compacted+`">`, "fork-untitled", "more-00",
		`evil &lt;script&gt;`, `<input type="hidden" name="parent" value="`+s.compacted+`">`)
	mustNotContain(t, "list of forks", list, "grandchild", "a 10 MB tool output", "<script>")
	if n := strings.Count(list, `class="session-row"`); n != maxForksShown+2 {
		t.Errorf("/?parent= lists %d sessions, want %d", n, maxForksShown+2)
	}
	mustContain(t, "no forks", mustPage(t, srv, "/?parent="+s.big), "No forks.")

	var api []SessionJSON
	if err := json.Unmarshal([]byte(get(t, srv, "/api/sessions?parent=fork-hostile").body), &api); err != nil {
		t.Fatal(err)
	}
	if len(api) != 1 || api[0].ID != "grandchild" || api[0].ParentID != "fork-hostile" || api[0].ForkSeq != 2 {
		t.Errorf("/api/sessions?parent=fork-hostile = %+v, want grandchild forked at 2", api)
	}
}

// usageCounter counts UsageTotals calls; with strip, its List drops the
// totals ListOptions.Usage asked for, as a store that ignores it would.
type usageCounter struct {
	sessiondb.Store
	strip bool
	calls atomic.Int64
}

func (c *usageCounter) UsageTotals(ctx context.Context, id string) (sessiondb.UsageTotals, error) {
	c.calls.Add(1)
	return c.Store.UsageTotals(ctx, id)
}

func (c *usageCounter) List(ctx context.Context, opts sessiondb.ListOptions) ([]sessiondb.SessionInfo, string, error) {
	infos, next, err := c.Store.List(ctx, opts)
	if c.strip {
		for i := range infos {
			infos[i].Usage = nil
		}
	}
	return infos, next, err
}

// TestListBatchedUsage: the list page takes each row's usage totals from
// the List page (no UsageTotals call per row) and shows the same figures
// as a store that must be asked row by row.
func TestListBatchedUsage(t *testing.T) {
	s := seed(t)
	for _, strip := range []bool{false, true} {
		c := &usageCounter{Store: s.st, strip: strip}
		body := mustPage(t, server(t, c, Options{}).URL, "/")
		if n := strings.Count(body, `class="session-row"`); n != 3 {
			t.Fatalf("strip=%v: %d rows, want 3", strip, n)
		}
		// hostile: 2,000 input + 500 output tokens, $0.60; compacted:
		// 5,900 tokens, $0.05; big: no usage.
		mustContain(t, "usage", body, `<td class="n">2,500</td>`, `<td class="n">$0.60</td>`,
			`<td class="n">5,900</td>`, `<td class="n">$0.05</td>`, `<td class="n">0</td>`)
		want := int64(0)
		if strip {
			want = 3
		}
		if got := c.calls.Load(); got != want {
			t.Errorf("strip=%v: %d UsageTotals calls for one page, want %d", strip, got, want)
		}
	}
}

// TestTranscriptOneResponseOneCard: the lines of one streamed Claude Code
// response (a message and its message-part entries) are one card whose
// header names their positions, each keeping its anchor and raw link;
// each tool call says what it ran before it is opened; the parallel
// results show inside their calls.
func TestTranscriptOneResponseOneCard(t *testing.T) {
	s := seed(t)
	ctx := context.Background()
	line := func(kind, role, body string) sessiondb.Entry {
		return sessiondb.Entry{Kind: kind, Role: role, Body: []byte(body)}
	}
	if _, err := s.st.Commit(ctx, "cc-parts", sessiondb.Commit{Create: &sessiondb.Session{SourceFormat: "claude-code", Title: "parts"}, Append: []sessiondb.Entry{
		line("message", "user", `{"type":"user","message":{"role":"user","content":"Check the build."}}`),
		line("message", "assistant", `{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Checking."}]}}`),
		line("message-part", "assistant", `{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go build ./... && echo ok"}}]}}`),
		line("progress", "", `{"type":"progress","data":{"type":"hook_progress"}}`),
		line("message-part", "assistant", `{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/src/go.mod"}}]}}`),
		line("message", "user", `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`),
		line("message-part", "user", `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"module x"}]}}`),
	}}); err != nil {
		t.Fatal(err)
	}
	srv := server(t, s.st, Options{}).URL
	body := mustPage(t, srv, "/s/cc-parts")
	if n := strings.Count(body, `<article class="entry role-assistant`); n != 1 {
		t.Errorf("%d assistant cards for one response, want 1", n)
	}
	mustContain(t, "one card", body,
		`id="e2"`, `id="e3"`, `id="e5"`, `>#2–5</a>`, `/s/cc-parts/raw/3">raw #3</a>`, `/s/cc-parts/raw/5">raw #5</a>`,
		`<code class="tool-what">go build ./... &amp;&amp; echo ok</code>`,
		`<code class="tool-what">/src/go.mod</code>`,
		// Both results found their calls: the results' card is a pointer.
		`class="entry role-user paired" id="e6"`, `>#6–7</a>`)
	if n := strings.Count(body, `<details class="tool call">`); n != 2 {
		t.Errorf("%d tool call blocks, want 2", n)
	}
}

// TestProjectFilter: the list page and search filter by project (the
// sessions' working directory), the list shows each session's project,
// and a session's page links to its project's sessions.
func TestProjectFilter(t *testing.T) {
	s := seed(t)
	ctx := context.Background()
	for id, p := range map[string]string{"oc-1": "/Users/me/src/OpenCore", "hv-1": "/home/me/harvest"} {
		if _, err := s.st.Commit(ctx, id, sessiondb.Commit{Create: &sessiondb.Session{Project: p, Title: "about " + id},
			Append: []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"the breakwater plan"}`)}}); err != nil {
			t.Fatal(err)
		}
	}
	srv := server(t, s.st, Options{}).URL
	body := mustPage(t, srv, "/?project=opencore")
	mustContain(t, "list by project", body, `href="/s/oc-1"`, `<div class="project">/Users/me/src/OpenCore</div>`, `name="project" value="opencore"`)
	if strings.Contains(body, `href="/s/hv-1"`) || strings.Contains(body, "/s/"+s.hostile) {
		t.Errorf("the project filter lets other sessions through")
	}
	body = mustPage(t, srv, "/search?q=breakwater&project=harvest")
	if !strings.Contains(body, `/s/hv-1`) || strings.Contains(body, `/s/oc-1`) {
		t.Errorf("search by project: %s", body)
	}
	body = mustPage(t, srv, "/s/oc-1")
	mustContain(t, "session project", body, `<dt>Project</dt>`, `href="/?project=%2FUsers%2Fme%2Fsrc%2FOpenCore"`)
}
