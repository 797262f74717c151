package agentrun

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// writeFile writes data to path, making its directory.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, append(b, '\n'))
}

// projectKey is a project path as Claude Code and Qwen Code name its
// folder: every character but letters and digits as "-".
func projectKey(p string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, p)
}

// gemini is Gemini CLI. Without settings.json pinning the auth type, -p
// exits 41; GEMINI_CLI_NO_RELAUNCH keeps it in one process (it otherwise
// relaunches itself with a larger heap).
func gemini() *Agent {
	return &Agent{
		Name: "gemini", Package: "@google/gemini-cli", Version: "0.61.0", Executable: "gemini",
		Protocol: "gemini", Model: "gemini-2.5-pro",
		configure: func(h *Home, server string) error {
			return writeJSON(filepath.Join(h.Dir, ".gemini", "settings.json"), map[string]any{
				"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}, "folderTrust": map[string]any{"enabled": false}},
				"privacy":   map[string]any{"usageStatisticsEnabled": false},
				"telemetry": map[string]any{"enabled": false},
				"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true, "enableAutoUpdate": false, "enableAutoUpdateNotification": false},
			})
		},
		env: func(h *Home, server string) []string {
			return []string{"GOOGLE_GEMINI_BASE_URL=" + server, "GEMINI_API_KEY=scripted-key", "GEMINI_CLI_NO_RELAUNCH=true"}
		},
		newArgs: func(_, prompt string) []string {
			return []string{"-m", "gemini-2.5-pro", "--approval-mode", "yolo", "--output-format", "json", "-p", prompt}
		},
		resumeArgs: func(id, prompt string) []string {
			return []string{"-m", "gemini-2.5-pro", "--approval-mode", "yolo", "--output-format", "json", "--resume", id, "-p", prompt}
		},
		sessionID: func(h *Home, out []byte) (string, error) { return jsonField(out, "session_id"), nil },
		store:     []string{".gemini/tmp", ".gemini/projects.json"},
		// tmp/<short name>/chats; the short name is the project folder's
		// base name, registered in projects.json (a name taken by another
		// path gets a suffix there).
		sessionDir: func(h *Home) string {
			return filepath.Join(".gemini", "tmp", filepath.Base(h.Project), "chats")
		},
	}
}

// qwen is Qwen Code: an OpenAI-compatible (Chat Completions) client; it
// takes the session id up front with --session-id.
func qwen() *Agent {
	return &Agent{
		Name: "qwen", Package: "@qwen-code/qwen-code", Version: "0.24.4", Executable: "qwen",
		Protocol: "chat", Model: "qwen3-coder-plus", presetID: true,
		configure: func(h *Home, server string) error {
			return writeJSON(filepath.Join(h.Dir, ".qwen", "settings.json"), map[string]any{
				"security":  map[string]any{"auth": map[string]any{"selectedType": "openai"}},
				"privacy":   map[string]any{"usageStatisticsEnabled": false},
				"telemetry": map[string]any{"enabled": false},
				"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
			})
		},
		env: func(h *Home, server string) []string {
			return []string{"OPENAI_BASE_URL=" + server + "/v1", "OPENAI_API_KEY=scripted-key", "OPENAI_MODEL=qwen3-coder-plus",
				"QWEN_CODE_SUPPRESS_YOLO_WARNING=1"}
		},
		newArgs: func(id, prompt string) []string {
			return []string{"--approval-mode", "yolo", "--output-format", "json", "--session-id", id, prompt}
		},
		resumeArgs: func(id, prompt string) []string {
			return []string{"--approval-mode", "yolo", "--output-format", "json", "--resume", id, prompt}
		},
		sessionID: func(h *Home, out []byte) (string, error) { return jsonField(out, "session_id"), nil },
		store:     []string{".qwen/projects"},
		sessionDir: func(h *Home) string {
			return filepath.Join(".qwen", "projects", projectKey(h.Project), "chats")
		},
	}
}

// opencode keeps every session in one SQLite database; its provider is
// @ai-sdk/openai-compatible, which it installs from npm on its first run.
func opencode() *Agent {
	return &Agent{
		Name: "opencode", Package: "opencode-ai", Version: "1.18.33", Executable: "opencode",
		Protocol: "chat", Model: "scripted/scripted-model",
		configure: func(h *Home, server string) error {
			return writeJSON(filepath.Join(h.Config, "opencode", "opencode.json"), map[string]any{
				"$schema":    "https://opencode.ai/config.json",
				"autoupdate": false,
				"share":      "disabled",
				"model":      "scripted/scripted-model",
				"provider": map[string]any{"scripted": map[string]any{
					"npm":     "@ai-sdk/openai-compatible",
					"name":    "Scripted",
					"options": map[string]any{"baseURL": server + "/v1", "apiKey": "scripted-key"},
					"models":  map[string]any{"scripted-model": map[string]any{"name": "Scripted model", "reasoning": true}},
				}},
			})
		},
		env: func(h *Home, server string) []string {
			return []string{"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_SHARE=1",
				"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1"}
		},
		newArgs: func(_, prompt string) []string { return []string{"run", "--format", "json", prompt} },
		resumeArgs: func(id, prompt string) []string {
			return []string{"run", "--format", "json", "--session", id, prompt}
		},
		sessionID: func(h *Home, out []byte) (string, error) { return jsonField(out, "sessionID"), nil },
		store:     []string{".local/share/opencode/opencode.db", ".local/share/opencode/opencode.db-wal", ".local/share/opencode/opencode.db-shm", ".local/share/opencode/storage"},
		// One database for every project (opencode import FILE loads a
		// session into it).
		sessionDir: func(h *Home) string { return filepath.Join(".local", "share", "opencode", "opencode.db") },
	}
}

// claudeCode is Claude Code. Non-essential traffic off: no title or quota
// side requests, no probes of other hosts.
func claudeCode() *Agent {
	common := []string{"--model", "claude-sonnet-4-5", "--output-format", "json", "--allowedTools", "Bash Read Write"}
	return &Agent{
		Name: "claude-code", Package: "@anthropic-ai/claude-code", Version: "2.1.332", Executable: "claude",
		Protocol: "anthropic", Model: "claude-sonnet-4-5",
		configure: func(h *Home, server string) error { return os.MkdirAll(filepath.Join(h.Dir, ".claude"), 0o755) },
		env: func(h *Home, server string) []string {
			return []string{"ANTHROPIC_BASE_URL=" + server, "ANTHROPIC_API_KEY=sk-scripted",
				"CLAUDE_CONFIG_DIR=" + filepath.Join(h.Dir, ".claude"),
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1"}
		},
		newArgs: func(_, prompt string) []string { return append([]string{"-p", prompt}, common...) },
		resumeArgs: func(id, prompt string) []string {
			return append([]string{"--resume", id, "-p", prompt}, common...)
		},
		sessionID:  func(h *Home, out []byte) (string, error) { return jsonField(out, "session_id"), nil },
		store:      []string{".claude/projects"},
		sessionDir: func(h *Home) string { return filepath.Join(".claude", "projects", projectKey(h.Project)) },
	}
}

// codex is the Codex CLI (a native binary in the npm package), with a
// model provider of its config pointed at the server. The features and
// services that reach other hosts are off.
func codex() *Agent {
	common := []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--json"}
	return &Agent{
		Name: "codex", Package: "@openai/codex", Version: "0.171.0", Executable: "codex",
		Protocol: "responses", Model: "gpt-5.1-codex",
		configure: func(h *Home, server string) error {
			instr := filepath.Join(h.Dir, ".codex", "instructions.md")
			if err := writeFile(instr, []byte("You are a test agent. Answer briefly.\n")); err != nil {
				return err
			}
			cfg := fmt.Sprintf(`model = "gpt-5.1-codex"
model_provider = "scripted"
model_instructions_file = %q
include_permissions_instructions = false
check_for_update_on_startup = false

[model_providers.scripted]
name = "scripted"
base_url = "%s/v1"
wire_api = "responses"
env_key = "SCRIPTED_OPENAI_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[features]
plugins = false
apps = false
remote_plugin = false
plugin_sharing = false

[skills]
include_instructions = false
`, instr, server)
			return writeFile(filepath.Join(h.Dir, ".codex", "config.toml"), []byte(cfg))
		},
		env: func(h *Home, server string) []string {
			return []string{"CODEX_HOME=" + filepath.Join(h.Dir, ".codex"), "SCRIPTED_OPENAI_KEY=scripted-key"}
		},
		newArgs: func(_, prompt string) []string { return append(append([]string{}, common...), prompt) },
		resumeArgs: func(id, prompt string) []string {
			return append(append([]string{}, common...), "resume", id, prompt)
		},
		sessionID: func(h *Home, out []byte) (string, error) { return jsonField(out, "thread_id"), nil },
		store:     []string{".codex/sessions", ".codex/archived_sessions", ".codex/session_index.jsonl"},
		// sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl below it.
		sessionDir: func(h *Home) string { return filepath.Join(".codex", "sessions") },
	}
}

// pi is pi (@mariozechner/pi-coding-agent), with a provider of its own
// in models.json speaking Anthropic Messages. In print mode it does not
// print the session id; the newest session file's header says it.
func pi() *Agent {
	return &Agent{
		Name: "pi", Package: "@mariozechner/pi-coding-agent", Version: "0.73.1", Executable: "pi",
		Protocol: "anthropic", Model: "claude-sonnet-4-5",
		configure: func(h *Home, server string) error {
			return writeJSON(filepath.Join(h.Dir, ".pi", "agent", "models.json"), map[string]any{
				"providers": map[string]any{"scripted": map[string]any{
					"baseUrl": server, "api": "anthropic-messages", "apiKey": "SCRIPTED_ANTHROPIC_KEY",
					"models": []any{map[string]any{"id": "claude-sonnet-4-5", "name": "Scripted Sonnet", "reasoning": true,
						"input": []string{"text"}, "contextWindow": 200000, "maxTokens": 16000,
						"cost": map[string]any{"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}}},
				}},
			})
		},
		env: func(h *Home, server string) []string {
			return []string{"PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0", "SCRIPTED_ANTHROPIC_KEY=sk-scripted"}
		},
		newArgs: func(_, prompt string) []string {
			return []string{"--provider", "scripted", "--model", "claude-sonnet-4-5", "--mode", "json", "-p", prompt}
		},
		resumeArgs: func(id, prompt string) []string {
			return []string{"--provider", "scripted", "--model", "claude-sonnet-4-5", "--mode", "json", "--session", id, "-p", prompt}
		},
		sessionID: func(h *Home, out []byte) (string, error) {
			if id := piSessionEvent(out); id != "" {
				return id, nil
			}
			files := filesUnder(filepath.Join(h.Dir, ".pi", "agent", "sessions"), ".jsonl")
			var newest string
			var at int64
			for _, f := range files {
				if st, err := os.Stat(f); err == nil && st.ModTime().UnixNano() >= at {
					newest, at = f, st.ModTime().UnixNano()
				}
			}
			if newest == "" {
				return "", fmt.Errorf("pi: no session file")
			}
			head, err := firstLine(newest)
			if err != nil {
				return "", err
			}
			var hdr struct {
				ID string `json:"id"`
			}
			json.Unmarshal(head, &hdr)
			return hdr.ID, nil
		},
		store: []string{".pi/agent/sessions"},
		// --<cwd without its leading /, / as ->--
		sessionDir: func(h *Home) string {
			return filepath.Join(".pi", "agent", "sessions", "--"+strings.ReplaceAll(strings.TrimPrefix(h.Project, "/"), "/", "-")+"--")
		},
	}
}

// piSessionEvent is the id of pi's --mode json "session" event, if any.
func piSessionEvent(out []byte) string {
	for _, line := range strings.Split(string(out), "\n") {
		var ev struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "session" && ev.ID != "" {
			return ev.ID
		}
	}
	return ""
}
