package viewer

import (
	"context"
	"net/url"
	"os"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestDocsScreenshots makes the README's screenshots (docs/viewer-*.png)
// from a real database: it runs only when SESSIONDB_DOCS_DB names one,
// opened read-only, and writes to $SESSIONDB_ARTIFACTS. The committed ones
// come from the repository's sample archives:
//
//	go run ./cmd/sessionctl --db /tmp/docs.db import testdata/samples
//	SESSIONDB_DOCS_DB=/tmp/docs.db SESSIONDB_ARTIFACTS=docs go test -run TestDocsScreenshots ./viewer/
func TestDocsScreenshots(t *testing.T) {
	db := os.Getenv("SESSIONDB_DOCS_DB")
	if db == "" {
		t.Skip("SESSIONDB_DOCS_DB is not set")
	}
	st, err := sqlstore.Open(db, &sqlstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// The transcript shown: the longest session with a tool call.
	infos, _, err := st.List(context.Background(), sessiondb.ListOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var longest sessiondb.SessionInfo
	for _, si := range infos {
		if si.MessageCount > longest.MessageCount {
			longest = si
		}
	}
	base := server(t, st, Options{}).URL
	dir := artifacts(t)
	ctx := browser(t)
	mustDo(t, ctx, "list", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("table.sessions")))
	mustDo(t, ctx, "viewport", chromedp.EmulateViewport(1280, 800))
	screenshotViewport(t, ctx, dir, "viewer-list.png")
	mustDo(t, ctx, "transcript", chromedp.Navigate(base+"/s/"+url.PathEscape(longest.ID)), chromedp.WaitVisible(chromedp.CSS(".transcript")))
	_, _ = chromedp.Run(ctx, chromedp.Evaluate[bool](`(function(){var d=document.querySelector("details.tool.call"); if(d){d.open=true;} return !!d})()`))
	screenshotViewport(t, ctx, dir, "viewer-transcript.png")
	mustDo(t, ctx, "usage", chromedp.Navigate(base+"/usage"), chromedp.WaitVisible(chromedp.CSS("p.totals")))
	screenshotViewport(t, ctx, dir, "viewer-usage.png")
}

func screenshotViewport(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	buf := must(t, ctx, "screenshot "+name, chromedp.CaptureScreenshot())
	p := dir + "/" + name
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", p)
}
