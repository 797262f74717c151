package aider

import (
	"bytes"
	"strings"
	"time"
)

// prompt is one record of .aider.input.history: what was typed at the
// prompt, and when (local time, read as UTC like the run headers).
type prompt struct {
	at   time.Time
	text string
}

// inputLayout is the time of an input history record.
const inputLayout = "2006-01-02 15:04:05.999999"

// readInput reads the records of an input history file (prompt_toolkit's
// FileHistory: "# <time>" then the entry's lines, each prefixed "+").
// Damaged records are passed over: the file only lends times.
func readInput(data []byte) []prompt {
	var out []prompt
	var cur *prompt
	var lines []string
	done := func() {
		if cur != nil {
			cur.text = strings.Join(lines, "\n")
			out = append(out, *cur)
		}
		cur, lines = nil, nil
	}
	for _, l := range bytes.Split(data, []byte("\n")) {
		l = trimCR(l)
		switch {
		case bytes.HasPrefix(l, []byte("# ")):
			done()
			t, err := time.Parse(inputLayout, strings.TrimSpace(string(l[2:])))
			if err == nil {
				cur = &prompt{at: t}
			}
		case bytes.HasPrefix(l, []byte("+")) && cur != nil:
			lines = append(lines, string(l[1:]))
		}
	}
	done()
	return out
}

// promptText is what a prompt block says: its lines without "#### " and
// the two spaces aider ends them with.
func promptText(raw string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(raw, "\n"), "\n") {
		l = strings.TrimSuffix(l, "\r")
		if strings.TrimSpace(l) == "" && len(lines) == 0 {
			continue
		}
		l = strings.TrimSuffix(l, "  ")
		if s, ok := strings.CutPrefix(l, "#### "); ok {
			l = s
		} else if l == "####" {
			l = ""
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

// outputText is what a block of aider's output says: its lines without
// "> " and the two trailing spaces.
func outputText(raw string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(raw, "\n"), "\n") {
		l = strings.TrimSuffix(strings.TrimSuffix(l, "\r"), "  ")
		if strings.TrimSpace(l) == "" && len(lines) == 0 {
			continue
		}
		if s, ok := strings.CutPrefix(l, "> "); ok {
			l = s
		} else if l == ">" {
			l = ""
		}
		lines = append(lines, l)
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n ")
}
