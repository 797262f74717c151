package jsonlimport

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"

	"github.com/sessiondb/sessiondb/jsonlimport/entire"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Location is a directory where an agent keeps its session archives by
// default.
type Location struct {
	// Format is the format the agent writes there.
	Format string `json:"format"`
	// Path is the directory.
	Path string `json:"path"`
}

// WellKnownLocations returns the default archive directories of the agents
// whose formats this package reads, for the user whose home directory is
// home, with getenv giving the environment (ZOT_HOME, XDG_STATE_HOME,
// CLAUDE_CONFIG_DIR, CODEX_HOME, COPILOT_HOME, GEMINI_CLI_HOME, QWEN_HOME,
// QWEN_RUNTIME_DIR, XDG_DATA_HOME, OPENCODE_DB, GOOSE_PATH_ROOT, PWD, XDG_CONFIG_HOME,
// APPDATA, CLINE_DATA_DIR, CLINE_DIR, CURSOR_DATA_DIR). It lists candidates
// whether or not they exist; Detect tells what they hold.
//
//	claude-code  $CLAUDE_CONFIG_DIR/projects, ~/.claude/projects
//	codex        $CODEX_HOME/sessions and archived_sessions, ~/.codex/…
//	pi           ~/.pi/agent/sessions
//	gemini-cli   $GEMINI_CLI_HOME/.gemini/tmp, ~/.gemini/tmp
//	qwen-code    $QWEN_RUNTIME_DIR/projects, $QWEN_HOME/projects and tmp,
//	             ~/.qwen/projects and tmp (tmp: old whole-JSON chats)
//	picoclaw     ~/.picoclaw/workspace/sessions (and workspace-*/sessions)
//	zot          $ZOT_HOME, the platform state directory, ~/.local/state/zot
//	opencode     the folder of $OPENCODE_DB (when absolute),
//	             $XDG_DATA_HOME/opencode, ~/.local/share/opencode (opencode
//	             uses the XDG folders on every platform): opencode.db and
//	             the legacy storage/ tree
//	crush        $PWD/.crush (crush keeps one store per project, in the
//	             project's folder: the working directory's, when $PWD is
//	             absolute)
//	opencode-go  $PWD/.opencode (the Go opencode, likewise)
//	copilot-cli  $COPILOT_HOME/session-state, ~/.copilot/session-state,
//	             $XDG_STATE_HOME/.copilot/session-state (where older
//	             versions kept it; 1.0.102 moves it to ~/.copilot)
//	goose        $GOOSE_PATH_ROOT/data/sessions (when absolute; it then
//	             replaces every other place, as in goose's Paths),
//	             $XDG_DATA_HOME/goose/sessions (when absolute),
//	             ~/.local/share/goose/sessions, on macOS also
//	             ~/Library/Application Support/Block/goose/sessions, on
//	             Windows %APPDATA%\Block\goose\data\sessions: sessions.db
//	             and the legacy .jsonl files
//	cursor       Cursor's User folder: globalStorage (the composers of
//	             Cursor 0.46 on) and workspaceStorage (one state.vscdb per
//	             workspace; older composers): ~/.config/Cursor/User (or
//	             $XDG_CONFIG_HOME/Cursor/User) on Linux, ~/Library/
//	             Application Support/Cursor/User on macOS,
//	             %APPDATA%\Cursor\User on Windows
//	cursor-agent $CURSOR_DATA_DIR/projects, ~/.cursor/projects: the
//	             transcripts the Cursor agent (the CLI, and the IDE's agent
//	             since late 2025) writes in each project's
//	             agent-transcripts/ folder
//	cline        the tasks/ folder of the extension's globalStorage
//	             (saoudrizwan.claude-dev for Cline,
//	             rooveterinaryinc.roo-cline for Roo Code) in the user data
//	             folder of VS Code, VS Code Insiders, VSCodium, Cursor and
//	             Windsurf ($XDG_CONFIG_HOME or ~/.config on Linux,
//	             ~/Library/Application Support on macOS, %APPDATA% on
//	             Windows), and the Cline CLI's $CLINE_DATA_DIR,
//	             $CLINE_DIR/data, ~/.cline/data: its tasks/ (CLI 2) and
//	             its sessions/ (the Cline SDK: CLI 3, Cline 4; or
//	             $CLINE_SESSION_DATA_DIR)
//	entire       $PWD/.git, only when that repository has Entire's
//	             entire/checkpoints/v1 branch (or a remote's copy): Entire
//	             keeps a project's sessions in the project's repository
//
// Gemini CLI keeps a project's chats in ~/.gemini/tmp/<project>/chats
// beside other files of the project (logs, plans, tool outputs), which an
// import of the folder skips with a note; its own GEMINI_CLI_HOME replaces
// the home directory. Qwen Code keeps them in
// ~/.qwen/projects/<cwd>/chats (QWEN_HOME replaces ~/.qwen,
// QWEN_RUNTIME_DIR the folder holding projects/).
//
// swink is a library without a home directory of its own.
func WellKnownLocations(home string, getenv func(string) string) []Location {
	var out []Location
	seen := map[string]bool{}
	add := func(format, path string) {
		if path == "" || seen[path] {
			return
		}
		seen[path] = true
		out = append(out, Location{Format: format, Path: path})
	}
	j := filepath.Join
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		add(FormatClaudeCode, j(d, "projects"))
	}
	if home != "" {
		add(FormatClaudeCode, j(home, ".claude", "projects"))
	}
	codexHome := getenv("CODEX_HOME")
	if codexHome == "" && home != "" {
		codexHome = j(home, ".codex")
	}
	if codexHome != "" {
		add(FormatCodex, j(codexHome, "sessions"))
		add(FormatCodex, j(codexHome, "archived_sessions"))
	}
	if d := getenv("GEMINI_CLI_HOME"); d != "" {
		add(FormatGemini, j(d, ".gemini", "tmp"))
	}
	if home != "" {
		add(FormatGemini, j(home, ".gemini", "tmp"))
	}
	if d := getenv("QWEN_RUNTIME_DIR"); d != "" {
		add(FormatQwen, j(d, "projects"))
	}
	qwenHome := getenv("QWEN_HOME")
	if qwenHome == "" && home != "" {
		qwenHome = j(home, ".qwen")
	}
	if qwenHome != "" {
		add(FormatQwen, j(qwenHome, "projects"))
		add(FormatQwen, j(qwenHome, "tmp"))
	}
	if home != "" {
		add(FormatPi, j(home, ".pi", "agent", "sessions"))
		add(FormatPicoclaw, j(home, ".picoclaw", "workspace", "sessions"))
		if m, err := filepath.Glob(j(home, ".picoclaw", "workspace-*", "sessions")); err == nil {
			sort.Strings(m)
			for _, p := range m {
				add(FormatPicoclaw, p)
			}
		}
	}
	if d := getenv("COPILOT_HOME"); d != "" {
		add(FormatCopilot, j(d, "session-state"))
	}
	if home != "" {
		add(FormatCopilot, j(home, ".copilot", "session-state"))
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		add(FormatCopilot, j(d, ".copilot", "session-state"))
	}
	if d := getenv("ZOT_HOME"); d != "" {
		add(FormatZot, j(d, "sessions"))
	}
	if home != "" && runtime.GOOS == "darwin" {
		add(FormatZot, j(home, "Library", "Application Support", "zot", "sessions"))
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		add(FormatZot, j(d, "zot", "sessions"))
	}
	if home != "" {
		add(FormatZot, j(home, ".local", "state", "zot", "sessions"))
	}
	if db := getenv("OPENCODE_DB"); filepath.IsAbs(db) {
		add(FormatOpencode, filepath.Dir(db))
	}
	if d := getenv("XDG_DATA_HOME"); d != "" {
		add(FormatOpencode, j(d, "opencode"))
	}
	if home != "" {
		add(FormatOpencode, j(home, ".local", "share", "opencode"))
	}
	for _, d := range gooseSessionDirs(home, getenv) {
		add(FormatGoose, d)
	}
	if wd := getenv("PWD"); filepath.IsAbs(wd) {
		add(FormatCrush, j(wd, ".crush"))
		add(FormatOpencodeGo, j(wd, ".opencode"))
		if entire.HasBranch(j(wd, ".git")) {
			add(FormatEntire, j(wd, ".git"))
		}
	}
	for _, user := range cursorUserDirs(home, getenv) {
		add(FormatCursor, j(user, "globalStorage"))
		add(FormatCursor, j(user, "workspaceStorage"))
	}
	if d := getenv("CURSOR_DATA_DIR"); filepath.IsAbs(d) {
		add(FormatCursorAgent, j(d, "projects"))
	}
	if home != "" {
		add(FormatCursorAgent, j(home, ".cursor", "projects"))
	}
	for _, p := range clineLocations(home, getenv, runtime.GOOS) {
		add(FormatCline, p)
	}
	return out
}

// cursorUserDirs are the folders where Cursor (an Electron app, as VS
// Code) keeps its User data on this platform: %APPDATA%\Cursor\User on
// Windows, ~/Library/Application Support/Cursor/User on macOS,
// $XDG_CONFIG_HOME/Cursor/User and ~/.config/Cursor/User elsewhere.
func cursorUserDirs(home string, getenv func(string) string) []string {
	var out []string
	switch runtime.GOOS {
	case "windows":
		if d := getenv("APPDATA"); d != "" {
			out = append(out, filepath.Join(d, "Cursor", "User"))
		}
	case "darwin":
		if home != "" {
			out = append(out, filepath.Join(home, "Library", "Application Support", "Cursor", "User"))
		}
	default:
		if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
			out = append(out, filepath.Join(d, "Cursor", "User"))
		}
		if home != "" {
			out = append(out, filepath.Join(home, ".config", "Cursor", "User"))
		}
	}
	return out
}

// gooseSessionDirs are the folders goose keeps its sessions in: its data
// folder's sessions/ (goose's config/paths.rs: GOOSE_PATH_ROOT/data when
// that is absolute, else etcetera's app strategy for "Block"/"goose":
// the XDG data folder, and the platform's where it is not XDG).
func gooseSessionDirs(home string, getenv func(string) string) []string {
	j := filepath.Join
	if root := getenv("GOOSE_PATH_ROOT"); filepath.IsAbs(root) {
		return []string{j(root, "data", "sessions")}
	}
	var out []string
	if d := getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		out = append(out, j(d, "goose", "sessions"))
	}
	if home != "" {
		out = append(out, j(home, ".local", "share", "goose", "sessions"))
		if runtime.GOOS == "darwin" {
			out = append(out, j(home, "Library", "Application Support", "Block", "goose", "sessions"))
		}
	}
	if d := getenv("APPDATA"); runtime.GOOS == "windows" && d != "" {
		out = append(out, j(d, "Block", "goose", "data", "sessions"))
	}
	return out
}

// Detected is what an import of some paths would read in one format.
type Detected struct {
	Format string `json:"format"`
	// Sessions counts the source sessions (units) the format claimed.
	Sessions int `json:"sessions"`
	// Files counts their files (primary and side files; a side file read
	// with several sessions, such as Codex's session_index.jsonl, counts
	// for each).
	Files int `json:"files"`
	// Bytes is the size of those files.
	Bytes int64 `json:"bytes"`
}

// Detect walks paths as Import does and returns, per format (in the order
// of Formats, only formats that claimed something), what would be imported,
// plus a Problem for every file no format claims. It reads only what the
// formats need to recognise their files (names and first lines), writes
// nothing and parses no session. format selects the formats as
// Options.Format does.
func Detect(ctx context.Context, paths []string, format string) ([]Detected, []Problem, error) {
	formats, err := selectFormats(format)
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("detect: %w", err)
	}
	units, problems, skipped, err := discover(paths, formats, nil)
	problems = append(problems, skipped...) // both are files no format claims
	if err != nil {
		return nil, problems, err
	}
	by := map[string]*Detected{}
	cache := &jsonl.Cache{}
	defer cache.Close()
	for _, u := range units {
		d := by[u.unit.Format]
		if d == nil {
			d = &Detected{Format: u.unit.Format}
			by[u.unit.Format] = d
		}
		sessions := 1
		if sf, ok := u.format.(jsonl.StoreFormat); ok {
			// A store counts the sessions it holds (its database is
			// copied aside to list them; nothing is parsed).
			list, probs, err := sf.Sessions(ctx, u.unit, cache)
			problems = append(problems, probs...)
			if err != nil {
				problems = append(problems, Problem{Path: u.unit.Path, Reason: fmt.Sprintf("cannot read: %v", err)})
			}
			sessions = len(list)
		}
		d.Sessions += sessions
		d.Files += u.files
		d.Bytes += u.size
	}
	var out []Detected
	for _, f := range formats {
		if d := by[f.Name()]; d != nil {
			out = append(out, *d)
		}
	}
	return out, problems, nil
}

// clineEditors are the user data folders of the VS Code family, where
// an extension's globalStorage lies (<folder>/User/globalStorage/<ext>).
var clineEditors = []string{"Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"}

// clineExtensions are the storage folders of Cline and of Roo Code.
var clineExtensions = []string{"saoudrizwan.claude-dev", "rooveterinaryinc.roo-cline"}

// clineLocations returns the folders of Cline and Roo Code: the Cline
// SDK's sessions/ and the Cline CLI 2's tasks/ in the data folder
// (CLINE_DATA_DIR, else CLINE_DIR/data, else ~/.cline/data, as Cline's
// resolveDataDir; CLINE_SESSION_DATA_DIR for the SDK's sessions), then
// each editor's globalStorage tasks/ on the platform goos.
func clineLocations(home string, getenv func(string) string, goos string) []string {
	j := filepath.Join
	var out []string
	// The SDK's sessions (the CLI 3, Cline 4): CLINE_SESSION_DATA_DIR,
	// else <data folder>/sessions (the SDK's resolveSessionDataDir).
	if d := getenv("CLINE_SESSION_DATA_DIR"); d != "" {
		out = append(out, d)
	}
	switch {
	case getenv("CLINE_DATA_DIR") != "":
		out = append(out, j(getenv("CLINE_DATA_DIR"), "sessions"), j(getenv("CLINE_DATA_DIR"), "tasks"))
	case getenv("CLINE_DIR") != "":
		out = append(out, j(getenv("CLINE_DIR"), "data", "sessions"), j(getenv("CLINE_DIR"), "data", "tasks"))
	}
	if home != "" {
		out = append(out, j(home, ".cline", "data", "sessions"), j(home, ".cline", "data", "tasks"))
	}
	var bases []string
	switch goos {
	case "darwin":
		if home != "" {
			bases = append(bases, j(home, "Library", "Application Support"))
		}
	case "windows":
		if d := getenv("APPDATA"); d != "" {
			bases = append(bases, d)
		}
	default:
		if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
			bases = append(bases, d)
		}
		if home != "" {
			bases = append(bases, j(home, ".config"))
		}
	}
	for _, b := range bases {
		for _, ed := range clineEditors {
			for _, ext := range clineExtensions {
				out = append(out, j(b, ed, "User", "globalStorage", ext, "tasks"))
			}
		}
	}
	return out
}
