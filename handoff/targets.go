package handoff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sessiondb/sessiondb/jsonlimport"
)

// Target is one agent a session can be handed to.
type Target struct {
	// Agent is its name on the command line: claude-code, codex, gemini,
	// qwen, pi, opencode.
	Agent string
	// Format is the export format of its store.
	Format string
	// Command is its executable.
	Command string
	// Vendor is whose models it talks to by default: thinking signed by
	// one vendor cannot be checked by another's API.
	Vendor string
	// Tools are the names of its built-in tools, as its sessions record
	// them (a call of any other tool stays in the history, but the agent
	// cannot run it again).
	Tools []string
}

// Targets returns the six agents, in a fixed order.
func Targets() []Target {
	return []Target{
		{Agent: "claude-code", Format: jsonlimport.FormatClaudeCode, Command: "claude", Vendor: "anthropic",
			Tools: []string{"Bash", "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "LS", "WebFetch", "WebSearch", "TodoWrite", "Task", "Agent", "NotebookEdit"}},
		{Agent: "codex", Format: jsonlimport.FormatCodex, Command: "codex", Vendor: "openai",
			Tools: []string{"shell", "exec_command", "write_stdin", "apply_patch", "update_plan", "view_image", "local_shell"}},
		{Agent: "gemini", Format: jsonlimport.FormatGemini, Command: "gemini", Vendor: "google",
			Tools: []string{"run_shell_command", "read_file", "write_file", "replace", "list_directory", "glob", "search_file_content", "grep_search", "web_fetch", "google_web_search", "save_memory", "read_many_files", "write_todos", "invoke_agent", "complete_task"}},
		{Agent: "qwen", Format: jsonlimport.FormatQwen, Command: "qwen", Vendor: "openai-compatible",
			Tools: []string{"run_shell_command", "read_file", "write_file", "edit", "list_directory", "glob", "grep_search", "web_fetch", "web_search", "save_memory", "read_many_files", "todo_write", "agent", "task"}},
		{Agent: "pi", Format: jsonlimport.FormatPi, Command: "pi", Vendor: "any",
			Tools: []string{"bash", "read", "write", "edit", "grep", "find", "ls"}},
		{Agent: "opencode", Format: jsonlimport.FormatOpencode, Command: "opencode", Vendor: "any",
			Tools: []string{"bash", "read", "write", "edit", "glob", "grep", "list", "patch", "todowrite", "todoread", "webfetch", "task", "invalid"}},
	}
}

// LookupTarget returns the target named name (an agent name, or its
// export format's name: gemini-cli, qwen-code), or false.
func LookupTarget(name string) (Target, bool) {
	for _, t := range Targets() {
		if t.Agent == name || t.Format == name {
			return t, true
		}
	}
	return Target{}, false
}

// hasTool reports whether the target has a built-in tool named name.
func (t Target) hasTool(name string) bool {
	for _, n := range t.Tools {
		if n == name {
			return true
		}
	}
	return false
}

// Env is where a target's store is: the home folder and the environment
// variables that move it (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME,
// QWEN_HOME, XDG_DATA_HOME), as the agents read them.
type Env struct {
	Home   string
	Getenv func(string) string
}

func (e Env) get(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// Root is the folder the target keeps its store in: the export's
// relative paths are placed under it (after Place).
func (t Target) Root(e Env) string {
	j := filepath.Join
	switch t.Agent {
	case "claude-code":
		if d := e.get("CLAUDE_CONFIG_DIR"); d != "" {
			return d
		}
		return j(e.Home, ".claude")
	case "codex":
		if d := e.get("CODEX_HOME"); d != "" {
			return d
		}
		return j(e.Home, ".codex")
	case "gemini":
		if d := e.get("GEMINI_CLI_HOME"); d != "" {
			return j(d, ".gemini")
		}
		return j(e.Home, ".gemini")
	case "qwen":
		if d := e.get("QWEN_HOME"); d != "" {
			return d
		}
		return j(e.Home, ".qwen")
	case "pi":
		return j(e.Home, ".pi", "agent", "sessions")
	case "opencode":
		if d := e.get("XDG_DATA_HOME"); d != "" {
			return j(d, "opencode")
		}
		return j(e.Home, ".local", "share", "opencode")
	}
	return ""
}

// projectKey is a working directory as Claude Code and Qwen Code name its
// folder: every character but ASCII letters and digits as "-".
func projectKey(p string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, p)
}

// piFolder is pi's folder for a working directory: --<path without its
// leading />, / as ->--.
func piFolder(cwd string) string {
	return "--" + strings.ReplaceAll(strings.TrimPrefix(cwd, "/"), "/", "-") + "--"
}

// place moves an export's relative path (written for the session's own
// project) to the folder the target reads for cwd: the agents find a
// session to resume among those of the directory they run in (Codex and
// opencode aside). gemini is the Gemini CLI project's short name.
func (t Target) place(rel, cwd, gemini string) string {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	switch t.Agent {
	case "claude-code", "qwen":
		if len(parts) > 2 && parts[0] == "projects" {
			parts[1] = projectKey(cwd)
		}
	case "gemini":
		if len(parts) > 2 && parts[0] == "tmp" {
			parts[1] = gemini
		}
	case "pi":
		if len(parts) > 1 {
			parts[0] = piFolder(cwd)
		}
	}
	return filepath.FromSlash(strings.Join(parts, "/"))
}

// geminiProject is the short name Gemini CLI gives cwd in root's
// projects.json, and whether it must be registered there: the name it
// has, else the folder's base name, made unique with -2, -3, … when
// another path holds it.
func geminiProject(root, cwd string) (name string, register bool) {
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if b, err := os.ReadFile(filepath.Join(root, "projects.json")); err == nil {
		_ = json.Unmarshal(b, &reg)
	}
	if n := reg.Projects[cwd]; n != "" {
		return n, false
	}
	taken := map[string]bool{}
	for _, n := range reg.Projects {
		taken[n] = true
	}
	base := strings.ToLower(filepath.Base(cwd))
	if base == "" || base == "/" || base == "." {
		base = "project"
	}
	name = base
	for i := 2; taken[name]; i++ {
		name = base + "-" + strconv.Itoa(i)
	}
	return name, true
}

// ResumeArgs is the command line that resumes session id in the target:
// interactive, and headless with prompt.
func (t Target) ResumeArgs(id, prompt string) (interactive, headless []string) {
	switch t.Agent {
	case "claude-code":
		return []string{"claude", "--resume", id}, []string{"claude", "--resume", id, "-p", prompt}
	case "codex":
		return []string{"codex", "resume", id}, []string{"codex", "exec", "resume", id, prompt}
	case "gemini":
		return []string{"gemini", "--resume", id}, []string{"gemini", "--resume", id, "-p", prompt}
	case "qwen":
		return []string{"qwen", "--resume", id}, []string{"qwen", "--resume", id, prompt}
	case "pi":
		return []string{"pi", "--session", id}, []string{"pi", "--session", id, "-p", prompt}
	case "opencode":
		return []string{"opencode", "--session", id}, []string{"opencode", "run", "--session", id, prompt}
	}
	return nil, nil
}
