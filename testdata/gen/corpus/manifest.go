package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// manifest is manifest.json.
type manifest struct {
	Note   string      `json:"note"`
	Totals totals      `json:"totals"`
	Files  []*fileInfo `json:"files"`
}

type totals struct {
	Files          map[string]int `json:"files"` // format/role → count
	ClaudeVersions []string       `json:"claude_code_versions"`
	CodexVersions  []string       `json:"codex_cli_versions"`
	Originators    []string       `json:"codex_originators"`
	Repositories   []string       `json:"repositories"`
	OriginalBytes  int            `json:"original_bytes"`
	ReducedBytes   int            `json:"reduced_bytes"`
	Lines          int            `json:"lines"`
	FeatureFiles   map[string]int `json:"feature_files"` // feature → files that have it
}

const note = "Every file under testdata/corpus is a REDUCED COPY of a real session file " +
	"published in a public GitHub repository: lines, line ends, JSON key order, ids, " +
	"timestamps, models, usage and all numbers are the original's byte for byte; prose, " +
	"names and paths are replaced by deterministic placeholders (testdata/gen/corpus). " +
	"The originals are not in this repository."

func versionLess(a, b string) bool {
	pa, pb := strings.FieldsFunc(a, isSep), strings.FieldsFunc(b, isSep)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, errx := strconv.Atoi(pa[i])
		y, erry := strconv.Atoi(pb[i])
		if errx == nil && erry == nil && x != y {
			return x < y
		}
		if (errx != nil || erry != nil) && pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return len(pa) < len(pb)
}

func isSep(r rune) bool { return r == '.' || r == '-' }

func writeManifest(outDir string, infos []*fileInfo) error {
	t := totals{Files: map[string]int{}, FeatureFiles: map[string]int{}}
	cv, xv, or, repos := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, fi := range infos {
		t.Files[fi.Format+"/"+fi.Role]++
		t.OriginalBytes += fi.Bytes
		t.ReducedBytes += fi.ReducedBytes
		t.Lines += fi.Lines
		repos[fi.Repository] = true
		for _, v := range fi.Versions {
			if fi.Format == "codex" {
				xv[v] = true
			} else {
				cv[v] = true
			}
		}
		for _, o := range fi.Originators {
			or[o] = true
		}
		for _, f := range fi.Features {
			t.FeatureFiles[f]++
		}
	}
	t.ClaudeVersions, t.CodexVersions = sortedKeys(cv), sortedKeys(xv)
	sort.Slice(t.ClaudeVersions, func(i, j int) bool { return versionLess(t.ClaudeVersions[i], t.ClaudeVersions[j]) })
	sort.Slice(t.CodexVersions, func(i, j int) bool { return versionLess(t.CodexVersions[i], t.CodexVersions[j]) })
	t.Originators, t.Repositories = sortedKeys(or), sortedKeys(repos)
	m := manifest{Note: note, Totals: t, Files: infos}
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, "manifest.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(outDir, "MANIFEST.md"), []byte(markdown(outDir, m)), 0o644)
}

// ranges writes line numbers as "12, 14–16".
func ranges(ls []int) string {
	if len(ls) == 0 {
		return ""
	}
	var s []int
	for _, l := range ls {
		s = append(s, l)
	}
	sort.Ints(s)
	s = slicesCompact(s)
	var parts []string
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] <= s[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d–%d", s[i], s[j]))
		} else {
			parts = append(parts, strconv.Itoa(s[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

func versionSpan(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	s := append([]string{}, vs...)
	sort.Slice(s, func(i, j int) bool { return versionLess(s[i], s[j]) })
	if len(s) == 1 {
		return s[0]
	}
	return s[0] + " … " + s[len(s)-1]
}

// exampleFeatures are the features the sanity section shows, with a gloss.
var exampleFeatures = [][2]string{
	{"thinking", "thinking blocks"},
	{"parallel-tool-calls", "parallel tool calls (one message.id over several assistant lines each with a tool_use, then the results)"},
	{"streamed-response", "one response written as several lines sharing message.id/requestId"},
	{"partial-usage-on-early-lines", "streamed response whose usage differs between its lines (the last line has the final usage)"},
	{"sidechain", "isSidechain lines"},
	{"subagent-file", "sub-agent file <sessionId>/subagents/agent-*.jsonl"},
	{"agent-file-2.0-layout", "sub-agent file agent-*.jsonl beside the session (2.0.x layout)"},
	{"workflow-subagent-file", "workflow sub-agent <sessionId>/subagents/workflows/wf_*/agent-*.jsonl"},
	{"workflow-journal", "workflow journal.jsonl (not a transcript)"},
	{"compaction", "compact_boundary line"},
	{"compact-summary", "isCompactSummary line"},
	{"type:summary", "summary line"},
	{"type:ai-title", "ai-title line"},
	{"type:custom-title", "custom-title line"},
	{"type:attachment", "attachment line"},
	{"type:queue-operation", "queue-operation line"},
	{"type:last-prompt", "last-prompt line"},
	{"type:mode", "mode line"},
	{"type:permission-mode", "permission-mode line"},
	{"type:progress", "progress line"},
	{"type:file-history-snapshot", "file-history-snapshot line"},
	{"system:microcompact_boundary", "microcompact_boundary line"},
	{"api-error", "isApiErrorMessage line"},
	{"synthetic", "<synthetic> assistant line"},
	{"third-party-model", "assistant line from a third-party (non-Claude) model through an Anthropic-compatible endpoint"},
	{"image", "image block"},
	{"tool-use-without-result", "tool_use with no tool_result anywhere in the file"},
	{"empty-file", "empty session file"},
	{"no-final-newline", "file whose last line has no newline"},
	{"torn-line", "line that is not valid JSON"},
	{"legacy-format", "Codex rollout before the {timestamp,type,payload} envelope"},
	{"compacted", "Codex compacted line (replacement_history)"},
	{"source:subagent", "Codex sub-agent thread (session_meta.source.subagent)"},
	{"token-count-without-info", "Codex token_count event with info null"},
	{"response_item:reasoning", "Codex reasoning item"},
	{"response_item:function_call", "Codex function call"},
	{"response_item:custom_tool_call", "Codex custom tool call (apply_patch)"},
	{"event_msg:turn_aborted", "Codex turn_aborted event"},
	{"response_item:ghost_snapshot", "Codex ghost_snapshot item"},
	{"response_item:web_search_call", "Codex web_search_call item"},
}

func markdown(outDir string, m manifest) string {
	var b strings.Builder
	t := m.Totals
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("# Development corpus of real Claude Code and Codex session files\n\n")
	w("**These are reduced copies, not the originals.** Every file here is a reduced copy of a real session file ")
	w("that somebody published in a public GitHub repository (listed below with its commit and path). Lines, line ends, ")
	w("JSON key order, ids, timestamps, models, usage and all numbers are the original's byte for byte; prose, names and ")
	w("paths are replaced by deterministic placeholders. The originals are not in this repository.\n\n")
	w("Generated by `go run ./testdata/gen/corpus` from the originals listed in `testdata/gen/corpus/plan.tsv`; ")
	w("`testdata/gen/corpus/README.md` says exactly what is kept and what is replaced. ")
	w("Do not edit by hand: fix the generator and rerun it. `manifest.json` holds the same facts for programs.\n\n")
	w("What reduction keeps, checked by the generator on every file: the number of lines, each line's end and JSON validity, ")
	w("the final newline, and on every valid line the token stream (key order, numbers, booleans, nulls, ids, timestamps, models, usage) ")
	w("with only string values replaced.\n\n")
	if check, err := os.ReadFile(filepath.Join(outDir, "ccusage", "reduction-check.md")); err == nil {
		w("## ccusage on originals and reduced copies\n\n%s\n", check)
	}

	w("## Totals\n\n")
	w("- files: %d (original %.1f MB, reduced %.1f MB), %d lines\n", len(m.Files), float64(t.OriginalBytes)/1e6, float64(t.ReducedBytes)/1e6, t.Lines)
	var roles []string
	for k := range t.Files {
		roles = append(roles, k)
	}
	sort.Strings(roles)
	for _, k := range roles {
		w("  - %s: %d\n", k, t.Files[k])
	}
	w("- Claude Code versions (%d): %s\n", len(t.ClaudeVersions), strings.Join(t.ClaudeVersions, ", "))
	w("- Codex CLI versions (%d): %s\n", len(t.CodexVersions), strings.Join(t.CodexVersions, ", "))
	w("- Codex originators: %s\n", strings.Join(t.Originators, ", "))
	w("- repositories (%d):\n", len(t.Repositories))
	for _, r := range t.Repositories {
		n := 0
		commits := map[string]bool{}
		for _, fi := range m.Files {
			if fi.Repository == r {
				n++
				commits[fi.Commit[:10]] = true
			}
		}
		w("  - %s — %d files, commit %s\n", r, n, strings.Join(sortedKeys(commits), ", "))
	}
	w("\n## Features: how many files have each\n\n| feature | files |\n|---|---|\n")
	var feats []string
	for k := range t.FeatureFiles {
		feats = append(feats, k)
	}
	sort.Strings(feats)
	for _, f := range feats {
		w("| %s | %d |\n", f, t.FeatureFiles[f])
	}

	w("\n## Where to find each feature (for tests)\n\n")
	w("Line numbers are 1-based and equal in the original and the reduced copy. ")
	w("For a response, the lines listed are the response's assistant lines and, for parallel tool calls, the lines of their results.\n\n")
	for _, ef := range exampleFeatures {
		var picks []*fileInfo
		usedRepo := map[string]bool{}
		for pass := 0; pass < 2 && len(picks) < 3; pass++ {
			for _, fi := range m.Files {
				if len(picks) >= 3 {
					break
				}
				ex, ok := fi.Examples[ef[0]]
				if !ok || (pass == 0 && usedRepo[fi.Repository]) || contains(picks, fi) {
					continue
				}
				if pass == 0 && len(ex) > 40 {
					continue
				}
				usedRepo[fi.Repository] = true
				picks = append(picks, fi)
			}
		}
		if len(picks) == 0 {
			w("- **%s** — %s: none in the corpus\n", ef[0], ef[1])
			continue
		}
		w("- **%s** — %s:\n", ef[0], ef[1])
		for _, fi := range picks {
			if ex := fi.Examples[ef[0]]; len(ex) > 0 {
				w("  - `%s` lines %s\n", fi.File, ranges(ex))
			} else {
				w("  - `%s`\n", fi.File)
			}
		}
	}

	w("\n## Tool calls and their results (Claude Code files)\n\n")
	w("A check that needs no importer: the `tool_use` blocks in each file, and how many of them have a `tool_result` with their id anywhere in the same file.\n\n")
	w("| file | lines | tool_use | with tool_result |\n|---|---|---|---|\n")
	sumU, sumA := 0, 0
	for _, fi := range m.Files {
		if fi.Format != "claude-code" || !strings.HasSuffix(fi.File, ".jsonl") || fi.Role == "workflow-journal" {
			continue
		}
		w("| `%s` | %d | %d | %d |\n", fi.File, fi.Lines, fi.ToolUses, fi.ToolAnswered)
		sumU += fi.ToolUses
		sumA += fi.ToolAnswered
	}
	w("| **total** | | %d | %d |\n", sumU, sumA)

	w("\n## Files\n\n")
	w("| file | role | repository @ commit | original path | original sha256 | versions | lines | features |\n|---|---|---|---|---|---|---|---|\n")
	for _, fi := range m.Files {
		var fs []string
		for _, f := range fi.Features {
			if !strings.HasPrefix(f, "type:") || f == "type:summary" || f == "type:ai-title" {
				fs = append(fs, f)
			}
		}
		v := versionSpan(fi.Versions)
		if len(fi.Originators) > 0 {
			v += " (" + strings.Join(fi.Originators, ", ") + ")"
		}
		w("| `%s` | %s | %s @ %s | `%s` | %s | %s | %d | %s |\n", fi.File, fi.Role, fi.Repository, fi.Commit[:10],
			fi.OriginalPath, fi.SHA256, v, fi.Lines, strings.Join(fs, ", "))
	}
	return b.String()
}

func contains(fs []*fileInfo, f *fileInfo) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

func slicesCompact(s []int) []int {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
