package viewer

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// bigSession stores a session of n entries of size bytes each and returns
// the store.
func bigSession(t *testing.T, id string, n, size int) sessiondb.Store {
	t.Helper()
	st, err := sqlstore.Open(filepath.Join(t.TempDir(), "big.db"), &sqlstore.Options{IndexDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	filler := strings.Repeat("x", size-64)
	for i := 0; i < n; i += 8 {
		var es []sessiondb.Entry
		for j := i; j < min(n, i+8); j++ {
			es = append(es, sessiondb.Message(fmt.Sprintf(`{"role":"user","content":"%d %s"}`, j, filler)))
		}
		if _, err := st.Commit(context.Background(), id, sessiondb.Commit{CreateIfMissing: &sessiondb.Session{}, Append: es}); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// startServer serves h with NewServer's settings on a loopback port.
func startServer(t *testing.T, h http.Handler, o ServerOptions) (string, *Handler) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(h, o)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	hh, _ := h.(*Handler)
	return ln.Addr().String(), hh
}

// stuckClient sends a GET and never reads the answer.
func stuckClient(t *testing.T, addr, path string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", path); err != nil {
		t.Fatal(err)
	}
	return c
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestSlowClientsHoldBoundedMemory (issue 23 item 5): clients that request
// a large session's JSON transcript and read nothing cannot make the
// server hold the transcript (or its JSON) for each of them: the answer
// is streamed a few entries at a time. Measured in-process (live heap
// after GC, sampled while the requests are in their handlers), with a
// generous bound; not a timing assertion.
func TestSlowClientsHoldBoundedMemory(t *testing.T) {
	const (
		clients = 8
		entries = 48
		size    = 512 << 10 // 24 MiB per transcript
		bound   = 64 << 20  // what the 8 stuck requests may hold together
	)
	st := bigSession(t, "big", entries, size)
	h, err := New(st, Options{Log: discard(), MaxRenders: clients})
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := startServer(t, h, ServerOptions{})
	base := liveHeap()
	for range clients {
		stuckClient(t, addr, "/api/sessions/big/transcript")
	}
	// Wait until every request is inside its handler, then sample the
	// live heap for a while.
	deadline := time.Now().Add(30 * time.Second)
	for h.inflight.Load() < clients && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := h.inflight.Load(); n < clients {
		t.Fatalf("%d of %d requests reached their handler", n, clients)
	}
	var peak uint64
	for range 20 {
		peak = max(peak, liveHeap())
		time.Sleep(50 * time.Millisecond)
	}
	grew := int64(peak) - int64(base)
	t.Logf("%d stuck clients of a %d MiB transcript: live heap grew by %.1f MiB (bound %d MiB)", clients, entries*size>>20, float64(grew)/(1<<20), bound>>20)
	if grew > bound {
		t.Errorf("%d clients that read nothing made the live heap grow by %d MiB, over %d MiB: the transcript is held per client", clients, grew>>20, bound>>20)
	}
}

// TestTranscriptAPIPages (issue 23 item 5): the transcript API answers a
// page at a time by default (TranscriptAPIPageSize log entries), says
// where the next page starts (X-Next-From), takes ?limit= up to
// MaxTranscriptAPIPage, and the pages put together are the transcript.
func TestTranscriptAPIPages(t *testing.T) {
	st := bigSession(t, "long", 2500, 200)
	h, err := New(st, Options{Log: discard()})
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := startServer(t, h, ServerOptions{})
	srv := "http://" + addr
	var all []json.RawMessage
	path := "/api/sessions/long/transcript"
	for pages := 0; path != ""; pages++ {
		r := get(t, srv, path)
		var page []json.RawMessage
		if r.code != 200 || json.Unmarshal([]byte(r.body), &page) != nil {
			t.Fatalf("GET %s: %d %.200s", path, r.code, r.body)
		}
		if pages == 0 && len(page) != TranscriptAPIPageSize {
			t.Errorf("first page: %d entries, want the default page of %d", len(page), TranscriptAPIPageSize)
		}
		all = append(all, page...)
		path = ""
		if next := r.hdr.Get("X-Next-From"); next != "" {
			path = "/api/sessions/long/transcript?from=" + next
		}
		if pages > 10 {
			t.Fatal("too many pages")
		}
	}
	want, _ := st.Load(context.Background(), "long", sessiondb.LoadOptions{})
	if len(all) != len(want) {
		t.Fatalf("the pages hold %d entries, the transcript %d", len(all), len(want))
	}
	for i := range want {
		if string(all[i]) != string(want[i].Body) {
			t.Fatalf("entry %d differs", i)
		}
	}
	r := get(t, srv, "/api/sessions/long/transcript?limit=2000")
	var page []json.RawMessage
	if json.Unmarshal([]byte(r.body), &page) != nil || len(page) != 2000 || r.hdr.Get("X-Next-From") != "2001" {
		t.Errorf("limit=2000: %d entries, next %q", len(page), r.hdr.Get("X-Next-From"))
	}
	for _, p := range []string{"?limit=0", fmt.Sprintf("?limit=%d", MaxTranscriptAPIPage+1), fmt.Sprintf("?last=%d", MaxTranscriptAPIPage+1), "?limit=x"} {
		if r := get(t, srv, "/api/sessions/long/transcript"+p); r.code != http.StatusBadRequest {
			t.Errorf("GET %s: %d, want 400", p, r.code)
		}
	}
}

// TestBusyAnswers503AndStalledWritesEnd (issue 23 item 5): when every
// render slot is taken, a request waits RenderWait and is answered 503;
// a client that stops reading is cut off after WriteStall, which frees its
// slot.
func TestBusyAnswers503AndStalledWritesEnd(t *testing.T) {
	st := bigSession(t, "big", 48, 512<<10)
	h, err := New(st, Options{Log: discard(), MaxRenders: 2, RenderWait: 100 * time.Millisecond, WriteStall: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := startServer(t, h, ServerOptions{})
	srv := "http://" + addr
	for range 2 {
		stuckClient(t, addr, "/api/sessions/big/transcript")
	}
	deadline := time.Now().Add(30 * time.Second)
	for h.inflight.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	r := get(t, srv, "/api/sessions")
	if r.code != http.StatusServiceUnavailable || r.hdr.Get("Retry-After") == "" {
		t.Errorf("with every slot taken: %d (Retry-After %q), want 503", r.code, r.hdr.Get("Retry-After"))
	}
	// The stalled writes end and free their slots.
	for h.inflight.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := h.inflight.Load(); n != 0 {
		t.Fatalf("%d stalled requests still hold their slots", n)
	}
	if r := get(t, srv, "/api/sessions"); r.code != 200 {
		t.Errorf("after the stalled clients were cut off: %d", r.code)
	}
}

// TestIdleConnectionsClosed (issue 23 item 5): a keep-alive connection
// that sends nothing more is closed by the server after IdleTimeout.
func TestIdleConnectionsClosed(t *testing.T) {
	st := bigSession(t, "s", 1, 100)
	h, err := New(st, Options{Log: discard()})
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := startServer(t, h, ServerOptions{IdleTimeout: 200 * time.Millisecond})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := fmt.Fprintf(c, "GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("an idle keep-alive connection was not closed by the server (read: %v)", err)
	}
	if def := NewServer(h, ServerOptions{}); def.IdleTimeout <= 0 || def.WriteTimeout <= 0 || def.ReadHeaderTimeout <= 0 {
		t.Errorf("NewServer defaults: idle %v, write %v, read header %v; want all set", def.IdleTimeout, def.WriteTimeout, def.ReadHeaderTimeout)
	}
}
