package jsonlimport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/jsonlimport/zot"
)

// xDigest renders a neutral conversation as one line per message, with
// everything a translation must carry: roles, every text, thinking with
// its signature, images, tool calls with their arguments, results with
// their call, name, error flag and content. Times and response metadata
// are left out.
//
// Consecutive text blocks count as one, joined by a blank line, and so do
// consecutive thinking blocks without signature: picoclaw holds one
// string of each per message.
func xDigest(msgs []xMsg) []string {
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		var blocks []xBlock
		for _, x := range m.Blocks {
			if n := len(blocks); n > 0 && blocks[n-1].Type == x.Type && (x.Type == xText ||
				x.Type == xThinking && x.Signature == "" && !x.Redacted && blocks[n-1].Signature == "" && !blocks[n-1].Redacted) {
				blocks[n-1].Text += "\n\n" + x.Text
				continue
			}
			blocks = append(blocks, x)
		}
		m.Blocks = blocks
		var b strings.Builder
		b.WriteString(m.Role)
		if m.Role == xContext {
			b.WriteString("(" + m.Name + ")")
		}
		if m.Role == xToolResult {
			fmt.Fprintf(&b, "[%s %s err=%v]", m.CallID, m.ToolName, m.IsError)
		}
		for _, x := range m.Blocks {
			switch x.Type {
			case xText:
				fmt.Fprintf(&b, " text%q", x.Text)
			case xThinking:
				fmt.Fprintf(&b, " thinking%q sig%q redacted=%v", x.Text, x.Signature, x.Redacted)
			case xImage:
				fmt.Fprintf(&b, " image(%s,%d)", x.MIME, len(x.Data))
			case xCall:
				var args any
				_ = json.Unmarshal(x.Args, &args)
				a, _ := json.Marshal(args)
				fmt.Fprintf(&b, " call(%s %s %s)", x.ID, x.Name, a)
			}
		}
		out = append(out, b.String())
	}
	return out
}

// unpaired counts tool calls without a later result and results without
// an earlier call.
func unpaired(msgs []xMsg) (calls, results int) {
	open := map[string]bool{}
	for _, m := range msgs {
		for _, b := range m.Blocks {
			if b.Type == xCall {
				open[b.ID] = true
			}
		}
		if m.Role == xToolResult {
			if open[m.CallID] {
				delete(open, m.CallID)
			} else {
				results++
			}
		}
	}
	return len(open), results
}

type crossSource struct {
	format, path string
}

func crossSources(t *testing.T) []crossSource {
	srcs := []crossSource{
		{FormatClaudeCode, filepath.Join(ccTestdata, "projects")},
		{FormatCodex, filepath.Join(codexTestdata, "codex-home")},
		{FormatPi, filepath.Join(piTestdata, "sessions")},
		{FormatPicoclaw, filepath.Join("..", "testdata", "samples", "picoclaw")},
		{FormatZot, filepath.Join("..", "testdata", "samples", "zot")},
		{FormatSwink, filepath.Join("..", "testdata", "samples", "swink")},
		{FormatGemini, filepath.Join("..", "testdata", "gemini", "gemini-home")},
		{FormatGemini, filepath.Join("..", "testdata", "gemini", "crafted")},
		{FormatQwen, filepath.Join("..", "testdata", "qwen", "qwen-home")},
		{FormatQwen, filepath.Join("..", "testdata", "qwen", "crafted")},
		{FormatGemini, filepath.Join("..", "testdata", "agents", "gemini")},
		{FormatQwen, filepath.Join("..", "testdata", "agents", "qwen")},
		{FormatOpencode, filepath.Join("..", "testdata", "opencode")},
		{FormatAider, filepath.Join("..", "testdata", "aider", "corpus")},
		{FormatCrush, filepath.Join("..", "testdata", "corpus", "crush")},
		{FormatOpencodeGo, filepath.Join("..", "testdata", "corpus", "opencode-go")},
		{FormatGoose, filepath.Join("..", "testdata", "corpus", "goose")},
		{FormatCursor, filepath.Join("..", "testdata", "corpus", "cursor")},
		{FormatCursor, filepath.Join("..", "testdata", "cursor", "tools")},
		{FormatCursorAgent, filepath.Join("..", "testdata", "cursor-agent", "crafted")},
		{FormatCursorAgent, filepath.Join("..", "testdata", "cursor-agent", "corpus")},
		{FormatCopilot, filepath.Join("..", "testdata", "copilot", "session-state")},
		{FormatCopilot, filepath.Join("..", "testdata", "copilot", "crafted")},
		{FormatCline, filepath.Join("..", "testdata", "cline", "cli")},
		{FormatCline, filepath.Join("..", "testdata", "cline", "crafted")},
		{FormatCline, filepath.Join("..", "testdata", "cline", "corpus")},
		{FormatCline, filepath.Join("..", "testdata", "cline", "sdk", "home")},
		{FormatCline, filepath.Join("..", "testdata", "cline", "sdk-crafted")},
	}
	if _, err := os.Stat(filepath.Join("..", "testdata", "corpus", "claude-code")); err == nil && longtest.Enabled() && !raceEnabled {
		root := corpusRoot(t)
		srcs = append(srcs, crossSource{FormatClaudeCode, filepath.Join(root, "claude-code")}, crossSource{FormatCodex, filepath.Join(root, "codex")})
	}
	return srcs
}

// TestExportCorpusCrossFormat exports every session of every format's fixtures
// and samples (and of the real corpus) into every other format. Each
// export either fails with an error that says what cannot be carried
// (errors.Is sessiondb.ErrInvalid; ErrUntranslatable where the content
// has no shape there) and writes nothing, or its files, imported again
// with our own reader, hold the same conversation: every text, thinking
// block (with signature), image, tool call and result, tool calls still
// paired with their results. The figures are logged per pair.
func TestExportCorpusCrossFormat(t *testing.T) {
	if raceEnabled {
		t.Skip("hundreds of exports and imports, no concurrency: run without -race (.ci/run's corpus step does)")
	}
	ctx := context.Background()
	targets := []string{FormatPi, FormatClaudeCode, FormatCodex, FormatPicoclaw, FormatZot, FormatSwink, FormatGemini, FormatQwen, FormatOpencode, FormatAider, FormatCopilot, FormatCline}
	type tally struct{ translated, refused, unjudged int }
	pairs := map[string]*tally{}
	reasons := map[string]map[string]int{}
	// roundTrip is the store the last export was imported into, closed
	// when the next one opens: the long run makes thousands, and a store
	// holds several files open until it closes (its cleanup runs only
	// when the test ends).
	var roundTrip interface{ Close() error }
	defer func() {
		if roundTrip != nil {
			roundTrip.Close()
		}
	}()
	for _, src := range crossSources(t) {
		s := openStore(t)
		if _, err := Import(ctx, s, []string{src.path}, Options{Format: src.format}); err != nil {
			t.Fatal(err)
		}
		// The quick run translates 3 sessions of each source (the first,
		// the middle and the last; each costs 11 exports and imports);
		// the long run every one (internal/longtest).
		for _, sess := range longtest.Sample(allSessions(t, s), 3) {
			srcMsgs, srcLoss, err := readForeign(ctx, s, sess)
			if err != nil {
				t.Fatal(err)
			}
			for _, target := range targets {
				if target == src.format {
					continue
				}
				pair := src.format + "→" + target
				if pairs[pair] == nil {
					pairs[pair] = &tally{}
				}
				out := t.TempDir()
				files, err := Export(ctx, s, []string{sess.ID}, target, out)
				if err != nil {
					if !errors.Is(err, sessiondb.ErrInvalid) {
						t.Errorf("%s %s: %v (want an ErrInvalid refusal)", pair, sess.ID, err)
					}
					if len(files) > 0 || len(treeOf(t, out)) > 0 {
						t.Errorf("%s %s: refused but wrote %v", pair, sess.ID, treeOf(t, out))
					}
					pairs[pair].refused++
					if reasons[pair] == nil {
						reasons[pair] = map[string]int{}
					}
					reasons[pair][refusalKind(err)]++
					continue
				}
				pairs[pair].translated++
				if !srcLoss.empty() {
					// The source has content the neutral reader cannot
					// judge; an exporter that writes bodies as stored
					// (picoclaw, zot, swink among themselves) carried it.
					pairs[pair].unjudged++
					continue
				}
				if roundTrip != nil {
					roundTrip.Close()
				}
				s2 := openStore(t)
				roundTrip = s2
				rep, err := Import(ctx, s2, []string{out}, Options{Format: target})
				if err != nil {
					t.Fatalf("%s %s: import of the export: %v", pair, sess.ID, err)
				}
				for _, p := range rep.Problems {
					t.Errorf("%s %s: import of the export: %s", pair, sess.ID, p.Reason)
				}
				back := allSessions(t, s2)
				if len(back) != 1 {
					t.Fatalf("%s %s: the export imports as %d sessions", pair, sess.ID, len(back))
				}
				gotMsgs, gotLoss, err := readForeign(ctx, s2, back[0])
				if err != nil {
					t.Fatal(err)
				}
				if !gotLoss.empty() {
					t.Errorf("%s %s: the export holds content our reader cannot read back: %s", pair, sess.ID, gotLoss)
				}
				if target == FormatZot {
					gotMsgs = dropZotStubs(srcMsgs, gotMsgs)
				}
				carried := srcMsgs
				if target == FormatGemini || target == FormatQwen {
					// What a Gemini CLI or Qwen Code file can carry (translate_gemini.go).
					carried = geminiCarried(srcMsgs)
				}
				want, got := xDigest(carried), xDigest(gotMsgs)
				if strings.Join(want, "\n") != strings.Join(got, "\n") {
					t.Errorf("%s %s: the export does not carry the conversation:\n%s", pair, sess.ID, firstDiff(want, got))
				}
				wc, wr := unpaired(srcMsgs)
				gc, gr := unpaired(gotMsgs)
				if wc != gc || wr != gr {
					t.Errorf("%s %s: unpaired calls/results %d/%d after export, %d/%d before", pair, sess.ID, gc, gr, wc, wr)
				}
			}
		}
	}
	names := make([]string, 0, len(pairs))
	for p := range pairs {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		tl := pairs[p]
		line := fmt.Sprintf("%-22s translated %3d (unjudged %d), refused %3d", p, tl.translated, tl.unjudged, tl.refused)
		if len(reasons[p]) > 0 {
			var rs []string
			for r, n := range reasons[p] {
				rs = append(rs, fmt.Sprintf("%d× %s", n, r))
			}
			sort.Strings(rs)
			line += ": " + strings.Join(rs, "; ")
		}
		t.Log(line)
	}
}

// refusalKind shortens a refusal to what it names.
func refusalKind(err error) string {
	msg := err.Error()
	if errors.Is(err, ErrUntranslatable) {
		if i := strings.Index(msg, " shape for "); i >= 0 {
			rest := msg[i+len(" shape for "):]
			if j := strings.Index(rest, ";"); j >= 0 {
				rest = rest[:j]
			}
			return "no shape for " + rest
		}
		if strings.Contains(msg, "only a session imported from") {
			return "not the target's own session"
		}
		return "untranslatable: " + msg
	}
	if i := strings.LastIndex(msg, ": invalid input: "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}

func firstDiff(want, got []string) string {
	for i := 0; i < len(want) || i < len(got); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			return fmt.Sprintf("message %d (of %d before, %d after):\n  before: %.300s\n  after:  %.300s", i+1, len(want), len(got), w, g)
		}
	}
	return ""
}

// dropZotStubs removes from got the stub results zot's loader gives a
// call that has no result (zotStubText), for the calls without result in
// src: the call was cut off in the source too.
func dropZotStubs(src, got []xMsg) []xMsg {
	answered := map[string]bool{}
	for _, m := range src {
		if m.Role == xToolResult {
			answered[m.CallID] = true
		}
	}
	var out []xMsg
	for _, m := range got {
		if m.Role == xToolResult && m.IsError && !answered[m.CallID] && len(m.Blocks) == 1 && m.Blocks[0].Text == zot.StubText {
			continue
		}
		out = append(out, m)
	}
	return out
}
