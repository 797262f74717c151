package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb/viewer"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine to write
// while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServe runs `sessionctl serve` in-process on a free port and returns
// the URL it printed; the server stops (as on Ctrl-C) when the test ends,
// and the test checks that it exited 0.
func startServe(t *testing.T, db string, args ...string) string {
	t.Helper()
	var stdout syncBuffer
	return startServeOut(t, db, &stdout, args...)
}

// startServeOut is startServe writing serve's stdout to stdout.
func startServeOut(t *testing.T, db string, stdout *syncBuffer, args ...string) string {
	t.Helper()
	if !slices.ContainsFunc(args, func(a string) bool { return a == "--addr" || strings.HasPrefix(a, "--addr=") }) {
		// Never the default port: another test binary (or a user's
		// serve) may hold it.
		args = append([]string{"--addr", "127.0.0.1:0"}, args...)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"--db", db, "serve"}, args...), strings.NewReader(""), stdout, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exited %d\n%s%s", code, stdout.String(), stderr.String())
		}
		if !strings.Contains(stdout.String(), "stopped") {
			t.Errorf("serve did not stop cleanly: %q", stdout.String())
		}
	})
	// Wait for the "serving" line (the server is listening once it is
	// printed); fail if serve exits first.
	for {
		out := stdout.String()
		if i := strings.Index(out, " at http://"); i >= 0 {
			line := out[i+len(" at "):]
			return line[:strings.IndexByte(line, '\n')]
		}
		select {
		case code := <-done:
			done <- code
			t.Fatalf("serve exited %d before serving\n%s%s", code, out, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeAPIMatchesCLIJSON checks that /api/ answers with the shapes of
// the CLI's --json output: the mirrored types have the same JSON fields,
// and the values decoded from both are equal.
func TestServeAPIMatchesCLIJSON(t *testing.T) {
	for _, pair := range [][2]any{{sessionJSON{}, viewer.SessionJSON{}}, {hitJSON{}, viewer.HitJSON{}}} {
		if a, b := jsonFields(pair[0]), jsonFields(pair[1]); !reflect.DeepEqual(a, b) {
			t.Errorf("%T and %T differ:\n%s", pair[0], pair[1], cmp.Diff(a, b))
		}
	}
	db := tempDB(t)
	seed(t, db)
	sessionctl(t, db, "fork", "chat", "--at", "2", "--id", "chat-fork").mustSucceed(t)
	base := startServe(t, db, "--addr", "127.0.0.1:0")
	for _, c := range []struct{ api, cli string }{
		{"api/sessions?limit=100", "list --json"},
		{"api/sessions?q=capital", "list --json --query capital"},
		{"api/sessions?parent=chat", "list --json --parent chat"},
		{"api/search?q=canberra", "search canberra --json"},
		{"api/sessions/aussie/transcript", "show aussie --json"},
	} {
		code, body := httpGet(t, base+c.api)
		if code != 200 {
			t.Fatalf("GET %s: %d %s", c.api, code, body)
		}
		r := sessionctl(t, db, strings.Fields(c.cli)...).mustSucceed(t)
		var got, want any
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		r.decode(t, &want)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("GET /%s differs from sessionctl %s (-cli +api):\n%s", c.api, c.cli, d)
		}
	}
	// /api/sessions/{id} is the "session" object of show --json --state
	// (it is read without counting the log: the object has no count).
	_, body := httpGet(t, base+"api/sessions/aussie")
	var gotSession any
	if err := json.Unmarshal([]byte(body), &gotSession); err != nil {
		t.Fatal(err)
	}
	var show map[string]any
	sessionctl(t, db, "show", "aussie", "--json", "--state").mustSucceed(t).decode(t, &show)
	if d := cmp.Diff(show["session"], gotSession); d != "" {
		t.Errorf("GET /api/sessions/aussie differs from show --json --state's session (-cli +api):\n%s", d)
	}
	// The transcript bodies are the stored bytes, like show --json.
	_, body = httpGet(t, base+"api/sessions/chat/transcript")
	if want := sessionctl(t, db, "show", "chat", "--json").stdout; body != want {
		t.Errorf("transcript bytes differ from show --json:\n%s\nwant\n%s", body, want)
	}
	if code, _ := httpGet(t, base); code != 200 {
		t.Errorf("GET /: %d", code)
	}
}

func jsonFields(v any) []string {
	var out []string
	rt := reflect.TypeOf(v)
	for i := 0; i < rt.NumField(); i++ {
		out = append(out, rt.Field(i).Name+" "+rt.Field(i).Type.String()+" "+rt.Field(i).Tag.Get("json"))
	}
	return out
}

func TestServeRemoteNeedsFlagAndToken(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	sessionctl(t, db, "serve", "--addr", "0.0.0.0:0").mustFail(t, exitUsage, "--allow-remote")
	sessionctl(t, db, "serve", "--addr", ":0").mustFail(t, exitUsage, "--allow-remote")
	sessionctl(t, db, "serve", "--addr", "nonsense").mustFail(t, exitUsage, "HOST:PORT")
	sessionctl(t, missingDB(t), "serve", "--addr", "127.0.0.1:0").mustFail(t, exitError, "does not exist")

	url := startServe(t, db, "--addr", "0.0.0.0:0", "--allow-remote")
	i := strings.Index(url, "?token=")
	if i < 0 || len(url)-i-len("?token=") < 32 {
		t.Fatalf("no access token in %q", url)
	}
	base := strings.Replace(url[:i], "0.0.0.0", "127.0.0.1", 1)
	tok := url[i+len("?token="):]
	if code, _ := httpGet(t, base+"api/sessions"); code != http.StatusUnauthorized {
		t.Errorf("without token: %d", code)
	}
	req, _ := http.NewRequest("GET", base+"api/sessions", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("with token: %d", resp.StatusCode)
	}
	// http.Get follows the redirect that stores the cookie... in a jar
	// it does not have: the redirect itself is what the browser sees.
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = c.Get(strings.Replace(url, "0.0.0.0", "127.0.0.1", 1))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Errorf("token URL: %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
}

// TestServeReadOnly checks that serving changes nothing in the database
// file, and that writes are refused.
func TestServeReadOnly(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	before := sessionctl(t, db, "list", "--json").mustSucceed(t).stdout
	base := startServe(t, db, "--addr", "127.0.0.1:0")
	resp, err := http.Post(base+"api/sessions", "application/json", strings.NewReader(`{"id":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", resp.StatusCode)
	}
	for _, p := range []string{"", "s/chat", "search?q=canberra", "usage", "s/chat/raw/1"} {
		if code, _ := httpGet(t, base+p); code != 200 {
			t.Errorf("GET /%s: %d", p, code)
		}
	}
	if after := sessionctl(t, db, "list", "--json").mustSucceed(t).stdout; after != before {
		t.Errorf("the database changed while serving")
	}
}
