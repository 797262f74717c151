package jsonlimport

// Titles from prompts (issue 22): the rules are jsonl.TitleOf's (title.go
// in package jsonl, shared by the readers); PromptTitle finds the prompt.

import (
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// PromptTitle returns the title of a session of the given format made of
// its first real user prompt among entries (see jsonl.TitleOf), "" when
// there is none. The readers use it for sessions whose format records no
// title.
func PromptTitle(format string, entries []sessiondb.Entry) string {
	for _, e := range entries {
		if e.Kind != sessiondb.KindMessage && e.Kind != "user" {
			continue
		}
		m := Understand(format, e)
		if m.Role != "user" || m.Bookkeeping || m.Context || len(m.Results) > 0 {
			continue
		}
		if t := jsonl.TitleOf(m.Text); t != "" {
			return t
		}
	}
	return ""
}
