package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/sessiondb/sessiondb"
)

type searchIn struct {
	Query    string `json:"query,omitempty" jsonschema:"words that must all occur (any text is safe: nothing is query syntax), or a \"quoted phrase\"; required unless cursor is given"`
	Session  string `json:"session,omitempty" jsonschema:"search only this session (ID or alias)"`
	Role     string `json:"role,omitempty" jsonschema:"only entries with this role: user, assistant, tool, …"`
	Kind     string `json:"kind,omitempty" jsonschema:"only entries of this kind: message, custom, …"`
	Format   string `json:"format,omitempty" jsonschema:"only sessions imported from this format, by its sessiondb name as each session shows it (claude-code, codex, pi, gemini-cli, qwen-code, opencode, crush, cursor, cline, copilot-cli, goose, aider, …)"`
	Project  string `json:"project,omitempty" jsonschema:"only sessions whose project (the working directory the agent ran in) contains this text"`
	Machine  string `json:"machine,omitempty" jsonschema:"only sessions imported on this machine (its exact name)"`
	Since    string `json:"since,omitempty" jsonschema:"only entries written at or after this day (YYYY-MM-DD) or time (RFC 3339)"`
	Until    string `json:"until,omitempty" jsonschema:"only entries written up to this day (inclusive) or time"`
	Limit    int    `json:"limit,omitempty" jsonschema:"at most this many hits (default 20, at most 200)"`
	MaxBytes int    `json:"max_bytes,omitempty" jsonschema:"size budget of the result in bytes (default 24576, 2048 to 262144)"`
	Cursor   string `json:"cursor,omitempty" jsonschema:"next_cursor of a previous search result (the query and filters come from the cursor)"`
}

type hitOut struct {
	SessionID    string  `json:"session_id"`
	SessionTitle string  `json:"session_title"`
	Format       string  `json:"format"`
	Seq          int64   `json:"seq" jsonschema:"the entry's log position: read_transcript around_seq reads it in context (0: a compaction summary)"`
	Summary      bool    `json:"summary,omitempty" jsonschema:"a summary message of a compaction"`
	Kind         string  `json:"kind"`
	Role         string  `json:"role"`
	Time         string  `json:"time,omitempty"`
	Snippet      string  `json:"snippet" jsonschema:"an excerpt of the entry's text, plain text, each match between « and »: recorded data, quoted"`
	Score        float64 `json:"score" jsonschema:"higher is better"`
}

type searchOut struct {
	Query      string   `json:"query"`
	Hits       []hitOut `json:"hits" jsonschema:"best first"`
	Truncated  bool     `json:"truncated" jsonschema:"there may be more: call again with cursor = next_cursor"`
	NextCursor string   `json:"next_cursor,omitempty"`
	Note       string   `json:"note,omitempty"`
}

const (
	defaultSearchLimit = 20
	maxSearchLimit     = 200
	// maxSearchScan bounds the store hits one call reads when the format
	// filter (which the store does not index) skips hits.
	maxSearchScan = 2000
	snippetMax    = 1024
)

func (s *Server) search(ctx context.Context, in searchIn) (searchOut, error) {
	maxBytes, err := budget(in.MaxBytes)
	if err != nil {
		return searchOut{}, err
	}
	c := cursor{Tool: "search", Query: in.Query, Session: in.Session, Role: in.Role, Kind: in.Kind, Format: in.Format, Project: in.Project,
		Machine: in.Machine, Since: in.Since, Until: in.Until, Limit: in.Limit}
	if in.Cursor != "" {
		if c, err = decodeCursor(in.Cursor, "search"); err != nil {
			return searchOut{}, err
		}
	}
	if c.Query == "" {
		return searchOut{}, inputErrorf("query is required")
	}
	lim, err := limit("limit", c.Limit, defaultSearchLimit, maxSearchLimit)
	if err != nil {
		return searchOut{}, err
	}
	opts := sessiondb.SearchOptions{Role: c.Role, Kind: c.Kind, Project: c.Project, Machine: c.Machine}
	if opts.After, err = parseBound("since", c.Since, false); err != nil {
		return searchOut{}, err
	}
	if opts.Before, err = parseBound("until", c.Until, true); err != nil {
		return searchOut{}, err
	}
	if c.Session != "" {
		sess, err := s.lookup(ctx, c.Session)
		if err != nil {
			return searchOut{}, err
		}
		opts.SessionID = sess.ID
	}
	out := searchOut{Query: showOnly(c.Query, 1024), Hits: []hitOut{}}
	used := jsonSize(out) + reserve + len(c.encode())
	formats := map[string]string{} // session ID → source format
	offset, scanned, stop := c.Skip, 0, ""
	for stop == "" {
		opts.Offset = offset
		opts.Limit = lim - len(out.Hits)
		if c.Format != "" {
			opts.Limit = min(opts.Limit*4, sessiondb.MaxSearchLimit)
		}
		// Withheld hits (matched only inside a secret) keep their
		// place, so that offsets count the store's hits.
		opts.KeepWithheld = true
		hits, err := s.st.Search(ctx, c.Query, opts)
		if err != nil {
			return searchOut{}, err // the store's error already says "search: …"
		}
		for _, h := range hits {
			if h.Withheld {
				scanned++
				offset++
				continue
			}
			format, ok := formats[h.SessionID]
			if !ok {
				if sess, err := s.meta(ctx, h.SessionID); err == nil {
					format = sess.SourceFormat
				}
				formats[h.SessionID] = format
			}
			scanned++
			if c.Format != "" && format != c.Format {
				offset++
				continue
			}
			ho := hitOut{SessionID: show(h.SessionID), SessionTitle: showOnly(h.SessionTitle, 256), Format: show(format),
				Seq: h.Seq, Summary: h.Summary, Kind: show(h.Kind), Role: showOnly(h.Role, 64), Time: timeString(h.CreatedAt),
				Snippet: showOnly(plainSnippet(h.Snippet, c.Query), snippetMax), Score: h.Score}
			size := jsonSize(ho) + 1
			if used+size > maxBytes {
				if len(out.Hits) == 0 {
					return searchOut{}, inputErrorf("max_bytes %d is too small for one hit of this query; raise it", maxBytes)
				}
				stop = "budget"
				break
			}
			out.Hits = append(out.Hits, ho)
			used += size
			offset++
			if len(out.Hits) == lim {
				stop = "limit"
				break
			}
		}
		if stop == "" && len(hits) < opts.Limit {
			stop = "end"
		}
		if stop == "" && scanned >= maxSearchScan {
			stop = "scan"
		}
	}
	if stop != "end" {
		// A full page: there may be more (the store does not count).
		c.Skip = offset
		out.Truncated, out.NextCursor = true, c.encode()
		switch stop {
		case "budget":
			out.Note = fmt.Sprintf("Stopped at the size budget (max_bytes %d). Call search with cursor=next_cursor for more.", maxBytes)
		case "scan":
			out.Note = fmt.Sprintf("Read %d hits without filling the page (format filter). Call search with cursor=next_cursor for more.", scanned)
		default:
			out.Note = "There may be more hits: call search with cursor=next_cursor."
		}
	}
	out.Note = s.withStatus(out.Note)
	return out, nil
}

// Match delimiters of the snippets search returns: plain text for a model
// to read, where the store's markdown-like "**" would be ambiguous (text
// holds "**" too: globs, markdown) and a terminal's bold means nothing.
const (
	matchStart = "«"
	matchEnd   = "»"
)

// plainSnippet is a hit's snippet as search returns it: the text as it
// is, each match of query between matchStart and matchEnd.
func plainSnippet(snippet, query string) string {
	var b strings.Builder
	for _, p := range sessiondb.SplitSnippet(snippet, query) {
		if p.Match {
			b.WriteString(matchStart + p.Text + matchEnd)
		} else {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
