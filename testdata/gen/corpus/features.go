package main

import (
	"bytes"
	"encoding/json"
	"path"
	"sort"
	"strings"
)

// fileInfo is one entry of manifest.json: where a reduced file came from and
// what it holds. Line numbers are 1-based and are the same in the original
// and in the reduced copy (reduction keeps every line).
type fileInfo struct {
	File         string           `json:"file"`   // path under testdata/corpus
	Format       string           `json:"format"` // claude-code or codex
	Role         string           `json:"role"`
	Repository   string           `json:"repository"`
	Commit       string           `json:"commit"`
	OriginalPath string           `json:"original_path"`
	SHA256       string           `json:"original_sha256"`
	Bytes        int              `json:"original_bytes"`
	ReducedBytes int              `json:"reduced_bytes"`
	Lines        int              `json:"lines"`
	Versions     []string         `json:"versions"`
	Originators  []string         `json:"originators,omitempty"`
	Models       []string         `json:"models,omitempty"`
	Features     []string         `json:"features"`
	Examples     map[string][]int `json:"examples,omitempty"`
	ToolUses     int              `json:"tool_uses"`
	ToolAnswered int              `json:"tool_uses_with_result"`
	InvalidLines int              `json:"invalid_lines"`
	FinalNewline bool             `json:"final_newline"`
}

// lines splits a JSONL file into its lines (without the newline). A final
// newline does not start another line.
func lines(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	ls := bytes.Split(data, []byte{'\n'})
	if len(ls[len(ls)-1]) == 0 {
		ls = ls[:len(ls)-1]
	}
	return ls
}

type featureSet struct {
	feats    map[string][]int
	versions map[string]bool
	models   map[string]bool
	origins  map[string]bool
}

func newFeatureSet() *featureSet {
	return &featureSet{feats: map[string][]int{}, versions: map[string]bool{}, models: map[string]bool{}, origins: map[string]bool{}}
}

// add records a feature at a line; at most a few example lines are kept.
func (f *featureSet) add(name string, line ...int) {
	ex := f.feats[name]
	for _, l := range line {
		if len(ex) < 3 {
			ex = append(ex, l)
		}
	}
	if ex == nil {
		ex = []int{}
	}
	f.feats[name] = ex
}

// group sets a feature's examples to a whole run of lines (a response's lines).
func (f *featureSet) group(name string, ls []int) {
	if _, ok := f.feats[name]; ok {
		return
	}
	f.feats[name] = ls
}

func (f *featureSet) fill(fi *fileInfo) {
	for k := range f.feats {
		fi.Features = append(fi.Features, k)
	}
	sort.Strings(fi.Features)
	fi.Examples = f.feats
	fi.Versions = sortedKeys(f.versions)
	fi.Models = sortedKeys(f.models)
	fi.Originators = sortedKeys(f.origins)
}

func sortedKeys(m map[string]bool) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

type block struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	ToolUseID string `json:"tool_use_id"`
}

type ccLine struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	Version          string          `json:"version"`
	IsSidechain      bool            `json:"isSidechain"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	IsAPIError       bool            `json:"isApiErrorMessage"`
	RequestID        string          `json:"requestId"`
	CostUSD          *float64        `json:"costUSD"`
	Message          json.RawMessage `json:"message"`
}

type ccMessage struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	Usage   json.RawMessage `json:"usage"`
}

// analyzeClaude finds the features of a Claude Code transcript.
func analyzeClaude(fi *fileInfo, data []byte) {
	f := newFeatureSet()
	p := fi.OriginalPath
	switch {
	case path.Base(p) == "journal.jsonl":
		f.add("workflow-journal")
	case strings.Contains(p, "/subagents/workflows/"):
		f.add("workflow-subagent-file")
	case strings.Contains(p, "/subagents/"):
		f.add("subagent-file")
	case strings.HasPrefix(path.Base(p), "agent-"):
		f.add("agent-file-2.0-layout")
	}
	if len(data) == 0 {
		f.add("empty-file")
	}
	type resp struct {
		lines     []int
		toolLines []int
		toolIDs   []string
		usages    map[string]bool
	}
	resps := map[string]*resp{}
	var order []string
	uses := map[string]int{}
	results := map[string][]int{}
	for i, raw := range lines(data) {
		n := i + 1
		fi.Lines++
		if len(bytes.TrimSpace(raw)) == 0 {
			f.add("blank-line", n)
			continue
		}
		var l ccLine
		if err := json.Unmarshal(raw, &l); err != nil {
			fi.InvalidLines++
			f.add("torn-line", n)
			continue
		}
		if l.Type != "" {
			f.add("type:"+l.Type, n)
		}
		if l.Subtype != "" {
			f.add(l.Type+":"+l.Subtype, n)
		}
		if l.Version != "" {
			f.versions[l.Version] = true
		}
		if l.IsSidechain {
			f.add("sidechain", n)
		}
		if l.IsCompactSummary {
			f.add("compact-summary", n)
		}
		if l.Subtype == "compact_boundary" {
			f.add("compaction", n)
		}
		if l.IsAPIError {
			f.add("api-error", n)
		}
		if l.CostUSD != nil {
			f.add("costUSD", n)
		}
		var m ccMessage
		if len(l.Message) == 0 || json.Unmarshal(l.Message, &m) != nil {
			continue
		}
		if m.Model != "" {
			f.models[m.Model] = true
			switch {
			case m.Model == "<synthetic>":
				f.add("synthetic", n)
			case !strings.HasPrefix(m.Model, "claude"):
				f.add("third-party-model", n)
			}
		}
		var blocks []block
		json.Unmarshal(m.Content, &blocks)
		hasTool := false
		var ids []string
		for _, b := range blocks {
			switch b.Type {
			case "thinking", "redacted_thinking":
				f.add("thinking", n)
			case "tool_use":
				hasTool = true
				uses[b.ID] = n
				ids = append(ids, b.ID)
			case "tool_result":
				results[b.ToolUseID] = append(results[b.ToolUseID], n)
			case "image":
				f.add("image", n)
			case "server_tool_use":
				f.add("server-tool-use", n)
			}
		}
		if l.Type == "assistant" && m.ID != "" {
			key := m.ID + "\x00" + l.RequestID
			r := resps[key]
			if r == nil {
				r = &resp{usages: map[string]bool{}}
				resps[key] = r
				order = append(order, key)
			}
			r.lines = append(r.lines, n)
			if hasTool {
				r.toolLines = append(r.toolLines, n)
				r.toolIDs = append(r.toolIDs, ids...)
			}
			r.usages[string(m.Usage)] = true
		}
	}
	for _, key := range order {
		r := resps[key]
		if len(r.lines) >= 2 {
			f.group("streamed-response", r.lines)
			if len(r.usages) > 1 {
				f.group("partial-usage-on-early-lines", r.lines)
			}
		}
		if len(r.toolLines) >= 2 {
			ex := append([]int{}, r.lines...)
			for _, id := range r.toolIDs {
				ex = append(ex, results[id]...)
			}
			sort.Ints(ex)
			f.group("parallel-tool-calls", ex)
		}
	}
	fi.ToolUses = len(uses)
	for id := range uses {
		if len(results[id]) > 0 {
			fi.ToolAnswered++
		}
	}
	if fi.ToolUses > fi.ToolAnswered {
		missing := []int{}
		for id, n := range uses {
			if len(results[id]) == 0 {
				missing = append(missing, n)
			}
		}
		sort.Ints(missing)
		f.add("tool-use-without-result", missing...)
	}
	if !fi.FinalNewline && len(data) > 0 {
		f.add("no-final-newline")
	}
	f.fill(fi)
}

type cxLine struct {
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
	// legacy (2025 before the envelope): fields at top level
	ID         string `json:"id"`
	RecordType string `json:"record_type"`
}

type cxPayload struct {
	Type       string          `json:"type"`
	CLIVersion string          `json:"cli_version"`
	Originator string          `json:"originator"`
	Source     json.RawMessage `json:"source"`
	Model      string          `json:"model"`
	CallID     string          `json:"call_id"`
	Info       json.RawMessage `json:"info"`
	ForkedFrom string          `json:"forked_from_id"`
}

// analyzeCodex finds the features of a Codex rollout file.
func analyzeCodex(fi *fileInfo, data []byte) {
	f := newFeatureSet()
	calls := map[string]int{}
	outputs := map[string]bool{}
	for i, raw := range lines(data) {
		n := i + 1
		fi.Lines++
		if len(bytes.TrimSpace(raw)) == 0 {
			f.add("blank-line", n)
			continue
		}
		var l cxLine
		if err := json.Unmarshal(raw, &l); err != nil {
			fi.InvalidLines++
			f.add("torn-line", n)
			continue
		}
		var p cxPayload
		if l.Payload == nil {
			// Before the {timestamp,type,payload} envelope the items were
			// written bare.
			f.add("legacy-format", n)
			json.Unmarshal(raw, &p)
			if l.RecordType != "" {
				f.add("legacy-record:"+l.RecordType, n)
			} else if l.Type != "" {
				f.add("legacy-item:"+l.Type, n)
			}
		} else {
			json.Unmarshal(l.Payload, &p)
			name := l.Type
			if p.Type != "" {
				name += ":" + p.Type
			}
			f.add(name, n)
		}
		t := l.Type
		if l.Payload == nil {
			t = ""
		}
		switch {
		case t == "session_meta":
			if p.CLIVersion != "" {
				f.versions[p.CLIVersion] = true
			}
			if p.Originator != "" {
				f.origins[p.Originator] = true
			}
			var src string
			if json.Unmarshal(p.Source, &src) == nil && src != "" {
				f.add("source:"+src, n)
			} else if bytes.Contains(p.Source, []byte(`"subagent"`)) {
				f.add("source:subagent", n)
			}
			if p.ForkedFrom != "" {
				f.add("forked", n)
			}
		case t == "turn_context" && p.Model != "":
			f.models[p.Model] = true
		case t == "compacted":
			f.add("compacted", n)
		case t == "event_msg" && p.Type == "token_count" && (len(p.Info) == 0 || string(p.Info) == "null"):
			f.add("token-count-without-info", n)
		}
		switch p.Type {
		case "function_call", "custom_tool_call", "local_shell_call", "tool_search_call":
			if p.CallID != "" {
				calls[p.CallID] = n
			}
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_search_output":
			outputs[p.CallID] = true
		}
	}
	fi.ToolUses = len(calls)
	for id := range calls {
		if outputs[id] {
			fi.ToolAnswered++
		}
	}
	if !fi.FinalNewline && len(data) > 0 {
		f.add("no-final-newline")
	}
	f.fill(fi)
}
