package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/sessiondb/sessiondb"
)

type usageIn struct {
	By       byList `json:"by,omitempty" jsonschema:"group by any of day, model, session and project: one name (\"model\"), names joined by commas (\"day,model\") or a list ([\"day\",\"model\"]); default day"`
	Session  string `json:"session,omitempty" jsonschema:"only this session (ID or alias)"`
	Project  string `json:"project,omitempty" jsonschema:"only the sessions whose project (working directory) contains this text"`
	Since    string `json:"since,omitempty" jsonschema:"only calls on or after this day (YYYY-MM-DD, UTC); needs by day"`
	Until    string `json:"until,omitempty" jsonschema:"only calls up to this day (inclusive); needs by day"`
	Limit    int    `json:"limit,omitempty" jsonschema:"at most this many rows (default 50, at most 1000)"`
	MaxBytes int    `json:"max_bytes,omitempty" jsonschema:"size budget of the result in bytes (default 24576, 2048 to 262144)"`
	Cursor   string `json:"cursor,omitempty" jsonschema:"next_cursor of a previous usage result (the grouping and filters come from the cursor)"`
}

type usageRowOut struct {
	Day       string `json:"day,omitempty" jsonschema:"YYYY-MM-DD, UTC"`
	Provider  string `json:"provider,omitempty"`
	Model     string `json:"model,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	Project   string `json:"project,omitempty"`
	usageTotalsOut
}

type usageOut struct {
	By         []string       `json:"by"`
	Rows       []usageRowOut  `json:"rows" jsonschema:"newest day first, then highest cost"`
	RowCount   int            `json:"row_count" jsonschema:"rows matching, over every page"`
	Total      usageTotalsOut `json:"total" jsonschema:"sum over every matching row, not only this page"`
	Truncated  bool           `json:"truncated" jsonschema:"there is more: call again with cursor = next_cursor"`
	NextCursor string         `json:"next_cursor,omitempty"`
	Note       string         `json:"note,omitempty"`
}

// byList is usage's "by": the README and people write one name ("model")
// or several joined by commas ("day,model"), programs a list
// (["day","model"]); all three mean the same.
type byList []string

// UnmarshalJSON accepts a string (names separated by commas or spaces)
// or an array of strings.
func (b *byList) UnmarshalJSON(data []byte) error {
	var one string
	if err := json.Unmarshal(data, &one); err == nil {
		*b = strings.FieldsFunc(one, func(r rune) bool { return r == ',' || r == ' ' })
		return nil
	}
	var list []string
	if err := json.Unmarshal(data, &list); err != nil {
		return inputErrorf("by: want a name such as \"day\" or a list such as [\"day\",\"model\"]")
	}
	*b = list
	return nil
}

// usageSchema is the usage tool's input schema: the one inferred from
// usageIn, but for "by", which takes a string or an array of strings.
func usageSchema() *jsonschema.Schema {
	s, err := jsonschema.For[usageIn](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[byList](): {AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "array", Items: &jsonschema.Schema{Type: "string"}}}},
	}})
	if err != nil {
		panic(fmt.Sprintf("usage input schema: %v", err)) // a bug in usageIn's tags
	}
	return s
}

const (
	defaultUsageLimit = 50
	maxUsageLimit     = 1000
)

func (s *Server) usage(ctx context.Context, in usageIn) (usageOut, error) {
	maxBytes, err := budget(in.MaxBytes)
	if err != nil {
		return usageOut{}, err
	}
	c := cursor{Tool: "usage", By: []string(in.By), Session: in.Session, Project: in.Project, Since: in.Since, Until: in.Until, Limit: in.Limit}
	if in.Cursor != "" {
		if c, err = decodeCursor(in.Cursor, "usage"); err != nil {
			return usageOut{}, err
		}
	}
	lim, err := limit("limit", c.Limit, defaultUsageLimit, maxUsageLimit)
	if err != nil {
		return usageOut{}, err
	}
	by := c.By
	if len(by) == 0 {
		by = []string{"day"}
	}
	q := sessiondb.UsageQuery{Project: c.Project}
	for _, k := range by {
		switch k {
		case "day":
			q.ByDay = true
		case "model":
			q.ByModel = true
		case "session":
			q.BySession = true
		case "project":
			q.ByProject = true
		default:
			return usageOut{}, inputErrorf("by: want day, model, session and/or project, got %q", show(k))
		}
	}
	if (c.Since != "" || c.Until != "") && !q.ByDay {
		return usageOut{}, inputErrorf("since and until filter days: add day to by")
	}
	for _, d := range []string{c.Since, c.Until} {
		if _, err := parseBound("since/until", d, false); err != nil || (d != "" && len(d) != len("2006-01-02")) {
			return usageOut{}, inputErrorf("since and until are days: YYYY-MM-DD, got %q", show(d))
		}
	}
	if c.Session != "" {
		sess, err := s.lookup(ctx, c.Session)
		if err != nil {
			return usageOut{}, err
		}
		q.SessionID = sess.ID
	}
	rows, err := s.st.UsageReport(ctx, q)
	if err != nil {
		return usageOut{}, fmt.Errorf("usage: %w", err)
	}
	rows = slices.DeleteFunc(rows, func(r sessiondb.UsageRow) bool {
		return (c.Since != "" && r.Day < c.Since) || (c.Until != "" && r.Day > c.Until) || (q.ByDay && r.Calls == 0 && r.Day == "")
	})
	slices.SortStableFunc(rows, func(a, b sessiondb.UsageRow) int {
		return cmp.Or(cmp.Compare(b.Day, a.Day), cmp.Compare(b.Cost, a.Cost),
			cmp.Compare(a.SessionID, b.SessionID), cmp.Compare(a.Project, b.Project), cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Model, b.Model))
	})
	out := usageOut{By: by, Rows: []usageRowOut{}, RowCount: len(rows)}
	var total sessiondb.UsageTotals
	for _, r := range rows {
		total.Calls += r.Calls
		total.InputTokens += r.InputTokens
		total.OutputTokens += r.OutputTokens
		total.CacheReadTokens += r.CacheReadTokens
		total.CacheWriteTokens += r.CacheWriteTokens
		total.ReasoningTokens += r.ReasoningTokens
		total.Cost += r.Cost
		total.Unpriced += r.Unpriced
	}
	unpriced := ""
	if total.Unpriced > 0 {
		unpriced = fmt.Sprintf("%d of %d calls have no price for their model (unpriced_calls): their cost is unknown, not 0, and not in cost.", total.Unpriced, total.Calls)
		out.Note = unpriced // counted in the size budget below
	}
	out.Total = totalsOut(total)
	used := jsonSize(out) + reserve + len(c.encode())
	i, stop := c.Skip, ""
	if i > len(rows) {
		return usageOut{}, inputErrorf("cursor points past the rows")
	}
	for ; i < len(rows) && stop == ""; i++ {
		r := rows[i]
		ro := usageRowOut{Day: r.Day, Provider: showOnly(r.Provider, 128), Model: showOnly(r.Model, 256),
			SessionID: show(r.SessionID), Project: showOnly(r.Project, 1024), usageTotalsOut: totalsOut(r.UsageTotals)}
		size := jsonSize(ro) + 1
		switch {
		case len(out.Rows) == lim:
			stop = "limit"
		case used+size > maxBytes && len(out.Rows) == 0:
			return usageOut{}, inputErrorf("max_bytes %d is too small for one row; raise it", maxBytes)
		case used+size > maxBytes:
			stop = "budget"
		default:
			out.Rows = append(out.Rows, ro)
			used += size
			continue
		}
		break
	}
	if stop != "" {
		i-- // the row that did not go in
	}
	if i < len(rows) {
		c.Skip = i
		out.Truncated, out.NextCursor = true, c.encode()
		out.Note = fmt.Sprintf("Rows %d to %d of %d. Call usage with cursor=next_cursor for more.", c.Skip-len(out.Rows)+1, c.Skip, len(rows))
		if stop == "budget" {
			out.Note = fmt.Sprintf("Stopped at the size budget (max_bytes %d). ", maxBytes) + out.Note
		}
		if unpriced != "" {
			out.Note += " " + unpriced
		}
	}
	out.Note = s.withStatus(out.Note)
	return out, nil
}
