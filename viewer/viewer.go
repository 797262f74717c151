package viewer

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/httpguard"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Page sizes. A transcript page is a range of log positions read with
// Store.Entries, so a page of a 100,000-entry session costs what a page of
// a short one does.
const (
	// ListPageSize is the number of sessions per list page.
	ListPageSize = 50
	// TranscriptPageSize is the number of log entries per transcript page.
	TranscriptPageSize = 100
	// maxListScan bounds how many sessions one list page reads when the
	// format or date filters (which the store does not index) skip rows.
	maxListScan = 5000
	// maxForksShown is how many forks a transcript page lists (newest
	// first); /?parent=ID lists them all.
	maxForksShown = 20
)

// TokenCookie is the cookie that carries the access token once a browser
// has opened the URL with ?token=.
const TokenCookie = "sessiondb_token"

// CSP is the Content-Security-Policy of every response: nothing but this
// server's own script, styles and images, no inline script or style, no
// frames, forms submit only here.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Options configure a Handler.
type Options struct {
	// Token, when not empty, is required on every request: as ?token=
	// (which sets TokenCookie and redirects to the URL without it), as the
	// cookie, or as "Authorization: Bearer TOKEN". Set it whenever the
	// server listens on anything but loopback.
	Token string
	// Remote allows any Host header. Without it, only requests addressed
	// to localhost, 127.0.0.1 or [::1] are served, which defeats DNS
	// rebinding (a web page that points its own name at 127.0.0.1).
	Remote bool
	// Log receives one line per failed request; nil: log.Default().
	Log *log.Logger
}

// Handler serves the viewer. It only reads the store.
type Handler struct {
	st    sessiondb.Store
	opts  Options
	mux   *http.ServeMux
	pages map[string]*template.Template
}

var _ http.Handler = (*Handler)(nil)

// New returns a Handler serving st.
func New(st sessiondb.Store, opts Options) (*Handler, error) {
	if opts.Log == nil {
		opts.Log = log.Default()
	}
	h := &Handler{st: st, opts: opts, mux: http.NewServeMux(), pages: map[string]*template.Template{}}
	for _, p := range []string{"list", "session", "search", "usage", "error"} {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+p+".html")
		if err != nil {
			return nil, fmt.Errorf("parse template %s: %w", p, err)
		}
		h.pages[p] = t
	}
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, err
	}
	h.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	h.mux.HandleFunc("GET /{$}", h.listPage)
	h.mux.HandleFunc("GET /s/{id}", h.sessionPage)
	h.mux.HandleFunc("GET /s/{id}/raw/{seq}", h.rawEntry)
	h.mux.HandleFunc("GET /search", h.searchPage)
	h.mux.HandleFunc("GET /usage", h.usagePage)
	h.mux.HandleFunc("GET /api/sessions", h.apiList)
	h.mux.HandleFunc("GET /api/sessions/{id}", h.apiSession)
	h.mux.HandleFunc("GET /api/sessions/{id}/transcript", h.apiTranscript)
	h.mux.HandleFunc("GET /api/search", h.apiSearch)
	h.mux.HandleFunc("GET /api/usage", h.apiUsage)
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, http.StatusNotFound, errors.New("no such page"))
	})
	return h, nil
}

// ServeHTTP applies the security headers, the method, host and token
// checks, then routes the request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("Cross-Origin-Resource-Policy", "same-origin")
	hd.Set("Cache-Control", "no-store")
	defer func() {
		// A bug in rendering must not take the server down.
		if v := recover(); v != nil {
			h.opts.Log.Printf("viewer: panic serving %s: %v", r.URL.Path, v)
			http.Error(w, "internal error", http.StatusInternalServerError)
		}
	}()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "read-only viewer: only GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	if !h.guard().HostOK(r) {
		http.Error(w, "this viewer answers only to localhost, 127.0.0.1 and [::1]", http.StatusMisdirectedRequest)
		return
	}
	if h.opts.Token != "" {
		if tok := r.URL.Query().Get("token"); tok != "" && h.guard().TokenOK(tok) {
			http.SetCookie(w, &http.Cookie{Name: TokenCookie, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			u := *r.URL
			q := u.Query()
			q.Del("token")
			u.RawQuery = q.Encode()
			http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
			return
		}
		if !h.guard().Authorized(r) {
			http.Error(w, "access token required: open the URL sessionctl serve printed", http.StatusUnauthorized)
			return
		}
	}
	h.mux.ServeHTTP(w, r)
}

// guard is the Host and token rules (package httpguard), which
// `sessionctl mcp --http` applies too.
func (h *Handler) guard() httpguard.Guard {
	return httpguard.Guard{Remote: h.opts.Remote, Token: h.opts.Token, Cookie: TokenCookie}
}

// status maps a store error to an HTTP status.
func status(err error) int {
	switch {
	case errors.Is(err, sessiondb.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, sessiondb.ErrInvalid):
		return http.StatusBadRequest
	case errors.Is(err, context.Canceled):
		return 499
	}
	return http.StatusInternalServerError
}

type errorPage struct {
	Title  string
	Status int
	Msg    string
}

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, code int, err error) {
	if code >= 500 {
		h.opts.Log.Printf("viewer: %s: %v", r.URL.Path, err)
	}
	if strings.HasPrefix(r.URL.Path, "/api/") {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(code)
		_ = writeJSON(w, map[string]string{"error": err.Error()})
		return
	}
	h.render(w, r, code, "error", errorPage{Title: http.StatusText(code), Status: code, Msg: err.Error()})
}

// pageBufs recycles the buffers pages are rendered into: a transcript
// page is a few hundred KiB, which would otherwise be grown from nothing
// on every request.
var pageBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuf keeps the pool from holding on to an outsized page.
const maxPooledBuf = 4 << 20

func (h *Handler) render(w http.ResponseWriter, r *http.Request, code int, name string, data any) {
	b := pageBufs.Get().(*bytes.Buffer)
	b.Reset()
	defer func() {
		if b.Cap() <= maxPooledBuf {
			pageBufs.Put(b)
		}
	}()
	if err := h.pages[name].Execute(b, data); err != nil {
		h.opts.Log.Printf("viewer: render %s: %v", name, err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	// Stored text is escaped by html/template, which leaves bidi
	// overrides and control characters alone: one pass over the page
	// makes them visible wherever they came from (titles, aliases, IDs,
	// snippets). The templates themselves hold none. The pass only reads
	// the page; it is copied only when something must be escaped.
	page := b.Bytes()
	if needsEscape(page) {
		page = []byte(visible(string(page)))
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		_, _ = w.Write(page)
	}
}

var funcs = template.FuncMap{
	"query": func(kv ...any) template.URL {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			if s := fmt.Sprint(kv[i+1]); s != "" && s != "0" && s != "false" {
				v.Set(fmt.Sprint(kv[i]), s)
			}
		}
		return template.URL("?" + v.Encode())
	},
	"num":  formatInt,
	"pe":   url.PathEscape,
	"sub":  func(a, b int) int { return a - b },
	"cost": func(c float64) string { return fmt.Sprintf("$%.2f", c) },
}

// formatInt writes n with thin separators every three digits.
func formatInt(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
