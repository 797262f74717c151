package compactor

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Caps of the offline summary; see the package doc.
const (
	// OfflineMaxRequests is how many user requests the offline summary
	// lists (the most recent ones).
	OfflineMaxRequests = 30
	// OfflineRequestBytes caps each listed request.
	OfflineRequestBytes = 200
	// OfflineMaxTools is how many distinct tool names are listed; further
	// calls count under "(other)".
	OfflineMaxTools = 40
	// OfflineAnswerBytes caps the last assistant answer.
	OfflineAnswerBytes = 600
	// OfflineEarlierBytes caps a foreign previous summary carried along.
	OfflineEarlierBytes = 1000
)

const offlineHeader = "[Offline summary of "

// Offline is a deterministic Summarizer that needs no network. Its output
// is documented exactly in the package doc ("Offline summaries"); the same
// request always gives the same text.
type Offline struct{}

// offlineDigest is the content of an offline summary.
type offlineDigest struct {
	messages int
	earlier  string // a foreign previous summary, one line
	omitted  int    // requests no longer listed
	requests []string
	tools    []string // first-use order
	counts   map[string]int
	answer   string
}

// Summarize implements Summarizer.
func (Offline) Summarize(ctx context.Context, req Request) (Summary, error) {
	if err := ctx.Err(); err != nil {
		return Summary{}, err
	}
	d, ok := parseOffline(req.Previous)
	if !ok {
		d = offlineDigest{counts: map[string]int{}}
		if prev := oneLine(req.Previous); prev != "" {
			d.earlier = truncate(prev, OfflineEarlierBytes)
		}
	}
	d.messages += len(req.Entries)
	for _, e := range req.Entries {
		info := inspectEntry(req.Format, e)
		for _, name := range info.names {
			d.addTool(name, 1)
		}
		switch {
		case info.userRequest():
			if line := firstLine(infoText(info, e.Body)); line != "" {
				d.requests = append(d.requests, truncate(line, OfflineRequestBytes))
			}
		case info.role == "assistant":
			if text := oneLine(infoText(info, e.Body)); text != "" {
				d.answer = truncate(text, OfflineAnswerBytes)
			}
		}
	}
	if over := len(d.requests) - OfflineMaxRequests; over > 0 {
		d.omitted += over
		d.requests = d.requests[over:]
	}
	return Summary{Text: d.String(), Summarizer: "offline"}, nil
}

func (d *offlineDigest) addTool(name string, n int) {
	name = sanitizeToolName(name)
	if _, ok := d.counts[name]; !ok {
		if len(d.tools) >= OfflineMaxTools && name != "(other)" {
			name = "(other)"
		}
		if _, ok := d.counts[name]; !ok {
			d.tools = append(d.tools, name)
		}
	}
	d.counts[name] += n
}

// sanitizeToolName keeps tool names parseable in the "Tools called" line.
func sanitizeToolName(name string) string {
	if name == "" {
		return "(unnamed)"
	}
	if name == "(other)" || name == "(unnamed)" {
		return name
	}
	name = strings.Map(func(r rune) rune {
		switch r {
		case ',', '(', ')', ' ', '\t', '\n', '\r':
			return '_'
		}
		return r
	}, name)
	return truncate(name, 64)
}

func (d offlineDigest) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s%d earlier messages]\n", offlineHeader, d.messages)
	if d.earlier != "" {
		fmt.Fprintf(&b, "Earlier summary: %s\n", d.earlier)
	}
	if len(d.requests) == 0 && d.omitted == 0 {
		b.WriteString("User requests: none\n")
	} else {
		b.WriteString("User requests:\n")
		if d.omitted > 0 {
			fmt.Fprintf(&b, "- (%d earlier requests omitted)\n", d.omitted)
		}
		for _, r := range d.requests {
			fmt.Fprintf(&b, "- %s\n", r)
		}
	}
	if len(d.tools) == 0 {
		b.WriteString("Tools called: none\n")
	} else {
		parts := make([]string, len(d.tools))
		for i, t := range d.tools {
			parts[i] = fmt.Sprintf("%s (%d)", t, d.counts[t])
		}
		fmt.Fprintf(&b, "Tools called: %s\n", strings.Join(parts, ", "))
	}
	answer := d.answer
	if answer == "" {
		answer = "none"
	}
	fmt.Fprintf(&b, "Last assistant answer: %s", answer)
	return b.String()
}

var errNotOffline = errors.New("not an offline summary")

// parseOffline reads back a summary written by Offline, so that an
// incremental compaction merges into it instead of nesting it. A split
// turn's summary (the history's, then the turn context under
// TurnContextHeading, both Offline's) is read as one: the turn's
// beginning is history now.
func parseOffline(s string) (offlineDigest, bool) {
	head, rest, split := strings.Cut(s, "\n\n---\n\n"+TurnContextHeading)
	if !split {
		d, err := parseOfflineDigest(s)
		return d, err == nil
	}
	d := offlineDigest{counts: map[string]int{}}
	if head != noHistory {
		var err error
		if d, err = parseOfflineDigest(head); err != nil {
			return offlineDigest{}, false
		}
	}
	_, turn, apart := strings.Cut(rest, "\n\n")
	if !apart {
		return d, true // the turn's beginning is in the history's summary
	}
	t, err := parseOfflineDigest(turn)
	if err != nil {
		return offlineDigest{}, false
	}
	d.messages += t.messages
	d.omitted += t.omitted
	d.requests = append(d.requests, t.requests...)
	for _, name := range t.tools {
		d.addTool(name, t.counts[name])
	}
	if t.answer != "" {
		d.answer = t.answer
	}
	if over := len(d.requests) - OfflineMaxRequests; over > 0 {
		d.omitted += over
		d.requests = d.requests[over:]
	}
	return d, true
}

func parseOfflineDigest(s string) (offlineDigest, error) {
	d := offlineDigest{counts: map[string]int{}}
	lines := strings.Split(s, "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[0], offlineHeader) {
		return d, errNotOffline
	}
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(lines[0], offlineHeader), " earlier messages]"))
	if err != nil || n < 0 {
		return d, errNotOffline
	}
	d.messages = n
	i := 1
	if v, ok := strings.CutPrefix(lines[i], "Earlier summary: "); ok {
		d.earlier = v
		i++
	}
	switch {
	case lines[i] == "User requests: none":
		i++
	case lines[i] == "User requests:":
		i++
		for i < len(lines) && strings.HasPrefix(lines[i], "- ") {
			item := strings.TrimPrefix(lines[i], "- ")
			var k int
			if _, err := fmt.Sscanf(item, "(%d earlier requests omitted)", &k); err == nil && len(d.requests) == 0 && d.omitted == 0 {
				d.omitted = k
			} else {
				d.requests = append(d.requests, item)
			}
			i++
		}
	default:
		return d, errNotOffline
	}
	if i >= len(lines) {
		return d, errNotOffline
	}
	tools, ok := strings.CutPrefix(lines[i], "Tools called: ")
	if !ok {
		return d, errNotOffline
	}
	if tools != "none" {
		for _, part := range strings.Split(tools, ", ") {
			open := strings.LastIndex(part, " (")
			if open < 0 || !strings.HasSuffix(part, ")") {
				return d, errNotOffline
			}
			c, err := strconv.Atoi(part[open+2 : len(part)-1])
			if err != nil {
				return d, errNotOffline
			}
			name := part[:open]
			if _, seen := d.counts[name]; !seen {
				d.tools = append(d.tools, name)
			}
			d.counts[name] += c
		}
	}
	i++
	if i != len(lines)-1 {
		return d, errNotOffline
	}
	answer, ok := strings.CutPrefix(lines[i], "Last assistant answer: ")
	if !ok {
		return d, errNotOffline
	}
	if answer != "none" {
		d.answer = answer
	}
	return d, nil
}

// firstLine is the first non-blank line of s, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// oneLine collapses runs of white space (newlines included) to one space.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
