package viewer

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestBrowserRealSessions opens one real session of each of Claude Code,
// Codex and pi (testdata/real: copies from the corpus and pi's fixtures,
// imported as sessionctl import does) in headless chromium and checks
// what a reader sees by default: the session's title (not its ID, not a
// preamble), every tool call folded with its result, no bookkeeping line
// and no result entry shown apart from its call, thinking collapsed,
// injected context folded; the toggle shows the hidden lines; the Claude
// Code session's Task call links its sub-agent, whose page says it is a
// sub-agent. No transcript content may run script.
func TestBrowserRealSessions(t *testing.T) {
	ctx := browser(t)
	st, err := sqlstore.Open(filepath.Join(t.TempDir(), "real.db"), &sqlstore.Options{Durability: sqlstore.DurabilityNormal})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := jsonlimport.Import(context.Background(), st, []string{"testdata/real"}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	base := server(t, st, Options{}).URL
	dir := artifacts(t)

	for _, c := range []struct {
		format, id, title string
		minCalls          int
		bookkeeping       bool // the first page holds bookkeeping lines
		thinking          bool
		context           bool
	}{
		{jsonlimport.FormatClaudeCode, "14a6d808-84f5-46ad-9992-9a1774ea50e9", "", 15, true, true, false},
		{jsonlimport.FormatCodex, "019cf2c1-ba25-7a51-aa46-b41ecb1ca94b", "quartz meteor cliff nectar lava timber yarrow delta lemon otter grani", 2, true, false, true},
		{jsonlimport.FormatPi, "01a22fef-3217-754a-80ac-976f2c9ab61d", "Retry for the uploader", 1, true, true, false},
	} {
		s, err := st.Get(context.Background(), c.id)
		if err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		if c.title == "" {
			c.title = s.Title // Claude Code's own summary line
		}
		if s.Title != c.title || s.Title == "" {
			t.Errorf("%s: stored title %q, want %q", c.format, s.Title, c.title)
		}
		mustDo(t, ctx, c.format+" page", chromedp.Navigate(base+"/s/"+c.id), chromedp.WaitReady(chromedp.ID("transcript")))
		if h1 := must(t, ctx, c.format+" h1", chromedp.Text(chromedp.CSS("h1"))); h1 != c.title {
			t.Errorf("%s: page titled %q, want %q", c.format, h1, c.title)
		}
		// Tool calls folded with their results; none open.
		calls := must(t, ctx, c.format+" calls", chromedp.Evaluate[int](`document.querySelectorAll("details.tool.call").length`))
		withResult := must(t, ctx, c.format+" results", chromedp.Evaluate[int](`document.querySelectorAll("details.tool.call pre.result-text").length`))
		open := must(t, ctx, c.format+" open", chromedp.Evaluate[int](`document.querySelectorAll(".transcript details[open]").length`))
		if calls < c.minCalls || withResult < c.minCalls || open != 0 {
			t.Errorf("%s: %d tool calls, %d with their result, %d details open; want at least %d folded with results", c.format, calls, withResult, open, c.minCalls)
		}
		// Nothing but the conversation is shown: no bookkeeping line, no
		// result entry apart from its call, no bare JSON.
		const visibleOf = `Array.from(document.querySelectorAll(%q)).filter(e => e.offsetParent !== null).length`
		hidden := must(t, ctx, c.format+" hidden", chromedp.Evaluate[int](`document.querySelectorAll(".entry.bookkeeping, .entry.paired").length`))
		shown := must(t, ctx, c.format+" shown", chromedp.Evaluate[int](strings.Replace(visibleOf, "%q", `".entry.bookkeeping, .entry.paired, pre.json"`, 1)))
		if shown != 0 {
			t.Errorf("%s: %d bookkeeping, result or JSON entries visible by default", c.format, shown)
		}
		bk := must(t, ctx, c.format+" bookkeeping", chromedp.Evaluate[int](`document.querySelectorAll(".entry.bookkeeping").length`))
		if c.bookkeeping != (bk > 0) {
			t.Errorf("%s: %d bookkeeping lines on the page", c.format, bk)
		}
		// Thinking collapsed, context folded.
		thinking := must(t, ctx, c.format+" thinking", chromedp.Evaluate[int](`document.querySelectorAll("details.thinking:not([open])").length`))
		if c.thinking != (thinking > 0) {
			t.Errorf("%s: %d collapsed thinking blocks", c.format, thinking)
		}
		ctxBlocks := must(t, ctx, c.format+" context", chromedp.Evaluate[int](`document.querySelectorAll("details.context:not([open])").length`))
		if c.context && ctxBlocks == 0 {
			t.Errorf("%s: no folded context block", c.format)
		}
		if strings.Contains(must(t, ctx, c.format+" text", chromedp.Text(chromedp.CSS(".transcript"))), "<environment_context>") {
			t.Errorf("%s: the environment preamble is shown unfolded", c.format)
		}
		noScriptRan(t, ctx, c.format)
		screenshot(t, ctx, dir, "real-"+c.format+".png")
		// The toggle shows what was hidden.
		if hidden > 0 {
			mustDo(t, ctx, c.format+" toggle", chromedp.Click(chromedp.CSS(`button[data-action="bookkeeping"]`)))
			if n := must(t, ctx, c.format+" shown after toggle", chromedp.Evaluate[int](strings.Replace(visibleOf, "%q", `".entry.bookkeeping, .entry.paired"`, 1))); n != hidden {
				t.Errorf("%s: the toggle shows %d of %d hidden lines", c.format, n, hidden)
			}
		}
	}

	// The Claude Code session's Task calls link their sub-agents.
	cc := "14a6d808-84f5-46ad-9992-9a1774ea50e9"
	mustDo(t, ctx, "cc page", chromedp.Navigate(base+"/s/"+cc), chromedp.WaitReady(chromedp.ID("transcript")))
	links := must(t, ctx, "agent links", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("details.tool.call a.agent-link")).map(a => decodeURIComponent(a.pathname))`))
	if len(links) != 2 || links[0] != "/s/"+cc+":agent-a683c1c" && links[1] != "/s/"+cc+":agent-a683c1c" {
		t.Fatalf("sub-agent links %q", links)
	}
	mustDo(t, ctx, "open sub-agent", chromedp.Click(chromedp.CSS(`details.tool.call a.agent-link`)), chromedp.WaitVisible(chromedp.CSS("dl.meta")))
	meta := must(t, ctx, "sub-agent meta", chromedp.Text(chromedp.CSS("dl.meta")))
	if !strings.Contains(meta, "Sub-agent of") || strings.Contains(meta, "Fork of") {
		t.Errorf("sub-agent page says %q", meta)
	}
	noScriptRan(t, ctx, "sub-agent")
	mustDo(t, ctx, "list", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("table.sessions")))
	badges := must(t, ctx, "badges", chromedp.Evaluate[string](`Array.from(document.querySelectorAll("span.fork")).map(s => s.textContent).join(",")`))
	if badges != "sub-agent,sub-agent" {
		t.Errorf("list badges %q, want the two sub-agents badged sub-agent", badges)
	}
	var _ sessiondb.Store = st
}
