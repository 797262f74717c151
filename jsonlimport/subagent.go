package jsonlimport

import (
	"encoding/json"

	"github.com/sessiondb/sessiondb"
)

// SubAgent reports whether an imported session is a sub-agent of its
// ParentID (a conversation the parent's tool call ran) rather than a fork
// of it: a Claude Code or Qwen Code sub-agent file (Attrs.agentId), a
// Gemini CLI sub-agent chat or a Cursor agent's sub-agent transcript
// (Attrs.kind "subagent"), a Codex thread whose
// session_meta source names a sub-agent, or an opencode session with a
// parent.
func SubAgent(s sessiondb.Session) bool {
	if s.ParentID == "" || len(s.Attrs) == 0 {
		return false
	}
	var a struct {
		AgentID string          `json:"agentId"`
		Kind    string          `json:"kind"`
		Source  json.RawMessage `json:"source"`
	}
	if json.Unmarshal(s.Attrs, &a) != nil {
		return false
	}
	switch s.SourceFormat {
	case FormatOpencode:
		// opencode's only sessions with a parent are its task tool's
		// (a fork has none).
		return true
	case FormatClaudeCode, FormatQwen:
		return a.AgentID != ""
	case FormatGemini, FormatCursorAgent:
		return a.Kind == "subagent"
	case FormatCodex:
		var src map[string]json.RawMessage
		if json.Unmarshal(a.Source, &src) == nil {
			_, ok := src["subagent"]
			return ok
		}
	}
	return false
}
