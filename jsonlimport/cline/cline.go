package cline

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Name is the format's name in the registry and in sessions'
// SourceFormat.
const Name = "cline"

// The files of a task directory (tasks/<taskId>/).
const (
	APIFile      = "api_conversation_history.json"
	UIFile       = "ui_messages.json"
	OldUIFile    = "claude_messages.json" // the UI file's name before Cline 2
	MetadataFile = "task_metadata.json"
	HistoryFile  = "history_item.json" // Roo Code's copy of the task's history item
)

// KindUI is the Kind of a UI message of a task that has no API history
// (the UI's list is then the log).
const KindUI = "cline.ui"

// Format is the Cline (and Roo Code) task directory format.
type Format struct{}

var (
	_ jsonl.Format         = Format{}
	_ jsonl.Exporter       = Format{}
	_ jsonl.Skipper        = Format{}
	_ jsonl.MessageReader  = Format{}
	_ jsonl.HeaderRewriter = Format{}
)

// Name returns Name.
func (Format) Name() string { return Name }

// sideNames are the files of a task read with its primary file, in the
// order they are listed in Unit.Extra.
var sideNames = []string{UIFile, OldUIFile, MetadataFile, HistoryFile}

// Claim takes the task directory whose files it is given: its
// api_conversation_history.json (the primary file), else its
// ui_messages.json (a task whose API history is gone), when that file is
// a JSON array whose first element has Cline's shape ({"role", …} for
// the API history, {"ts", …} for the UI's messages). The task's other
// files (ui_messages.json, task_metadata.json, Roo Code's
// history_item.json, and state/taskHistory.json two levels up) are its
// side files.
func (Format) Claim(files []string) (units []jsonl.Unit, rest []string) {
	units, files = claimSDK(files)
	if len(files) == 0 {
		return units, nil
	}
	byName := map[string]string{}
	for _, f := range files {
		byName[filepath.Base(f)] = f
	}
	primary := ""
	switch {
	case byName[APIFile] != "" && sniff(byName[APIFile], "role"):
		primary = byName[APIFile]
	case byName[UIFile] != "" && sniff(byName[UIFile], "ts"):
		primary = byName[UIFile]
	case byName[OldUIFile] != "" && sniff(byName[OldUIFile], "ts"):
		primary = byName[OldUIFile]
	}
	if primary == "" {
		return units, files
	}
	u := jsonl.Unit{Format: Name, Path: primary}
	taken := map[string]bool{primary: true}
	for _, n := range sideNames {
		p := byName[n]
		if p == "" {
			// A task file imported on its own: its folder's other
			// files still belong to it.
			if q := filepath.Join(filepath.Dir(primary), n); regular(q) {
				p = q
			}
		}
		if p != "" && p != primary && !(isUIFile(p) && isUIFile(primary)) {
			u.Extra = append(u.Extra, p)
			taken[p] = true
		}
	}
	if idx := historyIndex(primary); idx != "" {
		u.Extra = append(u.Extra, idx)
	}
	for _, f := range files {
		if !taken[f] {
			rest = append(rest, f)
		}
	}
	return append(units, u), rest
}

// historyIndex returns the task index of the storage folder a task file
// lies in (<storage>/state/taskHistory.json for <storage>/tasks/<id>/…),
// "" when there is none.
func historyIndex(path string) string {
	taskDir := filepath.Dir(path)
	if filepath.Base(filepath.Dir(taskDir)) != "tasks" {
		return ""
	}
	p := filepath.Join(filepath.Dir(filepath.Dir(taskDir)), "state", "taskHistory.json")
	if regular(p) {
		return p
	}
	return ""
}

// regular reports whether path is a regular file.
func regular(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// sniff reports whether the file at path is a JSON array that is empty
// or whose first element is an object whose first member is key.
func sniff(path, key string) bool {
	f, err := jsonl.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 4096))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return false
	}
	t, err := dec.Token()
	if err != nil {
		return false
	}
	if t == json.Delim(']') {
		return true
	}
	if t != json.Delim('{') {
		return false
	}
	t, err = dec.Token()
	return err == nil && t == key
}

// SkipReason implements jsonl.Skipper: the files of a task folder and of
// the extension's storage that hold no conversation are skipped with a
// note.
func (Format) SkipReason(path string) string {
	base := filepath.Base(path)
	dir := filepath.Base(filepath.Dir(filepath.Dir(path)))
	switch {
	case base == "taskHistory.json" && filepath.Base(filepath.Dir(path)) == "state":
		return "Cline's task index (read with each task of tasks/ beside it); skipped"
	case dir == "sessions" && strings.HasSuffix(base, SDKCompactionSuffix):
		return "Cline SDK compaction state (read with the session's " + SDKMessagesSuffix + "); skipped"
	case dir == "sessions" && strings.HasSuffix(base, SDKManifestSuffix) && !strings.HasSuffix(base, SDKMessagesSuffix):
		return "Cline SDK session manifest (read with the session's " + SDKMessagesSuffix + "); skipped"
	case filepath.Base(filepath.Dir(path)) == "db" && (base == "sessions.db" || strings.HasPrefix(base, "sessions.db-")):
		return "Cline SDK's session index database (the sessions' manifests hold the same); skipped"
	case filepath.Base(filepath.Dir(path)) == "logs" && base == "hooks.jsonl" && filepath.Base(filepath.Dir(filepath.Dir(path))) == "data":
		return "Cline SDK's hook event log (agent and tool events, no conversation); skipped"
	case dir == "tasks" && (base == "context_history.json" || base == "settings.json" || base == MetadataFile || base == HistoryFile):
		return "Cline task file without a conversation (read with the task's " + APIFile + " or " + UIFile + " when there is one); skipped"
	}
	return ""
}

// Parse reads one task (see the package doc). Cline rewrites its files
// whole, so a task is always read whole (ErrNotIncremental for a Resume
// with an offset).
func (Format) Parse(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (parsed *jsonl.Parsed, err error) {
	defer func() {
		if r := recover(); r != nil {
			parsed, err = nil, fmt.Errorf("parse %s %s: internal error: %v", Name, u.Path, r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	if from.Offset > 0 {
		return nil, jsonl.ErrNotIncremental
	}
	if IsSDK(u.Path) {
		p, err := parseSDK(ctx, u)
		if err != nil {
			if errors.Is(err, jsonl.ErrNoConversation) {
				return nil, err
			}
			return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
		}
		return p, nil
	}
	t, err := readTask(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	return t.parsed(u)
}

// RewritesHeader implements jsonl.HeaderRewriter: the SDK rewrites its
// messages file whole with a new updated_at before the messages, so the
// bytes an import consumed change as the session goes on although the
// messages read from them do not.
func (Format) RewritesHeader() bool { return true }

// isUIFile reports whether path is a UI messages file.
func isUIFile(path string) bool {
	b := filepath.Base(path)
	return b == UIFile || b == OldUIFile
}

// taskID is the task's ID: its folder's name.
func taskID(path string) string {
	return filepath.Base(filepath.Dir(path))
}

// Extension tells which extension wrote the task at path, by the folder
// it lies in: "roo-code" (rooveterinaryinc.roo-cline, or a task with a
// history_item.json), "cline" (saoudrizwan.claude-dev, ~/.cline/data),
// else "".
func Extension(path string, hasHistoryItem bool) string {
	p := strings.ToLower(filepath.ToSlash(path))
	switch {
	case strings.Contains(p, "/rooveterinaryinc.roo-cline/"), hasHistoryItem:
		return "roo-code"
	case strings.Contains(p, "/saoudrizwan.claude-dev/"), strings.Contains(p, "/.cline/data/"):
		return "cline"
	}
	return ""
}
