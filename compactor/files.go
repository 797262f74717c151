package compactor

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Files read and changed by the summarized part of a transcript, kept in
// the compaction's details (Details.ReadFiles, Details.ModifiedFiles) as
// pi keeps them in its own (readFiles, modifiedFiles): the summary loses
// the file contents, so the agent is told which files it had read and
// which it had changed. A file is read when a read tool named it, changed
// when a write, edit or patch tool did; a file both read and changed is
// listed as changed only. The tools recognised, by name (case aside):
//
//   - read: Read (Claude Code), read (pi), read_file, view, view_file,
//     open_file;
//   - change: Write, Edit, MultiEdit, NotebookEdit (Claude Code), write
//     and edit (pi), write_file, create_file, edit_file, replace_in_file,
//     str_replace;
//   - apply_patch (Codex; and any call whose arguments hold an "*** Begin
//     Patch" text, as Codex's shell carried it): every file the patch
//     adds, updates, deletes or moves to.
//
// The path is the argument file_path, path, filePath, filename, file,
// notebook_path or target_file. Files read through a shell command (cat,
// sed) are not listed: the command's meaning is not the tool's.

// fileOps collects the files of a summarized part.
type fileOps struct {
	read, changed map[string]bool
}

func newFileOps() *fileOps {
	return &fileOps{read: map[string]bool{}, changed: map[string]bool{}}
}

// lists returns the files read only and the files changed, sorted (pi's
// computeFileLists).
func (f *fileOps) lists() (read, changed []string) {
	for p := range f.changed {
		changed = append(changed, p)
	}
	for p := range f.read {
		if !f.changed[p] {
			read = append(read, p)
		}
	}
	sort.Strings(read)
	sort.Strings(changed)
	return read, changed
}

var (
	readTools = map[string]bool{"read": true, "read_file": true, "readfile": true, "view": true, "view_file": true, "open_file": true}
	editTools = map[string]bool{"write": true, "edit": true, "multiedit": true, "multi_edit": true, "notebookedit": true,
		"write_file": true, "create_file": true, "edit_file": true, "replace_in_file": true, "str_replace": true}
	pathKeys = []string{"file_path", "path", "filePath", "filename", "file", "notebook_path", "target_file"}
)

// add records the files entry e of a session of format reads or changes.
func (f *fileOps) add(format string, e sessiondb.Entry) {
	for _, c := range toolCalls(format, e) {
		f.call(c)
	}
}

// call records the files of one tool call.
func (f *fileOps) call(c jsonl.ToolCall) {
	name := strings.ToLower(c.Name)
	var args any
	if json.Unmarshal([]byte(c.Arguments), &args) != nil {
		args = c.Arguments // free text (Codex's apply_patch custom tool)
	}
	if patch := patchText(args); patch != "" {
		for _, p := range patchFiles(patch) {
			f.changed[p] = true
		}
		return
	}
	m, _ := args.(map[string]any)
	path := ""
	for _, k := range pathKeys {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
			path = strings.TrimSpace(s)
			break
		}
	}
	if path == "" {
		return
	}
	switch {
	case readTools[name]:
		f.read[path] = true
	case editTools[name]:
		f.changed[path] = true
	case name == "str_replace_editor" || name == "str_replace_based_edit_tool":
		if cmd, _ := m["command"].(string); cmd == "view" {
			f.read[path] = true
		} else {
			f.changed[path] = true
		}
	}
}

// patchText returns the "*** Begin Patch" text among a call's arguments
// ("" when none).
func patchText(v any) string {
	switch v := v.(type) {
	case string:
		if strings.Contains(v, "*** Begin Patch") {
			return v
		}
	case []any:
		for _, e := range v {
			if s := patchText(e); s != "" {
				return s
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if s := patchText(v[k]); s != "" {
				return s
			}
		}
	}
	return ""
}

// patchFiles lists the files an apply_patch text adds, updates, deletes
// or moves to.
func patchFiles(patch string) []string {
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimSpace(line)
		for _, prefix := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if p, ok := strings.CutPrefix(line, prefix); ok && strings.TrimSpace(p) != "" {
				out = append(out, strings.TrimSpace(p))
			}
		}
	}
	return out
}

// toolCalls returns the tool calls of entry e: Understand's for the
// formats it reads, else the call blocks inspectBody recognises (content
// blocks with an id and a name, OpenAI tool_calls).
func toolCalls(format string, e sessiondb.Entry) []jsonl.ToolCall {
	if ownShape(format) {
		return jsonlimport.Understand(format, e).Calls
	}
	var obj map[string]any
	if json.Unmarshal(e.Body, &obj) != nil {
		return nil
	}
	if et, _ := obj["entry_type"].(string); et == "message" {
		if data, ok := obj["data"].(map[string]any); ok {
			obj = data
		}
	}
	var out []jsonl.ToolCall
	args := func(v any) string {
		if s, ok := v.(string); ok {
			return s
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	block := func(b map[string]any) {
		if id, _ := classifyBlock(b); id != "" {
			name, _ := b["name"].(string)
			a, ok := b["arguments"]
			if !ok {
				a = b["input"]
			}
			out = append(out, jsonl.ToolCall{ID: id, Name: name, Arguments: args(a)})
		}
	}
	block(obj)
	if calls, ok := obj["tool_calls"].([]any); ok {
		for _, c := range calls {
			c, _ := c.(map[string]any)
			fn, _ := c["function"].(map[string]any)
			if fn == nil {
				continue
			}
			id, _ := c["id"].(string)
			name, _ := fn["name"].(string)
			out = append(out, jsonl.ToolCall{ID: id, Name: name, Arguments: args(fn["arguments"])})
		}
	}
	if content, ok := obj["content"].([]any); ok {
		for _, c := range content {
			if c, ok := c.(map[string]any); ok {
				block(c)
			}
		}
	}
	return out
}

// Files returns the files read (only) and changed that a compaction
// records: those of this package's details, else those of a pi
// compaction entry among its summary messages (pi writes them into its
// compaction line's details as readFiles and modifiedFiles).
func Files(c sessiondb.Compaction) (read, changed []string) {
	if d, ok := ParseDetails(c); ok {
		return d.ReadFiles, d.ModifiedFiles
	}
	for _, e := range c.Summary {
		var line struct {
			Type    string `json:"type"`
			Details struct {
				ReadFiles     []string `json:"readFiles"`
				ModifiedFiles []string `json:"modifiedFiles"`
			} `json:"details"`
		}
		if json.Unmarshal(e.Body, &line) == nil && line.Type == "compaction" {
			return line.Details.ReadFiles, line.Details.ModifiedFiles
		}
	}
	return nil, nil
}

// fileSections is pi's formatFileOperations: the file lists as tagged
// sections appended to the summary text ("" when both are empty).
func fileSections(read, changed []string) string {
	var parts []string
	if len(read) > 0 {
		parts = append(parts, "<read-files>\n"+strings.Join(read, "\n")+"\n</read-files>")
	}
	if len(changed) > 0 {
		parts = append(parts, "<modified-files>\n"+strings.Join(changed, "\n")+"\n</modified-files>")
	}
	if len(parts) == 0 {
		return ""
	}
	return "\n\n" + strings.Join(parts, "\n\n")
}

// withoutFileSections is text without the file sections fileSections
// appended to it: an incremental summary takes the lists from the
// previous compaction's details, not from its text.
func withoutFileSections(text string) string {
	for _, name := range []string{"read-files", "modified-files"} {
		i := strings.LastIndex(text, "\n\n<"+name+">\n")
		if i >= 0 && strings.HasSuffix(text, "\n</"+name+">") {
			return withoutFileSections(text[:i])
		}
	}
	return text
}
