package goose_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/goose"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/wildtest"
)

var corpus = filepath.Join("..", "..", "testdata", "corpus", "goose")

// label describes an entry by its message: role, id, item types, tool
// calls and results with their ids, and its visibility.
func label(e sessiondb.Entry) string {
	var m struct {
		ID       string `json:"id"`
		Role     string `json:"role"`
		Created  int64  `json:"created"`
		Metadata struct {
			UserVisible  *bool `json:"userVisible"`
			AgentVisible *bool `json:"agentVisible"`
		} `json:"metadata"`
		Content []struct {
			Type       string                  `json:"type"`
			ID         string                  `json:"id"`
			ToolCall   struct{ Status string } `json:"toolCall"`
			ToolResult struct {
				Status string          `json:"status"`
				Value  json.RawMessage `json:"value"`
			} `json:"toolResult"`
		} `json:"content"`
	}
	if err := json.Unmarshal(e.Body, &m); err != nil {
		return "unreadable: " + err.Error()
	}
	var items []string
	for _, c := range m.Content {
		switch c.Type {
		case "toolRequest":
			items = append(items, fmt.Sprintf("call %s %s", c.ID, c.ToolCall.Status))
		case "toolResponse":
			items = append(items, fmt.Sprintf("result %s %s", c.ID, c.ToolResult.Status))
		default:
			items = append(items, c.Type)
		}
	}
	l := fmt.Sprintf("%s %s [%s] %d: %s", e.Kind, m.Role, m.ID, m.Created, strings.Join(items, " | "))
	if v := m.Metadata.AgentVisible; v != nil && !*v {
		l += " (hidden from the model)"
	}
	if v := m.Metadata.UserVisible; v != nil && !*v {
		l += " (hidden from the user)"
	}
	return l
}

// TestGooseGolden: every session of the corpus (the real store and the
// constructed ones, testdata/corpus/goose) as imported — its transcript,
// compactions, usage, problems and notes — equals its golden file
// (testdata/expected; -wild.update rewrites them).
func TestGooseGolden(t *testing.T) {
	got := wildtest.Snapshot(t, goose.Name, corpus, label)
	wildtest.CheckGoldens(t, filepath.Join("testdata", "expected"), got, 10)
}
