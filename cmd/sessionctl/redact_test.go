package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb/sqlstore"
)

// secretPassword is the password the tests put in PostgreSQL URLs; it
// must never be printed.
const secretPassword = "s3cret-Pa55word"

// withPassword returns u with its password set to secretPassword (the
// test server trusts local connections, so any password is accepted).
func withPassword(t *testing.T, u string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	p.User = url.UserPassword(p.User.Username(), secretPassword)
	return p.String()
}

// TestServePrintsRedactedURL (issue 23 item 10): serve names a PostgreSQL
// database without its password, whether the password is in the URL's
// user info or in its query.
func TestServePrintsRedactedURL(t *testing.T) {
	base := pgURL(t)
	archive := t.TempDir()
	picoArchive(t, archive, "agent:main:cli:direct:a", "hello")
	sessionctl(t, withPassword(t, base), "import", archive).mustSucceed(t)
	q, _ := url.Parse(base)
	qs := q.Query()
	qs.Set("password", secretPassword)
	q.RawQuery = qs.Encode()
	for _, db := range []string{withPassword(t, base), q.String()} {
		var out syncBuffer
		startServeOut(t, db, &out, "--addr", "127.0.0.1:0")
		if s := out.String(); strings.Contains(s, secretPassword) || !strings.Contains(s, "serving postgres://") {
			t.Errorf("serve printed the password or no database:\n%s", s)
		}
	}
}

// TestHintsRedactAndNameTheRightDatabase (issue 23 item 10): the hint of a
// refused write names the database that refused it, without a password;
// for PostgreSQL it speaks of grants, not of files and directories.
func TestHintsRedactAndNameTheRightDatabase(t *testing.T) {
	base := pgURL(t)
	archive := t.TempDir()
	picoArchive(t, archive, "agent:main:cli:direct:a", "hello")
	pw := withPassword(t, base)
	sessionctl(t, pw, "import", archive).mustSucceed(t)

	// Make the database refuse writes (SQLSTATE 25006, ErrReadOnly).
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := strings.TrimPrefix(mustParse(t, base).Path, "/")
	if _, err := admin.Exec(`ALTER DATABASE ` + name + ` SET default_transaction_read_only = on`); err != nil {
		t.Fatal(err)
	}
	check := func(what string, r result, want string) {
		t.Helper()
		if r.code != exitError {
			t.Fatalf("%s: exit %d, want 1\n%s%s", what, r.code, r.stdout, r.stderr)
		}
		all := r.stdout + r.stderr
		if strings.Contains(all, secretPassword) {
			t.Errorf("%s printed the password: %s", what, all)
		}
		if strings.Contains(r.stderr, "directory") || !strings.Contains(r.stderr, "GRANT") || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: hint %q, want a grant-oriented hint naming %s", what, r.stderr, want)
		}
	}
	redacted := strings.Replace(pw, secretPassword, "xxxxx", 1)
	check("rename", sessionctl(t, pw, "rename", "agent:main:cli:direct:a", "new title"), redacted)

	// copy names the target that refused, not the default database.
	src, other := tempDB(t), t.TempDir()
	picoArchive(t, other, "agent:main:cli:direct:b", "not in the target yet")
	sessionctl(t, src, "import", other).mustSucceed(t)
	r := sessionctlEnv(t, map[string]string{"SESSIONDB_PATH": filepath.Join(t.TempDir(), "default.db")},
		"copy", "--from", src, "--to", withPassword(t, strings.Replace(base, "?", "?application_name=x&", 1)))
	check("copy", r, "application_name=x")
	if strings.Contains(r.stderr, "default.db") {
		t.Errorf("copy's hint names the default database: %s", r.stderr)
	}
}

// TestCopyHintNamesTargetFile (issue 23 item 10): a copy into an SQLite
// file that cannot be written says to check that file, not the default
// database. The file is made immutable (chattr +i), which stops root too.
func TestCopyHintNamesTargetFile(t *testing.T) {
	archive := t.TempDir()
	picoArchive(t, archive, "agent:main:cli:direct:a", "hello")
	src := tempDB(t)
	sessionctl(t, src, "import", archive).mustSucceed(t)
	dst := filepath.Join(t.TempDir(), "target.db")
	withStore(t, dst, func(*sqlstore.Store) {})
	if out, err := exec.Command("chattr", "+i", dst).CombinedOutput(); err != nil {
		t.Skipf("chattr +i is not available here (%v: %s)", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("chattr", "-i", dst).Run() })
	def := filepath.Join(t.TempDir(), "default.db")
	r := sessionctlEnv(t, map[string]string{"SESSIONDB_PATH": def}, "copy", "--from", src, "--to", dst)
	if r.code != exitError || !strings.Contains(r.stderr, "check the permissions of "+dst) || strings.Contains(r.stderr, def) {
		t.Errorf("copy into an immutable file: exit %d, %q; want a hint naming %s", r.code, r.stderr, dst)
	}
}

// TestServeRedirectStaysLocal (issue 23 item 11): the token redirect of
// --allow-remote goes to a path on this server, whatever the request's
// path looks like, and the printed URL is one a browser can open.
func TestServeRedirectStaysLocal(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	var out syncBuffer
	u := startServeOut(t, db, &out, "--addr", "0.0.0.0:0", "--allow-remote")
	if strings.Contains(out.String(), "0.0.0.0") || strings.Contains(out.String(), "[::]") {
		t.Errorf("serve printed an unspecified address, which no browser opens:\n%s", out.String())
	}
	p := mustParse(t, u)
	if p.Hostname() != "127.0.0.1" {
		t.Errorf("first URL %q: want 127.0.0.1", u)
	}
	tok := p.Query().Get("token")
	for _, path := range []string{"//evil.example/", "//evil.example", "/\\evil.example/", "/%2F%2Fevil.example/", "///evil.example/x?y=1", "/./..//evil.example/"} {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		resp := rawGet(t, p.Host, path+sep+"token="+tok)
		loc := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther {
			t.Errorf("GET %s?token=…: %d, want the token redirect", path, resp.StatusCode)
			continue
		}
		if !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, "/\\") || strings.Contains(loc, "://") {
			t.Errorf("GET %s?token=…: Location %q leaves this server", path, loc)
		}
		if r, err := url.Parse(loc); err != nil || r.Host != "" {
			t.Errorf("GET %s?token=…: Location %q has a host", path, loc)
		}
	}
}

// rawGet sends "GET target" to host as written, without a client that
// would clean or rewrite the target, and returns the response head.
func rawGet(t *testing.T, host, target string) *http.Response {
	t.Helper()
	conn, err := net.DialTimeout("tcp", host, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, host); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func mustParse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// sessionctlEnv runs the command line in-process with extra environment
// variables (and no --db).
func sessionctlEnv(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var stdout, stderr syncBuffer
	a := &app{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv: func(k string) string {
			if v, ok := env[k]; ok {
				return v
			}
			return os.Getenv(k)
		}}
	code := a.run(args)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}
