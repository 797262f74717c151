package handoff

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
)

// sourceVendor is whose API signed a format's thinking, "" when the
// format keeps no signature (pi and opencode keep their provider's).
var sourceVendor = map[string]string{
	jsonlimport.FormatClaudeCode: "anthropic",
	jsonlimport.FormatCodex:      "openai",
	jsonlimport.FormatGemini:     "google",
	jsonlimport.FormatQwen:       "openai-compatible",
}

// losses names what the target cannot carry or use of sess, one line
// each: for a translation, thinking another vendor signed (kept as
// history, but no other vendor's API checks its signature, so the
// target's model may be sent it as plain text or not at all) and calls
// of tools the target does not have (kept as history with their results;
// the agent cannot run them again). The export itself refuses what the
// target format has no shape for (jsonlimport.ErrUntranslatable), so
// nothing else is dropped.
//
// asOwn counts, by tool name, the calls the translation wrote as calls of
// the target's own tool (they are not named as foreign).
func losses(ctx context.Context, st sessiondb.Store, sess sessiondb.Session, t Target, asOwn map[string]int) ([]string, error) {
	out := []string{}
	if sess.SourceFormat == t.Format {
		return out, nil
	}
	full, err := st.LoadFull(ctx, sess.ID, sessiondb.LoadOptions{})
	if err != nil {
		return nil, fmt.Errorf("handoff %s: %w", sess.ID, err)
	}
	thinking := 0
	foreign := map[string]int{}
	for _, e := range full.Transcript {
		m := jsonlimport.Understand(sess.SourceFormat, e)
		if m.Bookkeeping {
			continue
		}
		if m.Thinking != "" {
			thinking++
		}
		for _, c := range m.Calls {
			if n, _, _, ok := jsonlimport.CodexCall(c.Name, []byte(c.Arguments)); ok && t.Agent == "codex" {
				c.Name = n // a shell call handed to Codex becomes its exec_command
			}
			if !t.hasTool(c.Name) {
				foreign[c.Name]++
			}
		}
	}
	// (Codex's and Claude Code's translations leave such thinking out and
	// name it themselves.)
	if v := sourceVendor[sess.SourceFormat]; thinking > 0 && v != "" && v != t.Vendor && t.Agent != "codex" && t.Agent != "claude-code" {
		what := fmt.Sprintf("%s's model cannot check their signatures", t.Agent)
		if t.Vendor == "any" {
			what = fmt.Sprintf("their signatures hold only when %s talks to %s's API", t.Agent, v)
		}
		out = append(out, fmt.Sprintf("%d thinking %s signed by %s's API: %s (the text stays in the history)",
			thinking, plural("block", thinking), v, what))
	}
	for n, k := range asOwn {
		if foreign[n] -= k; foreign[n] <= 0 {
			delete(foreign, n)
		}
	}
	if len(foreign) > 0 {
		names := make([]string, 0, len(foreign))
		for n := range foreign {
			names = append(names, n)
		}
		sort.Strings(names)
		var parts []string
		for _, n := range names {
			parts = append(parts, fmt.Sprintf("%s ×%d", n, foreign[n]))
		}
		out = append(out, fmt.Sprintf("calls of tools %s does not have: %s (kept with their results as history; it cannot run them again)",
			t.Agent, strings.Join(parts, ", ")))
	}
	return out, nil
}

// leftOutLosses names what a translation left out because the target
// could not send it to its model (jsonlimport.LeaveOutUnsendable).
func leftOutLosses(lo jsonlimport.LeftOut, t Target) []string {
	var out []string
	for _, k := range sortedKeys(lo.Thinking) {
		n := lo.Thinking[k]
		by := "signed by " + k + "'s API"
		if k == "unsigned" {
			by = "without a signature"
		}
		out = append(out, fmt.Sprintf("%d thinking %s %s left out: %s replays thinking to its model's API, which accepts only thinking it signed",
			n, plural("block", n), by, t.Agent))
	}
	for _, k := range sortedKeys(lo.Context) {
		n := lo.Context[k]
		out = append(out, fmt.Sprintf("%d %s %s left out (the source agent's instructions to its model; %s gives its own)",
			n, k, plural("message", n), t.Agent))
	}
	return out
}

// asBashNotes says which calls a translation wrote as calls of the
// target's Bash tool.
func asBashNotes(lo jsonlimport.LeftOut, t Target) []string {
	var out []string
	for _, k := range sortedKeys(lo.AsBash) {
		n := lo.AsBash[k]
		out = append(out, fmt.Sprintf("%d %s of %s written as %s's Bash (the same command)", n, plural("call", n), k, t.Agent))
	}
	if lo.IDs > 0 {
		out = append(out, fmt.Sprintf("%d tool call %s rewritten to the shape %s's API accepts (letters, digits, _ and -)", lo.IDs, plural("id", lo.IDs), t.Agent))
	}
	return out
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func plural(w string, n int) string {
	if n == 1 {
		return w
	}
	return w + "s"
}
