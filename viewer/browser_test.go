package viewer

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/sessiondb/sessiondb"
)

// findChromium returns Debian's chromium (or another Chromium/Chrome on
// PATH). The browser test skips without one, except in CI (CI set), where
// .ci/run installs the package and a missing browser is a failure.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("CI is set but no chromium on PATH: .ci/run installs the chromium package")
	}
	t.Skip("no chromium on PATH (apt-get install chromium); the browser test is skipped")
	return ""
}

// artifacts is where screenshots go: $SESSIONDB_ARTIFACTS when set (CI
// keeps it), else the test's temp directory.
func artifacts(t *testing.T) string {
	if d := os.Getenv("SESSIONDB_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// browser starts headless chromium with a fresh profile and returns a tab.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := findChromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	// A bound for a wedged browser, not a speed assertion.
	ctx, cancelTimeout := context.WithTimeout(context.Background(), 3*time.Minute)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
		cancelTimeout()
	})
	// Before any page script: record CSP violations. If a hostile payload
	// ever reached the DOM as markup, the policy would block it and this
	// list would say so, even though nothing ran.
	if _, err := chromedp.Call(bctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `window.__csp = []; document.addEventListener("securitypolicyviolation", function (e) {
			window.__csp.push(e.violatedDirective + " " + e.blockedURI + " " + (e.sample || ""));
		});`,
	}); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	return bctx
}

func must[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

func mustDo(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// noScriptRan fails the test if any hostile payload executed (each sets
// window.__pwned, or parent.__pwned from a frame) or was blocked by the
// Content-Security-Policy.
func noScriptRan(t *testing.T, ctx context.Context, step string) {
	t.Helper()
	if v := must(t, ctx, step+": read __pwned", chromedp.Evaluate[string](`typeof window.__pwned`)); v != "undefined" {
		t.Fatalf("%s: transcript content executed script (window.__pwned is %s)", step, v)
	}
	if v := must(t, ctx, step+": read CSP reports", chromedp.Evaluate[[]string](`window.__csp || []`)); len(v) > 0 {
		t.Fatalf("%s: Content-Security-Policy violations: %q", step, v)
	}
	if n := must(t, ctx, step+": count js links", chromedp.Evaluate[int](`document.querySelectorAll('a[href^="javascript:" i], [onerror], [onload], [onmouseover], iframe, img, object, embed').length`)); n != 0 {
		t.Fatalf("%s: %d hostile elements in the DOM", step, n)
	}
}

func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	buf := must(t, ctx, "screenshot "+name, chromedp.FullScreenshot(100))
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", p)
}

// TestBrowser drives headless chromium through the viewer over hostile
// transcripts: the list, a search, the hit's transcript, a tool call
// expanded, the usage page, a fork from its parent. After each step no transcript content may
// have run (window.__pwned stays undefined) and no CSP violation may have
// happened. Screenshots go to $SESSIONDB_ARTIFACTS or a temp directory.
func TestBrowser(t *testing.T) {
	ctx := browser(t)
	s := seed(t)
	base := server(t, s.st, Options{}).URL
	dir := artifacts(t)

	// 1. The list: three sessions, the hostile title shown as text.
	mustDo(t, ctx, "open list", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("table.sessions")))
	if n := must(t, ctx, "rows", chromedp.Evaluate[int](`document.querySelectorAll("tr.session-row").length`)); n != 3 {
		t.Fatalf("list shows %d sessions, want 3", n)
	}
	titles := must(t, ctx, "titles", chromedp.Evaluate[string](`Array.from(document.querySelectorAll("a.title")).map(a => a.textContent).join("\n")`))
	if !strings.Contains(titles, "deploy <script>window.__pwned=1</script> \\u202etxt.exe") {
		t.Errorf("hostile title not shown as text: %q", titles)
	}
	noScriptRan(t, ctx, "list")
	screenshot(t, ctx, dir, "01-list.png")

	// 2. Search from the header box.
	mustDo(t, ctx, "search", chromedp.SendKeys(chromedp.ID("topq"), "deployed\n"), chromedp.WaitVisible(chromedp.CSS("ol.hits")))
	marks := must(t, ctx, "marks", chromedp.Evaluate[string](`Array.from(document.querySelectorAll(".hit mark")).map(m => m.textContent).join(",")`))
	if !strings.Contains(strings.ToLower(marks), "deployed") {
		t.Errorf("search highlights %q, want deployed", marks)
	}
	noScriptRan(t, ctx, "search")
	screenshot(t, ctx, dir, "02-search.png")

	// 3. The hit opens its session at the entry; app.js marks the target
	//    (so the page's own script runs under the CSP).
	mustDo(t, ctx, "open hit", chromedp.Click(chromedp.CSS("a.hit-link")), chromedp.WaitVisible(chromedp.CSS("article#e3.target")))
	loc := must(t, ctx, "location", chromedp.Evaluate[string](`location.pathname + location.search + location.hash`))
	if loc != "/s/"+s.hostile+"?at=3#e3" {
		t.Errorf("hit opened %q", loc)
	}
	h1 := must(t, ctx, "h1", chromedp.Text(chromedp.CSS("h1")))
	if !strings.Contains(h1, "<script>") {
		t.Errorf("title %q: the markup should be visible text", h1)
	}
	noScriptRan(t, ctx, "transcript")

	// 4. Expand the tool call: closed at first, open with its result after
	//    a click on its summary.
	if open := must(t, ctx, "call closed", chromedp.Evaluate[bool](`document.querySelector("details.tool.call").open`)); open {
		t.Error("tool call is open before the click")
	}
	mustDo(t, ctx, "expand call", chromedp.Click(chromedp.CSS("details.tool.call > summary")), chromedp.WaitVisible(chromedp.CSS("details.tool.call pre.result-text")))
	result := must(t, ctx, "result", chromedp.Text(chromedp.CSS("details.tool.call pre.result-text")))
	if !strings.Contains(result, "deployed web v42") || !strings.Contains(result, "<svg") {
		t.Errorf("tool result shows %q", result)
	}
	// The markdown table and code block render; the javascript: link does
	// not, and the link whose target tries to break out of its attribute
	// ([x](https://example.com/" onmouseover="…), a link to
	// https://example.com/" with a title for CommonMark) keeps the quote
	// inside its URL and adds no attribute.
	cells := must(t, ctx, "table", chromedp.Evaluate[int](`document.querySelectorAll("table.md td").length`))
	links := must(t, ctx, "links", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll(".md a")).map(a => a.href)`))
	handlers := must(t, ctx, "handlers", chromedp.Evaluate[int](`Array.from(document.querySelectorAll("*")).filter(e => Array.from(e.attributes).some(a => a.name.startsWith("on"))).length`))
	if cells < 4 || len(links) != 2 || links[0] != "https://example.com/runbook" || links[1] != "https://example.com/%22" || handlers != 0 {
		t.Errorf("markdown: %d cells, links %q, %d elements with handlers", cells, links, handlers)
	}
	noScriptRan(t, ctx, "tool call")
	screenshot(t, ctx, dir, "03-transcript.png")

	// 5. Expand all, then the usage page through the navigation.
	mustDo(t, ctx, "expand all", chromedp.Click(chromedp.CSS(`button[data-action="expand"]`)))
	if closed := must(t, ctx, "closed", chromedp.Evaluate[int](`document.querySelectorAll(".transcript details:not([open])").length`)); closed != 0 {
		t.Errorf("%d details still closed after expand all", closed)
	}
	mustDo(t, ctx, "usage", chromedp.Click(chromedp.CSS(`nav a[href="/usage"]`)), chromedp.WaitVisible(chromedp.CSS("figure.chart svg rect")))
	bars := must(t, ctx, "bars", chromedp.Evaluate[int](`document.querySelectorAll("figure.chart svg rect").length`))
	totals := must(t, ctx, "totals", chromedp.Text(chromedp.CSS("p.totals")))
	models := must(t, ctx, "models", chromedp.Evaluate[string](`Array.from(document.querySelectorAll("table.usage td:first-child")).map(td => td.textContent).join(",")`))
	if bars != 3+3+3+3 || !strings.Contains(totals, "$0.65") || !strings.Contains(models, "claude-<b>sonnet</b>") {
		t.Errorf("usage: %d bars, totals %q, models %q", bars, totals, models)
	}
	// The bars are drawn: a chart has a real size on screen.
	w := must(t, ctx, "svg width", chromedp.Evaluate[float64](`document.querySelector("figure.chart svg").getBoundingClientRect().width`))
	if w < 200 {
		t.Errorf("chart is %v px wide", w)
	}
	noScriptRan(t, ctx, "usage")
	screenshot(t, ctx, dir, "04-usage.png")

	// 6. The raw body of the hostile message is text, not a page.
	mustDo(t, ctx, "raw", chromedp.Navigate(base+"/s/"+s.hostile+"/raw/1"))
	if v := must(t, ctx, "raw pwned", chromedp.Evaluate[string](`typeof window.__pwned`)); v != "undefined" {
		t.Fatal("the raw body executed script")
	}
	if n := must(t, ctx, "raw elements", chromedp.Evaluate[int](`document.querySelectorAll("script, img, svg").length`)); n != 0 {
		t.Errorf("raw body rendered %d elements", n)
	}

	// 7. A fork with a hostile title: its parent lists it, the link opens
	//    it, and it links back to where it was forked.
	fork, err := s.st.Fork(context.Background(), s.hostile, 2, "fork/<img src=x onerror=window.__pwned=1>")
	if err != nil {
		t.Fatal(err)
	}
	title := `retry <script>window.__pwned=1</script>`
	if _, err := s.st.Commit(context.Background(), fork.ID, sessiondb.Commit{Meta: &sessiondb.MetaPatch{Title: &title}}); err != nil {
		t.Fatal(err)
	}
	mustDo(t, ctx, "parent page", chromedp.Navigate(base+"/s/"+s.hostile), chromedp.WaitVisible(chromedp.CSS("a.fork-link")))
	if got := must(t, ctx, "fork link", chromedp.Text(chromedp.CSS("a.fork-link"))); got != title {
		t.Errorf("fork link shows %q, want the title as text", got)
	}
	noScriptRan(t, ctx, "forks")
	mustDo(t, ctx, "open fork", chromedp.Click(chromedp.CSS("a.fork-link")), chromedp.WaitVisible(chromedp.CSS("article#e2")))
	if p := must(t, ctx, "fork location", chromedp.Evaluate[string](`decodeURIComponent(location.pathname)`)); p != "/s/"+fork.ID {
		t.Errorf("fork link opened %q", p)
	}
	back := must(t, ctx, "parent link", chromedp.Evaluate[string](`(document.querySelector('a[href*="?at=2#e2"]') || {}).textContent || ""`))
	if back != s.hostile {
		t.Errorf("fork page links its parent as %q, want %q", back, s.hostile)
	}
	noScriptRan(t, ctx, "fork")
	screenshot(t, ctx, dir, "05-fork.png")
}
