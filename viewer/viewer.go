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
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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
	// TranscriptAPIPageSize is how many log entries
	// /api/sessions/{id}/transcript answers by default; ?limit= asks for
	// up to MaxTranscriptAPIPage, and X-Next-From says where the next
	// page starts.
	TranscriptAPIPageSize = 1000
	// MaxTranscriptAPIPage bounds ?limit= and ?last= of the transcript API.
	MaxTranscriptAPIPage = 10000
	// DefaultMaxRenders is Options.MaxRenders' default.
	DefaultMaxRenders = 8
	// DefaultRenderWait is Options.RenderWait's default.
	DefaultRenderWait = 2 * time.Second
	// DefaultWriteStall is Options.WriteStall's default.
	DefaultWriteStall = 30 * time.Second
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
	// MaxRenders bounds the requests answered at once (pages, API answers,
	// raw bodies; not the static files): each holds what it read from the
	// store until its answer is written, so this bounds the memory that
	// slow clients can pin. Default DefaultMaxRenders.
	MaxRenders int
	// RenderWait is how long a request waits for a free slot before it is
	// answered 503 Service Unavailable (with Retry-After). Default
	// DefaultRenderWait.
	RenderWait time.Duration
	// WriteStall bounds each write of a streamed answer (a transcript
	// page of the API): a client that stops reading is cut off after it,
	// one that reads slowly but steadily is not. Default
	// DefaultWriteStall.
	WriteStall time.Duration
	// ShowSecrets serves text as stored. By default a store that keeps
	// secrets (sessiondb.SecretKeeper) is read through its Redacted view:
	// every page, API answer and raw body shows [REDACTED:rule] where a
	// secret was found.
	ShowSecrets bool
}

// Handler serves the viewer. It only reads the store.
type Handler struct {
	st    sessiondb.Store
	opts  Options
	mux   *http.ServeMux
	pages map[string]*template.Template
	// slots holds one token per request being answered (MaxRenders).
	slots chan struct{}
	// inflight counts the requests holding a slot (tests watch it).
	inflight atomic.Int64
}

var _ http.Handler = (*Handler)(nil)

// New returns a Handler serving st.
func New(st sessiondb.Store, opts Options) (*Handler, error) {
	if opts.Log == nil {
		opts.Log = log.Default()
	}
	if opts.MaxRenders <= 0 {
		opts.MaxRenders = DefaultMaxRenders
	}
	if opts.RenderWait <= 0 {
		opts.RenderWait = DefaultRenderWait
	}
	if opts.WriteStall <= 0 {
		opts.WriteStall = DefaultWriteStall
	}
	if k, ok := st.(sessiondb.SecretKeeper); ok && !opts.ShowSecrets {
		st = k.Redacted()
	}
	h := &Handler{st: st, opts: opts, mux: http.NewServeMux(), pages: map[string]*template.Template{},
		slots: make(chan struct{}, opts.MaxRenders)}
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
		// A bug in rendering must not take the server down. An answer
		// cut off in the middle (http.ErrAbortHandler) goes on up, so
		// that net/http drops the connection and the client sees it.
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
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
			http.Redirect(w, r, localTarget(r.URL), http.StatusSeeOther)
			return
		}
		if !h.guard().Authorized(r) {
			http.Error(w, "access token required: open the URL sessionctl serve printed", http.StatusUnauthorized)
			return
		}
	}
	if !strings.HasPrefix(r.URL.Path, "/static/") {
		if !h.acquire(r.Context()) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy: too many requests at once; retry", http.StatusServiceUnavailable)
			return
		}
		defer h.release()
	}
	h.mux.ServeHTTP(w, r)
}

// acquire takes a render slot, waiting up to RenderWait; false when none
// came free (or the client went away).
func (h *Handler) acquire(ctx context.Context) bool {
	select {
	case h.slots <- struct{}{}:
	default:
		t := time.NewTimer(h.opts.RenderWait)
		defer t.Stop()
		select {
		case h.slots <- struct{}{}:
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
	h.inflight.Add(1)
	return true
}

func (h *Handler) release() {
	h.inflight.Add(-1)
	<-h.slots
}

// ServerOptions configure NewServer; zero values take the defaults.
type ServerOptions struct {
	// ReadHeaderTimeout bounds reading a request's headers. Default 10s.
	ReadHeaderTimeout time.Duration
	// WriteTimeout bounds writing an answer that is not streamed (streamed
	// transcript pages extend it write by write, see Options.WriteStall).
	// Default 60s.
	WriteTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that sends no new request.
	// Default 60s.
	IdleTimeout time.Duration
	// ErrorLog receives the server's own errors; nil: log.Default().
	ErrorLog *log.Logger
}

// NewServer returns the http.Server that sessionctl serve runs h with:
// every phase of a connection is bounded in time, so that clients that
// connect and stall, or stop reading, cannot hold connections (and what
// their handlers read) forever; together with Options.MaxRenders this
// bounds the memory slow clients can pin.
func NewServer(h http.Handler, o ServerOptions) *http.Server {
	def := func(d, v time.Duration) time.Duration {
		if d <= 0 {
			return v
		}
		return d
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: def(o.ReadHeaderTimeout, 10*time.Second),
		// Requests are GETs without bodies: reading one never takes long.
		ReadTimeout:    def(o.ReadHeaderTimeout, 10*time.Second) + 5*time.Second,
		WriteTimeout:   def(o.WriteTimeout, 60*time.Second),
		IdleTimeout:    def(o.IdleTimeout, 60*time.Second),
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       o.ErrorLog,
	}
}

// localTarget is where the token redirect sends the browser: u's path,
// cleaned to one absolute path on this server, with its query less the
// token. The request path is the client's: "//evil.example/" as it came
// would be a protocol-relative URL to another host (an open redirect
// carrying a valid token's cookie along), and browsers read "/\" as "//";
// backslashes count as slashes, and the cleaned path starts with exactly
// one "/".
func localTarget(u *url.URL) string {
	p := path.Clean("/" + strings.ReplaceAll(u.Path, "\\", "/"))
	if strings.HasSuffix(u.Path, "/") && p != "/" {
		p += "/"
	}
	target := (&url.URL{Path: p}).EscapedPath()
	// EscapedPath leaves a leading "//" alone; Clean left none, but
	// never emit one.
	target = "/" + strings.TrimLeft(target, "/")
	q := u.Query()
	q.Del("token")
	if enc := q.Encode(); enc != "" {
		target += "?" + enc
	}
	return target
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
	// usagecost is a group's cost, "unpriced" where its calls have no
	// price (costText).
	"usagecost": func(u sessiondb.UsageTotals) string { return costText(u.Cost, u.Unpriced, u.Calls) },
	"costof":    costText,
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
