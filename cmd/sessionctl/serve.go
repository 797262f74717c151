package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb/internal/httpguard"
	"github.com/sessiondb/sessiondb/viewer"
)

type serveOptions struct {
	addr        string
	open        bool
	allowRemote bool
	watch       bool     // run a watcher in the same process
	watchPaths  []string // what it follows (none: the default places)
	watchOpts   watchOptions
}

func (a *app) serveCommand() *cobra.Command {
	var o serveOptions
	c := &cobra.Command{
		Use:   "serve",
		Short: "Browse the sessions in a local, read-only web viewer",
		Long: `Serve runs a read-only web viewer on the database until Ctrl-C: the
sessions (filter by text, format and date), each transcript a page at a time
with tool calls and their results, compactions and checkpoints, search across
everything, and usage charts. A JSON API under /api/ returns the shapes of
the --json outputs.

It listens on loopback only. Any other address needs --allow-remote, and then
every request must carry the access token printed at start (open the printed
URL once; the browser keeps it in a cookie). Nothing is fetched from the
network and no endpoint writes.

With --watch it also runs "sessionctl watch" in the same process (on the
default archive places, or on each --watch-path), so that the viewer shows
what the agents write as they write it; the database is then opened for
writing (by the watcher only).`,
		Example: `  sessionctl serve
  sessionctl serve --addr 127.0.0.1:9000 --open
  sessionctl serve --addr 0.0.0.0:8377 --allow-remote
  sessionctl serve --watch --open          # a live viewer of ~/.claude, ~/.codex, …`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			host, _, err := net.SplitHostPort(o.addr)
			if err != nil {
				return usageErrorf(c, "--addr %q: want HOST:PORT", o.addr)
			}
			if len(o.watchPaths) > 0 {
				o.watch = true
			}
			if err := o.watchOpts.check(c); err != nil {
				return err
			}
			if !isLoopback(host) && !o.allowRemote {
				return usageErrorf(c, "--addr %s is not a loopback address: pass --allow-remote to serve the network (a token is then required)", o.addr)
			}
			return a.runServe(o)
		},
	}
	c.Flags().StringVar(&o.addr, "addr", "127.0.0.1:8377", "listen on HOST:PORT (port 0: any free port)")
	c.Flags().BoolVar(&o.open, "open", false, "open the viewer in the default browser")
	c.Flags().BoolVar(&o.allowRemote, "allow-remote", false, "allow a non-loopback --addr; requests then need the printed access token")
	c.Flags().BoolVar(&o.watch, "watch", false, "also follow the agents' session files into the database (see sessionctl watch)")
	c.Flags().StringArrayVar(&o.watchPaths, "watch-path", nil, "a file or directory tree for --watch to follow (repeatable; implies --watch; default: the default archive places)")
	o.watchOpts.addFlags(c, "watch-")
	return c
}

// isLoopback reports whether host is localhost or a loopback IP. An empty
// host (":8377") means every interface.
func isLoopback(host string) bool { return httpguard.LoopbackHost(host) }

func (a *app) runServe(o serveOptions) error {
	open := a.openRead
	if o.watch {
		open = a.open // the watcher writes
	}
	st, err := open(&openOptions{Serving: true})
	if err != nil {
		return err
	}
	host, _, _ := net.SplitHostPort(o.addr)
	remote := !isLoopback(host)
	opts := viewer.Options{Remote: remote, Log: log.New(a.stderr, "sessionctl serve: ", 0)}
	if remote {
		if opts.Token, err = httpguard.NewToken(); err != nil {
			return err
		}
	}
	// Pages are shared and screenshotted: always redacted (the watcher
	// below writes to st itself).
	h, err := viewer.New(redactedView(st), opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.addr, err)
	}
	// Every phase of a connection has a deadline and at most
	// viewer.DefaultMaxRenders requests are answered at once: clients
	// that stall or stop reading (any web page can start such requests)
	// cannot pin memory without bound.
	srv := viewer.NewServer(h, viewer.ServerOptions{ErrorLog: opts.Log})
	urls := serveURLs(ln.Addr().(*net.TCPAddr), "", opts.Token)
	url := urls[0]
	fmt.Fprintf(a.stdout, "serving %s read-only at %s\n", location(st), url)
	for _, u := range urls[1:] {
		fmt.Fprintf(a.stdout, "  also at %s\n", u)
	}
	if remote {
		fmt.Fprintln(a.stdout, "listening beyond loopback: the token in this URL is required; keep it private")
	}
	fmt.Fprintln(a.stdout, "press Ctrl-C to stop")
	if o.open {
		if err := openBrowser(url); err != nil {
			fmt.Fprintf(a.stderr, "sessionctl: could not open a browser (%v); open %s yourself\n", err, url)
		}
	}

	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	if o.watch {
		stopWatch := a.serveWatch(st, o.watchPaths, o.watchOpts)
		defer stopWatch() // before the store is closed
	}
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-a.ctx.Done():
	}
	// Ctrl-C is how serve ends: not an error. Requests in flight get a
	// few seconds to finish before the store is closed.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		_ = srv.Close()
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	fmt.Fprintln(a.stdout, "stopped")
	return nil
}

// maxServeURLs bounds how many addresses serve prints for an unspecified
// bind address.
const maxServeURLs = 8

// serveURLs are the URLs of path a client can open on a server listening
// on addr: addr itself, unless it is unspecified (0.0.0.0, [::]), which no
// browser can open; then 127.0.0.1, the host's name, and the addresses of
// its interfaces (not link-local ones, which need a zone). The first URL
// is the one --open uses. serve and mcp --http print them.
func serveURLs(addr *net.TCPAddr, path, token string) []string {
	port := strconv.Itoa(addr.Port)
	mk := func(host string) string {
		u := "http://" + net.JoinHostPort(host, port) + "/" + path
		if token != "" {
			u += "?token=" + token
		}
		return u
	}
	if !addr.IP.IsUnspecified() {
		return []string{mk(addr.IP.String())}
	}
	urls := []string{mk("127.0.0.1")}
	if name, err := os.Hostname(); err == nil && name != "" && name != "localhost" {
		urls = append(urls, mk(name))
	}
	ifaddrs, _ := net.InterfaceAddrs()
	for _, ia := range ifaddrs {
		ipn, ok := ia.(*net.IPNet)
		if !ok || ipn.IP.IsLoopback() || ipn.IP.IsLinkLocalUnicast() || ipn.IP.IsUnspecified() {
			continue
		}
		if ipn.IP.To4() == nil && addr.IP.To4() != nil {
			continue // an IPv4 wildcard does not answer on IPv6
		}
		if len(urls) == maxServeURLs {
			break
		}
		urls = append(urls, mk(ipn.IP.String()))
	}
	return urls
}

func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
