// Package httpguard holds the rules every local HTTP server of sessionctl
// applies before it reads a byte of the store: which Host headers are
// served, and the access token required beyond loopback. `sessionctl
// serve` (package viewer) and `sessionctl mcp --http` (package mcpserver)
// both call it, so the two cannot drift apart.
//
// # Host
//
// Without Remote, only requests addressed to localhost or a loopback IP
// are served. A web page that points its own DNS name at 127.0.0.1 (DNS
// rebinding) sends its own name as Host and is refused, so a page the
// user visits cannot read the local server through the browser.
//
// # Token
//
// A server that listens beyond loopback needs a Token, generated at start
// (NewToken) and printed for the user; every request must then carry it,
// as "Authorization: Bearer TOKEN" or in the named cookie. Tokens are
// compared in constant time.
//
// # Slow clients
//
// BodyDeadline cuts a connection whose request body is not in within its
// deadline (a client that sends one byte a minute held a handler for
// good); the servers also set ReadHeaderTimeout for the headers.
package httpguard

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// Guard is the Host and token rules of one server.
type Guard struct {
	// Remote allows any Host header (the server listens beyond loopback
	// and Token is set).
	Remote bool
	// Token, when not empty, is required on every request.
	Token string
	// Cookie names the cookie that may carry the token ("": only the
	// Authorization header does).
	Cookie string
}

// LoopbackHost reports whether host names the loopback interface:
// localhost or a loopback IP, with or without a port and IPv6 brackets
// ("127.0.0.1:8377", "[::1]", "localhost"). An empty host (":8377", every
// interface) is not loopback.
func LoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// NewToken returns a new random access token (192 bits, hex).
func NewToken() (string, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate access token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// HostOK reports whether r's Host header may be served.
func (g Guard) HostOK(r *http.Request) bool {
	return g.Remote || LoopbackHost(r.Host)
}

// TokenOK reports whether tok is the access token.
func (g Guard) TokenOK(tok string) bool {
	return g.Token != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(g.Token)) == 1
}

// Authorized reports whether r may be served as far as the token goes:
// no token is required, or r carries it in the cookie or as a Bearer
// token.
func (g Guard) Authorized(r *http.Request) bool {
	if g.Token == "" {
		return true
	}
	if g.Cookie != "" {
		if c, err := r.Cookie(g.Cookie); err == nil && g.TokenOK(c.Value) {
			return true
		}
	}
	a := r.Header.Get("Authorization")
	return strings.HasPrefix(a, "Bearer ") && g.TokenOK(strings.TrimPrefix(a, "Bearer "))
}

// Handler serves h behind the Host and token rules: a request addressed
// to another host gets 421 Misdirected Request, one without the token 401
// with a WWW-Authenticate: Bearer challenge. what names the server in the
// refusals ("this MCP server").
func (g Guard) Handler(what string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.HostOK(r) {
			http.Error(w, what+" answers only to localhost, 127.0.0.1 and [::1]", http.StatusMisdirectedRequest)
			return
		}
		if !g.Authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="sessiondb"`)
			http.Error(w, "access token required: send the token sessionctl printed as \"Authorization: Bearer TOKEN\"", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// BodyDeadline serves h with a deadline on reading each request's body: a
// client that sends its body slowly (or never finishes it) has its
// connection cut after d, instead of holding a handler and a connection
// for good. http.Server.ReadTimeout cannot do this for a server with
// long-lived responses (an MCP event stream): its deadline also ends the
// connection's read after the body, which cancels a request still being
// answered. Here the deadline is lifted once the body has been read whole.
func BodyDeadline(d time.Duration, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			h.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Now().Add(d)); err == nil {
			r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
		}
		h.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the read deadline once the body is read whole.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{}) // the body is in: no deadline on what follows
	}
	return n, err
}
