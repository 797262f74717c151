package jsonlimport

// Titles from prompts (issue 22): the rules are jsonl.TitleOf's and the
// search for the prompt jsonl.PromptTitle's (title.go in package jsonl,
// shared by the readers).

import (
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// PromptTitle returns the title of a session of the given format made of
// its first real user prompt among entries (see jsonl.TitleOf), "" when
// there is none: jsonl.PromptTitle with the format's message reader.
func PromptTitle(format string, entries []sessiondb.Entry) string {
	return jsonl.PromptTitle(messageReader(format), entries)
}
