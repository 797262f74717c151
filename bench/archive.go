package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sessiondb/sessiondb/pgstore"
)

// The archive workload (issue 42): a deterministic synthetic archive of the
// shape people have, mixed Claude Code, Codex, pi and Gemini CLI sessions, imported and
// queried through the sessionctl binary as a user runs it (each step a
// process of its own, so that its peak RSS and CPU time are its own,
// from getrusage). See "Issue 42" in BENCHMARKS.md.
//
// Shape. Full size (-archive 4700000): 50,000 sessions, 4.7 million
// messages, about 1.8 GiB, cass's published rebuild. Sessions draw their
// message counts from a long tail (most short, a few of thousands), 55 %
// Claude Code, 20 % Codex, 10 % pi, 15 % Gemini CLI (0.61's JSONL chats,
// with the lastUpdated patch after every record and a model message
// written again once its tool call completes, as Gemini CLI writes them).
// A turn is a user prompt, zero to four
// tool calls each with its result, and an answer. Text sizes are drawn from
// the quantiles of the message lines of testdata/claudecode-real (median
// 1.2 KB a line, p95 2.1 KB, a tail to 40 KB), text from bench's Zipf
// vocabulary; 1 message in 200 holds CJK text, 1 in 1,000 a fixed phrase,
// and the oldest message the worst-case word of search.go (rareWord).

// archiveTextSizes are text lengths in bytes, drawn uniformly: the
// quantiles (every 5 %) of message line sizes in testdata/claudecode-real
// minus ~500 bytes of Claude Code's fields around the text.
var archiveTextSizes = []int{60, 80, 100, 110, 120, 150, 200, 300, 450, 600, 700, 710, 720, 740, 780, 800, 850, 900, 1600, 6000}

// archiveSessionSizes are message counts per session, drawn uniformly
// (mean 94: 4.7 M messages in 50,000 sessions).
var archiveSessionSizes = []int{4, 8, 12, 16, 20, 26, 30, 36, 40, 50, 60, 70, 80, 90, 100, 120, 150, 200, 300, 668}

const (
	archivePhrase = "retry the uploader"
	archiveCJK    = "数据库连接池"
)

type archiveGen struct {
	*gen
	rng      *rand.Rand
	messages int
	bytes    int64
	planted  bool
}

func (a *archiveGen) textOf() string {
	n := archiveTextSizes[a.rng.IntN(len(archiveTextSizes))]
	s := a.text(n)
	switch {
	case !a.planted:
		a.planted = true
		s = rareWord() + " " + s
	case a.rng.IntN(200) == 0:
		s += " " + archiveCJK + "的配置问题"
	case a.rng.IntN(1000) == 0:
		s += " " + archivePhrase
	}
	return s
}

// writeArchive writes about messages messages under root and returns the
// sessions, messages and bytes written.
// projects is the number of project folders the sessions are spread over
// (200 at full size: 125 Claude Code transcripts a folder).
func writeArchive(root string, messages, projects int) (sessions, msgs int, size int64, err error) {
	a := &archiveGen{gen: newGen(42), rng: rand.New(rand.NewPCG(42, 43))}
	t := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	for a.messages < messages {
		n := archiveSessionSizes[a.rng.IntN(len(archiveSessionSizes))]
		t = t.Add(time.Duration(10+a.rng.IntN(600)) * time.Second)
		var path string
		var lines [][]byte
		id := fmt.Sprintf("%08x-%04x-4000-8000-%012x", sessions, a.rng.IntN(1<<16), a.rng.Uint64()>>16)
		switch k := a.rng.IntN(20); {
		case k < 11:
			path = filepath.Join(root, "claude", "projects", fmt.Sprintf("-home-dev-p%d", sessions%projects), id+".jsonl")
			lines = a.claude(id, n, t)
		case k < 15:
			path = filepath.Join(root, "codex", "sessions", t.Format("2006/01/02"), "rollout-"+t.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
			lines = a.codex(id, n, t)
		case k < 17:
			path = filepath.Join(root, "pi", "sessions", fmt.Sprintf("--home-dev-p%d--", sessions%projects), t.Format("2006-01-02T15-04-05-000Z")+"_"+id+".jsonl")
			lines = a.pi(id, n, t)
		default:
			path = filepath.Join(root, "gemini", "tmp", fmt.Sprintf("p%d", sessions%projects), "chats", "session-"+t.Format("2006-01-02T15-04")+"-"+id[:8]+".jsonl")
			lines = a.gemini(id, n, t)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return 0, 0, 0, err
		}
		nb, err := writeJSONL(path, lines)
		if err != nil {
			return 0, 0, 0, err
		}
		size += nb
		sessions++
	}
	return sessions, a.messages, size, nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func ts(t time.Time) string { return t.Format("2006-01-02T15:04:05.000Z") }

// turns calls emit for each message of about n messages: role "user",
// "call" (a tool call), "result" or "assistant".
func (a *archiveGen) turns(n int, emit func(role string, k int)) {
	for i := 0; i < n; {
		emit("user", i)
		i++
		for c := a.rng.IntN(5); c > 0 && i+2 < n; c-- {
			emit("call", i)
			emit("result", i+1)
			i += 2
		}
		emit("assistant", i)
		i++
	}
}

func (a *archiveGen) claude(id string, n int, t time.Time) [][]byte {
	var out [][]byte
	parent := any(nil)
	usage := map[string]any{"input_tokens": 10, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 5000, "output_tokens": 50}
	a.turns(n, func(role string, k int) {
		t = t.Add(time.Duration(1+a.rng.IntN(20)) * time.Second)
		uuid := fmt.Sprintf("%s-%06d", id[:23], k)
		m := map[string]any{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": "/home/dev/proj", "sessionId": id,
			"version": "2.1.202", "gitBranch": "main", "uuid": uuid, "timestamp": ts(t)}
		parent = uuid
		tid := fmt.Sprintf("toolu_%s_%d", id[:8], k)
		switch role {
		case "user":
			m["type"], m["message"] = "user", map[string]any{"role": "user", "content": a.textOf()}
		case "result":
			m["type"], m["message"] = "user", map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("toolu_%s_%d", id[:8], k-1), "content": a.textOf()}}}
		case "call":
			m["type"], m["requestId"] = "assistant", fmt.Sprintf("req_%s_%d", id[:8], k)
			m["message"] = map[string]any{"id": fmt.Sprintf("msg_%s_%d", id[:8], k), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
				"content": []any{map[string]any{"type": "tool_use", "id": tid, "name": "Bash", "input": map[string]any{"command": a.text(40)}}}, "stop_reason": "tool_use", "usage": usage}
		default:
			m["type"], m["requestId"] = "assistant", fmt.Sprintf("req_%s_%d", id[:8], k)
			m["message"] = map[string]any{"id": fmt.Sprintf("msg_%s_%d", id[:8], k), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
				"content": []any{map[string]any{"type": "text", "text": a.textOf()}}, "stop_reason": "end_turn", "usage": usage}
		}
		a.messages++
		out = append(out, mustJSON(m))
	})
	return out
}

func (a *archiveGen) codex(id string, n int, t time.Time) [][]byte {
	out := [][]byte{
		mustJSON(map[string]any{"timestamp": ts(t), "type": "session_meta", "payload": map[string]any{"id": id, "timestamp": ts(t), "cwd": "/home/dev/proj", "originator": "codex_cli_rs", "cli_version": "0.142.4", "model_provider": "openai"}}),
		mustJSON(map[string]any{"timestamp": ts(t), "type": "turn_context", "payload": map[string]any{"cwd": "/home/dev/proj", "model": "gpt-5-codex", "effort": "medium"}}),
	}
	a.turns(n, func(role string, k int) {
		t = t.Add(time.Duration(1+a.rng.IntN(20)) * time.Second)
		call := fmt.Sprintf("call_%d", k)
		var p map[string]any
		switch role {
		case "user":
			p = map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": a.textOf()}}}
		case "call":
			p = map[string]any{"type": "function_call", "name": "shell", "arguments": string(mustJSON(map[string]any{"command": []string{"bash", "-lc", a.text(40)}})), "call_id": call}
		case "result":
			p = map[string]any{"type": "function_call_output", "call_id": fmt.Sprintf("call_%d", k-1), "output": a.textOf()}
		default:
			p = map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": a.textOf()}}}
		}
		a.messages++
		out = append(out, mustJSON(map[string]any{"timestamp": ts(t), "type": "response_item", "payload": p}))
		if role == "assistant" {
			u := map[string]any{"input_tokens": 3000, "cached_input_tokens": 1000, "output_tokens": 40, "reasoning_output_tokens": 10, "total_tokens": 3040}
			out = append(out, mustJSON(map[string]any{"timestamp": ts(t), "type": "event_msg", "payload": map[string]any{"type": "token_count", "info": map[string]any{"total_token_usage": u, "last_token_usage": u}}}))
		}
	})
	return out
}

func (a *archiveGen) pi(id string, n int, t time.Time) [][]byte {
	out := [][]byte{mustJSON(map[string]any{"type": "session", "version": 3, "id": id, "timestamp": ts(t), "cwd": "/home/dev/proj"})}
	parent := any(nil)
	a.turns(n, func(role string, k int) {
		t = t.Add(time.Duration(1+a.rng.IntN(20)) * time.Second)
		eid := fmt.Sprintf("%08x", k)
		var m map[string]any
		ms := t.UnixMilli()
		switch role {
		case "user":
			m = map[string]any{"role": "user", "content": a.textOf(), "timestamp": ms}
		case "call":
			m = map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "toolCall", "id": fmt.Sprintf("call_%d", k), "name": "bash", "arguments": map[string]any{"command": a.text(40)}}},
				"api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": map[string]any{"input": 2000, "output": 60, "cacheRead": 1500, "cacheWrite": 0, "totalTokens": 3560, "cost": map[string]any{"total": 0.002}}, "stopReason": "toolUse", "timestamp": ms}
		case "result":
			m = map[string]any{"role": "toolResult", "toolCallId": fmt.Sprintf("call_%d", k-1), "toolName": "bash", "content": []any{map[string]any{"type": "text", "text": a.textOf()}}, "isError": false, "timestamp": ms}
		default:
			m = map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": a.textOf()}},
				"api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": map[string]any{"input": 2000, "output": 60, "cacheRead": 1500, "cacheWrite": 0, "totalTokens": 3560, "cost": map[string]any{"total": 0.002}}, "stopReason": "stop", "timestamp": ms}
		}
		a.messages++
		out = append(out, mustJSON(map[string]any{"type": "message", "id": eid, "parentId": parent, "timestamp": ts(t), "message": m}))
		parent = eid
	})
	return out
}

// gemini writes a Gemini CLI 0.61 chat (see jsonlimport/gemini): a header,
// then each record followed by a lastUpdated patch; a tool call is a model
// record written once with its text and again with the completed call
// (the result inside), and the result sent back a user record of
// functionResponse parts.
func (a *archiveGen) gemini(id string, n int, t time.Time) [][]byte {
	out := [][]byte{mustJSON(map[string]any{"sessionId": id, "projectHash": fmt.Sprintf("%064x", a.rng.Uint64()), "startTime": ts(t), "lastUpdated": ts(t), "kind": "main"})}
	tokens := map[string]any{"input": 3000, "output": 50, "cached": 1200, "thoughts": 20, "tool": 0, "total": 3070}
	var callID, callName string
	a.turns(n, func(role string, k int) {
		t = t.Add(time.Duration(1+a.rng.IntN(20)) * time.Second)
		rid := fmt.Sprintf("%s-%06d", id[:23], k)
		switch role {
		case "user":
			out = append(out, mustJSON(map[string]any{"id": rid, "timestamp": ts(t), "type": "user", "content": []any{map[string]any{"text": a.textOf()}}}))
		case "call":
			callID, callName = fmt.Sprintf("run_shell_command_%s_%d", id[:8], k), "run_shell_command"
			m := map[string]any{"id": rid, "timestamp": ts(t), "type": "gemini", "content": "", "thoughts": []any{}, "tokens": tokens, "model": "gemini-2.5-pro"}
			out = append(out, mustJSON(m), mustJSON(map[string]any{"$set": map[string]any{"lastUpdated": ts(t)}}))
			m["toolCalls"] = []any{map[string]any{"id": callID, "name": callName, "args": map[string]any{"command": a.text(40)}, "status": "success", "timestamp": ts(t),
				"result": []any{map[string]any{"functionResponse": map[string]any{"id": callID, "name": callName, "response": map[string]any{"output": "ok"}}}}}}
			out = append(out, mustJSON(m))
		case "result":
			out = append(out, mustJSON(map[string]any{"id": rid, "timestamp": ts(t), "type": "user", "content": []any{map[string]any{"functionResponse": map[string]any{"id": callID, "name": callName, "response": map[string]any{"output": a.textOf()}}}}}))
		default:
			out = append(out, mustJSON(map[string]any{"id": rid, "timestamp": ts(t), "type": "gemini", "content": a.textOf(), "thoughts": []any{}, "tokens": tokens, "model": "gemini-2.5-pro"}))
		}
		a.messages++
		out = append(out, mustJSON(map[string]any{"$set": map[string]any{"lastUpdated": ts(t)}}))
	})
	return out
}

// proc is one sessionctl run: wall and CPU seconds, peak RSS, output.
type proc struct {
	wall, cpu float64
	rss       int64
	out       []byte
}

func runProc(ctx context.Context, bin string, args ...string) (proc, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t := time.Now()
	err := cmd.Run()
	p := proc{wall: time.Since(t).Seconds(), out: out.Bytes()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		p.cpu = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
		p.rss = ru.Maxrss << 10
	}
	if err != nil {
		return p, fmt.Errorf("%s %s: %v: %s", filepath.Base(bin), strings.Join(args, " "), err, errb.String())
	}
	return p, nil
}

func pct(xs []float64, q float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// archiveOpts are runArchive's options: reimportOnly stops after the
// re-imports; profiles, when not "", is a directory that gets a CPU
// profile of the import and of each re-import (import.pprof, noop.pprof,
// grown.pprof).
type archiveOpts struct {
	reimportOnly bool
	profiles     string
	projects     int // project folders (0: 200)
}

// runArchive generates the archive, builds sessionctl and measures.
func runArchive(ctx context.Context, dir string, messages int, searches int, pgURL string, o archiveOpts) error {
	w := os.Stdout
	say := func(format string, args ...any) {
		fmt.Fprintf(w, format+"  [load %s]\n", append(args, loadAvg())...)
	}
	root := filepath.Join(dir, "archive")
	bin := filepath.Join(dir, "sessionctl")
	db := filepath.Join(dir, "sessions.db")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/sessiondb/sessiondb/cmd/sessionctl")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build sessionctl: %w", err)
	}
	t := time.Now()
	if o.projects <= 0 {
		o.projects = 200
	}
	sessions, msgs, size, err := writeArchive(root, messages, o.projects)
	if err != nil {
		return err
	}
	say("archive: %d sessions, %d messages, %s in %d project folders, in %s", sessions, msgs, fmtBytes(size), o.projects, fmtDur(time.Since(t).Seconds()))

	if o.profiles != "" {
		os.Setenv("SESSIONDB_CPUPROFILE", filepath.Join(o.profiles, "import.pprof"))
	}
	imp, err := runProc(ctx, bin, "--db", db, "import", root)
	os.Unsetenv("SESSIONDB_CPUPROFILE")
	if err != nil {
		return err
	}
	dbSize := fileSize(db) + fileSize(db+"-search") + fileSize(db+"-wal")
	say("import to searchable: %s wall, %.1f CPU s, %.0f messages/s (%.0f per CPU s), peak RSS %s, database %s = %.2fx the archive (%s)",
		fmtDur(imp.wall), imp.cpu, float64(msgs)/imp.wall, float64(msgs)/imp.cpu, fmtBytes(imp.rss), fmtBytes(dbSize), float64(dbSize)/float64(size), strings.TrimSpace(lastLine(imp.out)))
	files := countFiles(root)
	profiled := func(name string) {
		if o.profiles != "" {
			os.Setenv("SESSIONDB_CPUPROFILE", filepath.Join(o.profiles, name))
		}
	}
	profiled("noop.pprof")
	again, err := runProc(ctx, bin, "--db", db, "import", root)
	if err != nil {
		return err
	}
	say("no-op re-import: %s wall, %.1f CPU s (%.0f µs of CPU a file over %d files), peak RSS %s", fmtDur(again.wall), again.cpu, again.cpu/float64(files)*1e6, files, fmtBytes(again.rss))
	// The first re-import may still run the secret scan the import left
	// behind (a writable store runs it while the process lives); the
	// second is what every later no-op costs.
	profiled("noop2.pprof")
	again, err = runProc(ctx, bin, "--db", db, "import", root)
	if err != nil {
		return err
	}
	say("no-op re-import, again: %s wall, %.1f CPU s (%.0f µs of CPU a file), peak RSS %s", fmtDur(again.wall), again.cpu, again.cpu/float64(files)*1e6, fmtBytes(again.rss))
	// 1 % of the files grow by a turn (their last line repeated with a new
	// uuid would be a copy: a user line of a new uuid instead).
	grown, err := growArchive(root, 100)
	if err != nil {
		return err
	}
	profiled("grown.pprof")
	g, err := runProc(ctx, bin, "--db", db, "import", root)
	os.Unsetenv("SESSIONDB_CPUPROFILE")
	if err != nil {
		return err
	}
	say("re-import after %d files (1%%) grew: %s wall, %.1f CPU s (%.0f µs of CPU a file over %d files), peak RSS %s (%s)", grown, fmtDur(g.wall), g.cpu, g.cpu/float64(files)*1e6, files, fmtBytes(g.rss), strings.TrimSpace(lastLine(g.out)))
	fl, err := archiveIndexFloor(ctx, db, filepath.Join(dir, "floor.db"))
	if err != nil {
		return err
	}
	say("import floor, the same %d texts (%s) into a trigram FTS5 index alone, one writer (archivefloor.go): %s wall, %.1f CPU s (reading them alone %s, %.1f CPU s), index %s: at most %.0f messages/s to searchable; the import took %.2fx its wall time and %.2fx its CPU",
		fl.rows, fmtBytes(fl.textBytes), fmtDur(fl.indexWall), fl.indexCPU, fmtDur(fl.readWall), fl.readCPU, fmtBytes(fl.indexBytes),
		float64(msgs)/fl.indexWall, imp.wall/fl.indexWall, imp.cpu/fl.indexCPU)
	if o.reimportOnly {
		return nil
	}

	v := vocabulary()
	queries := []archiveQuery{
		{"common word (rank 0)", v[0]},
		{"word rank 100", v[100]},
		{"rare word (rank 10000)", v[10000]},
		{"phrase", `"` + archivePhrase + `"`},
		{"CJK", archiveCJK},
		{"worst case: " + rareWordLabel, rareWord()},
	}
	for _, q := range queries {
		if err := coldSearches(ctx, bin, db, q, searches, say); err != nil {
			return err
		}
	}
	for _, c := range [][]string{{"usage", "daily", "--json"}, {"list", "--json"}} {
		var walls []float64
		var rss int64
		for range 5 {
			p, err := runProc(ctx, bin, append([]string{"--db", db}, c...)...)
			if err != nil {
				return err
			}
			walls, rss = append(walls, p.wall), max(rss, p.rss)
		}
		say("%s: p50 %s (5 processes), peak RSS %s", strings.Join(c, " "), fmtDur(pct(walls, 0.5)), fmtBytes(rss))
	}
	if err := mcpSearch(ctx, bin, db, v[0], queries, say); err != nil {
		return err
	}
	if err := viewerPages(ctx, bin, db, say); err != nil {
		return err
	}
	// The import finished the secret scan of what it imported (importScan
	// in sessionctl): listing what it found reads the recorded spans, and
	// scans nothing again unless the scan was left unfinished.
	sc, err := runProc(ctx, bin, "--db", db, "secrets", "--json")
	if err != nil {
		return err
	}
	say("sessionctl secrets (what the import's scan found): %s wall, %.1f CPU s, peak RSS %s", fmtDur(sc.wall), sc.cpu, fmtBytes(sc.rss))
	if err := watchStartup(ctx, bin, db, root, say); err != nil {
		return err
	}
	if pgURL != "" {
		return archiveOnPG(ctx, bin, db, pgURL, queries, searches, say)
	}
	return nil
}

// archiveQuery is one search of the archive workload.
type archiveQuery struct{ label, q string }

// coldSearches runs searches cold sessionctl search processes for q on db
// and says their p50 and p99.
func coldSearches(ctx context.Context, bin, db string, q archiveQuery, searches int, say func(string, ...any)) error {
	var walls []float64
	var rss int64
	hits := 0
	for range searches {
		p, err := runProc(ctx, bin, "--db", db, "search", "--json", q.q)
		if err != nil {
			return err
		}
		walls = append(walls, p.wall)
		rss = max(rss, p.rss)
		var hs []json.RawMessage
		if json.Unmarshal(p.out, &hs) == nil {
			hits = len(hs)
		}
	}
	say("cold search %-40q p50 %s p99 %s (%d processes, %d hits shown), peak RSS %s", q.label, fmtDur(pct(walls, 0.5)), fmtDur(pct(walls, 0.99)), searches, hits, fmtBytes(rss))
	return nil
}

// mcpSearch asks `sessionctl mcp` (stdio, as an agent's MCP client runs
// it) for word five times in one process and says the answer's size and
// the p50 of the answers' times (the first, cold, apart); then, in the
// same process, each of the warm queries in turn, many times each.
func mcpSearch(ctx context.Context, bin, db, word string, warm []archiveQuery, say func(string, ...any)) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--db", db, "mcp")
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { in.Close(); cmd.Wait() }()
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	call := func(id int, method, params string) ([]byte, float64, error) {
		t := time.Now()
		if _, err := fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params); err != nil {
			return nil, 0, err
		}
		for sc.Scan() {
			var m struct {
				ID    *int            `json:"id"`
				Error json.RawMessage `json:"error"`
			}
			if json.Unmarshal(sc.Bytes(), &m) == nil && m.ID != nil && *m.ID == id {
				if m.Error != nil {
					return nil, 0, fmt.Errorf("mcp %s: %s", method, m.Error)
				}
				return append([]byte(nil), sc.Bytes()...), time.Since(t).Seconds(), nil
			}
		}
		return nil, 0, fmt.Errorf("mcp %s: no answer (%v)", method, sc.Err())
	}
	if _, _, err := call(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`); err != nil {
		return err
	}
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var walls []float64
	var size int
	for i := range 5 {
		b, wall, err := call(2+i, "tools/call", fmt.Sprintf(`{"name":"search","arguments":{"query":%q}}`, word))
		if err != nil {
			return err
		}
		walls, size = append(walls, wall), len(b)
	}
	say("MCP search %q (stdio, one process): answer %s, first %s, p50 of the next four %s", word, fmtBytes(int64(size)), fmtDur(walls[0]), fmtDur(pct(walls[1:], 0.5)))
	// Warm search (item 2's p50 and p99 for words): each query asked
	// again and again of the same server, its first answer apart, the
	// worst case fewer times.
	id := 100
	for _, q := range warm {
		n := 21
		if strings.HasPrefix(q.label, "worst case") {
			n = 4
		}
		walls = walls[:0]
		for range n {
			id++
			_, wall, err := call(id, "tools/call", fmt.Sprintf(`{"name":"search","arguments":{"query":%q}}`, q.q))
			if err != nil {
				return err
			}
			walls = append(walls, wall)
		}
		say("warm search %-40q (MCP, one process) first %s, then p50 %s p99 %s (%d answers)", q.label, fmtDur(walls[0]), fmtDur(pct(walls[1:], 0.5)), fmtDur(pct(walls[1:], 0.99)), n-1)
	}
	return nil
}

// viewerPages starts `sessionctl serve` and times its first pages: the
// session list (/), the JSON list (/api/sessions) and the first session's
// page, the first request of each cold, then the p50 of five more.
func viewerPages(ctx context.Context, bin, db string, say func(string, ...any)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--db", db, "serve", "--addr", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	t := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	sc := bufio.NewScanner(out)
	base := ""
	for base == "" && sc.Scan() {
		if i := strings.Index(sc.Text(), " at http://"); i >= 0 {
			base = strings.TrimSuffix(strings.Fields(sc.Text()[i+4:])[0], "/")
		}
	}
	if base == "" {
		return fmt.Errorf("serve printed no address")
	}
	go io.Copy(io.Discard, out)
	started := time.Since(t).Seconds()
	get := func(path string) (float64, int, []byte, error) {
		t := time.Now()
		resp, err := http.Get(base + path)
		if err != nil {
			return 0, 0, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			return 0, 0, nil, fmt.Errorf("GET %s: %s", path, resp.Status)
		}
		return time.Since(t).Seconds(), len(b), b, err
	}
	first := ""
	for _, path := range []string{"/", "/api/sessions", ""} {
		if path == "" {
			if first == "" {
				break
			}
			path = "/s/" + first
		}
		cold, size, body, err := get(path)
		if err != nil {
			return err
		}
		if path == "/api/sessions" {
			var list struct {
				Sessions []struct {
					ID string `json:"id"`
				} `json:"sessions"`
			}
			var arr []struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(body, &list) == nil && len(list.Sessions) > 0 {
				first = list.Sessions[0].ID
			} else if json.Unmarshal(body, &arr) == nil && len(arr) > 0 {
				first = arr[0].ID
			}
		}
		var walls []float64
		for range 5 {
			w, _, _, err := get(path)
			if err != nil {
				return err
			}
			walls = append(walls, w)
		}
		label := path
		if first != "" {
			label = strings.Replace(path, first, "<newest>", 1)
		}
		say("viewer GET %s: first %s, p50 of 5 more %s, %s", label, fmtDur(cold), fmtDur(pct(walls, 0.5)), fmtBytes(int64(size)))
	}
	say("viewer: serving %s after the process started", fmtDur(started))
	return nil
}

// archiveOnPG copies the imported archive into a new PostgreSQL database
// with `sessionctl copy` (item 5 of issue 42) and runs the same searches
// and usage report there; the database is dropped at the end.
func archiveOnPG(ctx context.Context, bin, db, server string, queries []archiveQuery, searches int, say func(string, ...any)) error {
	admin, err := pgx.Connect(ctx, server)
	if err != nil {
		return fmt.Errorf("%w at %s: %v", errNoServer, server, err)
	}
	defer admin.Close(context.Background())
	name := fmt.Sprintf("sessiondb_archive_%d", time.Now().UnixNano())
	if _, err := admin.Exec(ctx, `CREATE DATABASE `+name); err != nil {
		return err
	}
	defer func() {
		_, _ = admin.Exec(context.Background(), `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
		if sdb, err := sql.Open("pgx", server); err == nil {
			_ = pgstore.DropReaderRoles(context.Background(), sdb, name)
			sdb.Close()
		}
	}()
	u, err := url.Parse(server)
	if err != nil {
		return err
	}
	u.Path = "/" + name
	target := u.String()
	c, err := runProc(ctx, bin, "copy", "--from", db, "--to", target)
	if err != nil {
		return err
	}
	var dbBytes int64
	_ = admin.QueryRow(ctx, `SELECT pg_database_size($1)`, name).Scan(&dbBytes)
	say("PostgreSQL: copy from the SQLite file %s wall, %.1f CPU s of sessionctl (the server's not counted), peak RSS %s, database %s (%s)",
		fmtDur(c.wall), c.cpu, fmtBytes(c.rss), fmtBytes(dbBytes), strings.TrimSpace(lastLine(c.out)))
	for _, q := range queries {
		if err := coldSearches(ctx, bin, target, q, searches, func(f string, a ...any) { say("PostgreSQL: "+f, a...) }); err != nil {
			return err
		}
	}
	var walls []float64
	for range 5 {
		p, err := runProc(ctx, bin, "--db", target, "usage", "daily", "--json")
		if err != nil {
			return err
		}
		walls = append(walls, p.wall)
	}
	say("PostgreSQL: usage daily --json p50 %s (5 processes)", fmtDur(pct(walls, 0.5)))
	return nil
}

// countFiles returns how many regular files the tree under root holds.
func countFiles(root string) int {
	n := 0
	filepath.WalkDir(root, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// growArchive appends a user line to every 1/every-th Claude Code file
// (and pi file), returning how many grew.
func growArchive(root string, every int) (int, error) {
	var files []string
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && strings.HasSuffix(p, ".jsonl") && strings.Contains(p, "/claude/") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	n := 0
	for i := 0; i < len(files); i += every {
		if err := appendClaudeTurn(files[i], "grown"); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// appendClaudeTurn appends a user line hanging off the file's last line.
func appendClaudeTurn(path, tag string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, _ := f.Stat()
	tail := make([]byte, min(fi.Size(), 64<<10))
	f.ReadAt(tail, fi.Size()-int64(len(tail)))
	lines := bytes.Split(bytes.TrimSpace(tail), []byte("\n"))
	var last map[string]any
	if err := json.Unmarshal(lines[len(lines)-1], &last); err != nil {
		return err
	}
	last["parentUuid"], last["uuid"] = last["uuid"], fmt.Sprintf("%s-%s-%d", tag, last["sessionId"], time.Now().UnixNano())
	last["type"], last["message"] = "user", map[string]any{"role": "user", "content": "one more question " + tag}
	delete(last, "requestId")
	_, err = f.Write(append(mustJSON(last), '\n'))
	return err
}

// watchStartup starts sessionctl watch on the imported archive, times its
// catch-up, its idle CPU over 10 s and the first append after the start.
func watchStartup(ctx context.Context, bin, db, root string, say func(string, ...any)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--db", db, "watch", "--json", root)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	t := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	events := make(chan map[string]any, 100)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var e map[string]any
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				events <- e
			}
		}
		close(events)
	}()
	wait := func(kind string) (map[string]any, error) {
		for {
			select {
			case e, ok := <-events:
				if !ok {
					return nil, fmt.Errorf("watch stopped before %q", kind)
				}
				if e["event"] == kind {
					return e, nil
				}
			case <-time.After(10 * time.Minute):
				return nil, fmt.Errorf("no %q event", kind)
			}
		}
	}
	if _, err := wait("catch-up"); err != nil {
		return err
	}
	startup := time.Since(t).Seconds()
	c0 := procCPU(cmd.Process.Pid)
	time.Sleep(10 * time.Second)
	idle := (procCPU(cmd.Process.Pid) - c0) / 10
	say("watch: start-up (catch-up over the archive) %s, idle CPU %.2f%% of a core over 10 s, RSS %s", fmtDur(startup), idle*100, fmtBytes(procRSS(cmd.Process.Pid)))
	var first string
	filepath.Walk(filepath.Join(root, "claude"), func(p string, fi os.FileInfo, err error) error {
		if first == "" && err == nil && !fi.IsDir() && strings.HasSuffix(p, ".jsonl") {
			first = p
		}
		return nil
	})
	t = time.Now()
	if err := appendClaudeTurn(first, "watched"); err != nil {
		return err
	}
	if _, err := wait("import"); err != nil {
		return err
	}
	say("watch: first append after the start imported after %s; peak RSS %s", fmtDur(time.Since(t).Seconds()), fmtBytes(procHWM(cmd.Process.Pid)))
	return nil
}

func pidStatus(pid int, key string) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, key+":") {
			var n int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, key+":"), "kB")), &n)
			return n << 10
		}
	}
	return 0
}

func procRSS(pid int) int64 { return pidStatus(pid, "VmRSS") }
func procHWM(pid int) int64 { return pidStatus(pid, "VmHWM") }

// procCPU returns the CPU seconds of process pid (utime+stime).
func procCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	var u, st float64
	fmt.Sscan(f[11], &u)
	fmt.Sscan(f[12], &st)
	return (u + st) / 100
}
