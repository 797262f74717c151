package viewer

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"io"
	"math"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
)

// Shared exports: a session's effective transcript as one file people
// can read, send and archive (sessionctl export --format html|markdown).
// Both are read the way the session page reads a transcript (viewEntry:
// jsonlimport.Understand, one card per API response, each tool call
// paired with its result) but whole: nothing is clipped, every message is
// in the one file, bookkeeping lines are left out. The caller chooses
// what is shown: sessionctl passes the store's redacted view unless
// --no-redact.

// shareData is what both exports render.
type shareData struct {
	Title    string
	S        sessiondb.Session
	SubAgent bool
	Entries  []entryView
	CSS      template.CSS
}

// readShare reads session idOrAlias for an export: the session, and the
// views of its effective transcript (the latest compaction's summary
// first, marked Summary), bookkeeping lines left out, the further lines
// of a response merged into its card, results paired with their calls.
func readShare(ctx context.Context, st sessiondb.Store, idOrAlias string) (shareData, error) {
	var d shareData
	id, err := st.Resolve(ctx, idOrAlias)
	if err != nil {
		return d, err
	}
	full, err := st.LoadFull(ctx, id, sessiondb.LoadOptions{})
	if err != nil {
		return d, err
	}
	d.S = full.Session
	d.Title = d.S.Title
	if d.Title == "" {
		d.Title = d.S.ID
	}
	d.SubAgent = jsonlimport.SubAgent(d.S)
	format := d.S.SourceFormat
	views := make([]entryView, 0, len(full.Transcript))
	for _, e := range full.Transcript {
		v := viewEntryMax(format, e, math.MaxInt)
		if v.Bookkeeping {
			continue
		}
		views = append(views, v)
	}
	d.Entries = mergeParts(views)
	pairCalls(d.Entries)
	return d, nil
}

var shareTemplate = template.Must(template.New("share.html").Funcs(funcs).ParseFS(templateFS, "templates/share.html", "templates/session.html"))

// WriteHTML writes session idOrAlias of st as one self-contained HTML
// page: the viewer's stylesheet inline, no script, no link to anything
// to load (a Content-Security-Policy forbids scripts, and images,
// frames and fetches, should any markup get through), every stored text
// escaped by html/template and its markdown rendered by the viewer's
// safe renderer; tool calls, their results, thinking and injected
// context folded in <details> as on the session page. Bidi and control
// characters are made visible.
func WriteHTML(ctx context.Context, st sessiondb.Store, idOrAlias string, w io.Writer) error {
	d, err := readShare(ctx, st, idOrAlias)
	if err != nil {
		return err
	}
	css, err := staticFS.ReadFile("static/style.css")
	if err != nil {
		return err
	}
	d.CSS = template.CSS(css)
	var b bytes.Buffer
	if err := shareTemplate.Execute(&b, d); err != nil {
		return fmt.Errorf("render %s: %w", d.S.ID, err)
	}
	page := b.Bytes()
	if needsEscape(page) {
		page = []byte(visible(string(page)))
	}
	_, err = w.Write(page)
	return err
}
