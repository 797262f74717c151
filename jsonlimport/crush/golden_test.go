package crush_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/crush"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/wildtest"
	"github.com/sessiondb/sessiondb/jsonlimport/opencodego"
)

// label describes an entry by its row: role, id, part types, tool calls
// and results with their ids.
func label(e sessiondb.Entry) string {
	var m struct {
		ID      string `json:"id"`
		Role    string `json:"role"`
		Summary bool   `json:"summary"`
		Parts   []struct {
			Type string `json:"type"`
			Data struct {
				ID         string `json:"id"`
				Name       string `json:"name"`
				ToolCallID string `json:"tool_call_id"`
				IsError    bool   `json:"is_error"`
				Reason     string `json:"reason"`
			} `json:"data"`
		} `json:"parts"`
	}
	if err := json.Unmarshal(e.Body, &m); err != nil {
		return "unreadable: " + err.Error()
	}
	var parts []string
	for _, p := range m.Parts {
		switch p.Type {
		case "tool_call":
			parts = append(parts, fmt.Sprintf("call %s %s", p.Data.Name, p.Data.ID))
		case "tool_result":
			parts = append(parts, fmt.Sprintf("result %s error=%v", p.Data.ToolCallID, p.Data.IsError))
		case "finish":
			parts = append(parts, "finish "+p.Data.Reason)
		default:
			parts = append(parts, p.Type)
		}
	}
	l := fmt.Sprintf("%s %s [%s]: %s", e.Kind, m.Role, m.ID, strings.Join(parts, " | "))
	if m.Summary {
		l = "(summary) " + l
	}
	return l
}

// TestCrushGolden and the Go opencode's: every session of the corpus as
// imported (its transcript, compactions, usage, problems and notes)
// equals its golden file (testdata/expected; -wild.update rewrites them).
func TestCrushGolden(t *testing.T) {
	for _, c := range []struct {
		format string
		want   int
	}{{crush.Name, 19}, {opencodego.Name, 20}} {
		t.Run(c.format, func(t *testing.T) {
			dir := filepath.Join(corpus, c.format)
			got := wildtest.Snapshot(t, c.format, dir, label)
			abs, _ := filepath.Abs(dir)
			for k, g := range got {
				// The project is where the store lies: relative to the
				// corpus, so that the goldens hold on any checkout.
				g.Attrs = json.RawMessage(strings.ReplaceAll(string(g.Attrs), abs, "<corpus>"))
				got[k] = g
			}
			wildtest.CheckGoldens(t, filepath.Join("testdata", "expected", c.format), got, c.want)
		})
	}
}
