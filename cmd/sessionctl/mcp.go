package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb/internal/httpguard"
	"github.com/sessiondb/sessiondb/mcpserver"
)

type mcpOptions struct {
	http        string
	allowRemote bool
}

func (a *app) mcpCommand() *cobra.Command {
	var o mcpOptions
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the sessions to AI agents over the Model Context Protocol (read-only)",
		Long: `Mcp runs a read-only MCP server on the database, so that an agent (Claude
Code, Codex, pi, any MCP client) can search and read past sessions. By default
it speaks MCP on stdin and stdout until the client closes them; with --http it
serves the streamable HTTP transport at http://ADDR/mcp until Ctrl-C.

Tools: search, list_sessions, read_transcript, session_info, usage; each
session is also a resource, sessiondb://session/{id}. Every answer is bounded
(24 KiB by default, max_bytes up to 256 KiB) and returns a cursor to go on.
Transcript text is returned as quoted data with control and bidi characters
made visible. The database is opened read-only; no tool writes.

--http listens on loopback only, with serve's rules: requests addressed to any
other host are refused, and any other address needs --allow-remote, and then
every request must carry the access token printed at start as
"Authorization: Bearer TOKEN".

Registered before the first import, it starts all the same: with no sessions,
a line on stderr and a note in every answer saying that the database does not
exist yet; it creates nothing, and serves the database once an import has
created it.

Register it with Claude Code, for every project (sessionctl from go install, in
$(go env GOPATH)/bin; Claude Code may not have that directory on its PATH, so
give the full path):
  claude mcp add --scope user sessiondb -- "$(go env GOPATH)/bin/sessionctl" mcp
and with Codex, in ~/.codex/config.toml:
  [mcp_servers.sessiondb]
  command = "sessionctl"   # or the full path, as above
  args = ["mcp"]`,
		Example: `  sessionctl mcp
  sessionctl --db postgres://app@db.internal/agents mcp
  sessionctl mcp --http 127.0.0.1:8378`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if o.http != "" {
				host, _, err := net.SplitHostPort(o.http)
				if err != nil {
					return usageErrorf(c, "--http %q: want HOST:PORT", o.http)
				}
				if !isLoopback(host) && !o.allowRemote {
					return usageErrorf(c, "--http %s is not a loopback address: pass --allow-remote to serve the network (a token is then required)", o.http)
				}
			} else if o.allowRemote {
				return usageErrorf(c, "--allow-remote goes with --http")
			}
			return a.runMCP(o)
		},
	}
	c.Flags().StringVar(&o.http, "http", "", "serve the streamable HTTP transport on HOST:PORT (loopback) instead of stdio")
	c.Flags().BoolVar(&o.allowRemote, "allow-remote", false, "allow a non-loopback --http address; requests then need the printed access token")
	return c
}

func (a *app) runMCP(o mcpOptions) error {
	st, status, err := a.openMCP()
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// A model reads what this serves: always redacted (a lateStore
	// redacts the database once it appears).
	srv := mcpserver.New(redactedView(st), mcpserver.Options{Version: buildVersion(), Logger: logger, Status: status})
	if o.http == "" {
		// stdio: the client owns stdin and stdout; nothing else may be
		// printed there. End of input or a signal ends the server; a
		// line that is not JSON-RPC gets an error answer and does not.
		in, ok := a.stdin.(io.ReadCloser)
		if !ok {
			in = io.NopCloser(a.stdin)
		}
		if err := srv.Run(a.ctx, &mcpserver.StdioTransport{Reader: in, Writer: nopWriteCloser{a.stdout}}); err != nil {
			return fmt.Errorf("mcp: %w", err)
		}
		return nil
	}
	return a.serveMCPHTTP(srv, o)
}

func (a *app) serveMCPHTTP(srv *mcpserver.Server, o mcpOptions) error {
	host, _, _ := net.SplitHostPort(o.http)
	remote := !isLoopback(host)
	hopts := mcpserver.HTTPOptions{Remote: remote}
	if remote {
		var err error
		if hopts.Token, err = httpguard.NewToken(); err != nil {
			return err
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler(hopts))
	ln, err := net.Listen("tcp", o.http)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.http, err)
	}
	hs := &http.Server{
		Handler: mux,
		// No read or write timeout: a client's event stream (GET /mcp)
		// stays open for as long as its session. Every answer is bounded
		// (max_bytes), request bodies are capped at 1 MiB and must arrive
		// within 30 s (mcpserver.DefaultBodyTimeout), at most 64 sessions
		// are open at once (DefaultMaxSessions; one more is refused with
		// 503), idle sessions end after 30 minutes and idle connections
		// after 2.
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(slog.NewTextHandler(a.stderr, nil), slog.LevelWarn),
	}
	urls := serveURLs(ln.Addr().(*net.TCPAddr), "mcp", "")
	fmt.Fprintf(a.stdout, "serving MCP for %s read-only at %s\n", location(a.store), urls[0])
	for _, u := range urls[1:] {
		fmt.Fprintf(a.stdout, "  also at %s\n", u)
	}
	if remote {
		fmt.Fprintf(a.stdout, "listening beyond loopback: send \"Authorization: Bearer %s\" with every request; keep it private\n", hopts.Token)
	}
	fmt.Fprintln(a.stdout, "press Ctrl-C to stop")
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("mcp: %w", err)
	case <-a.ctx.Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(ctx); err != nil {
		_ = hs.Close()
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("mcp: %w", err)
	}
	fmt.Fprintln(a.stdout, "stopped")
	return nil
}

// nopWriteCloser lets the MCP transport "close" stdout without closing
// the process's stdout.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
