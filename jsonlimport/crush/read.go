package crush

// From a session's rows to what the importer writes.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// KindAbandoned is the kind of an assistant message the program created
// and never finished (no finish part) although the session went on or
// the store has been quiet since: a request that failed before the
// model answered, or a program killed while it streamed.
const KindAbandoned = "abandoned"

// InFlightFor is how long after its last update an unfinished assistant
// message that is the session's last is taken to be still streaming:
// held back (jsonl.UnfinishedMarker) until it finishes or this long has
// passed with no change, after which it is imported as abandoned.
var InFlightFor = 10 * time.Minute

// now is the clock InFlightFor is measured by (tests replace it).
var now = time.Now

// defaultTitles are the titles crush and the Go opencode give a session
// before the title model names it (a sub-agent's, and none).
var defaultTitles = map[string]bool{"New Session": true, "New Agent Session": true, "": true}

// part is one member of a message's parts column.
type part struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// finished reports whether parts hold a finish part.
func finished(parts []part) bool {
	for _, p := range parts {
		if p.Type == "finish" {
			return true
		}
	}
	return false
}

// build turns a session's row and its message rows (in the program's
// order) into what the importer writes.
func (st Store) build(u jsonl.Unit, srow row, mrows []row, rs resumeState) (*jsonl.Parsed, error) {
	pd := &jsonl.Parsed{Unit: u}
	id := srow.Str("id")
	summaryID := srow.Str("summary_message_id")
	index := map[string]int{}
	var earlier []int // entry numbers of summary messages before the latest
	var model, provider string
	for i, r := range mrows {
		mid := r.Str("id")
		raw := []byte(r.Str("parts"))
		var parts []part
		if err := json.Unmarshal(raw, &parts); err != nil {
			pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("message %s: its parts are not a JSON list of parts (%v); left out", mid, err)})
			continue
		}
		role := r.Str("role")
		kind := sessiondb.KindMessage
		if role == "assistant" && !finished(parts) {
			upd := unixTime(max(r.Int("updated_at"), r.Int("created_at")))
			if i == len(mrows)-1 && now().Sub(upd) < InFlightFor {
				pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf(
					"%s: the last message is still being written (%s is streaming it); imported once it is finished", jsonl.UnfinishedMarker, st.Agent)})
				break
			}
			kind = KindAbandoned
			pd.Notes = append(pd.Notes, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("assistant message %s was never finished (%d parts, no finish part); imported as %s left it", mid, len(parts), st.Agent)})
		}
		var b bytes.Buffer
		b.WriteString(`{"id":`)
		b.Write(jsonl.MustJSON(mid))
		b.WriteString(`,"role":`)
		b.Write(jsonl.MustJSON(role))
		b.WriteString(`,"parts":`)
		var c bytes.Buffer
		if json.Compact(&c, raw) != nil {
			c.Reset()
			c.Write(raw)
		}
		b.Write(c.Bytes())
		for _, col := range []string{"model", "provider"} {
			if r.Has(col) {
				b.WriteString(`,"` + col + `":`)
				b.Write(jsonl.MustJSON(r.Str(col)))
			}
		}
		fmt.Fprintf(&b, `,"created_at":%d`, r.Int("created_at"))
		if r.Has("finished_at") {
			fmt.Fprintf(&b, `,"finished_at":%d`, r.Int("finished_at"))
		}
		if mid == summaryID {
			b.WriteString(`,"summary":true`)
		} else if r.Int("is_summary_message") != 0 {
			b.WriteString(`,"is_summary_message":true`)
		}
		b.WriteByte('}')
		pd.Entries = append(pd.Entries, sessiondb.Entry{Kind: kind, Role: role, CreatedAt: unixTime(r.Int("created_at")), Body: b.Bytes()})
		index[mid] = len(pd.Entries)
		if mid != summaryID && r.Int("is_summary_message") != 0 {
			earlier = append(earlier, len(pd.Entries))
		}
		if role == "assistant" && r.Str("model") != "" {
			model, provider = r.Str("model"), r.Str("provider")
		}
	}
	// The summaries: the program resumes the session from the summary
	// message on, which it sends as a user message. Newer crush marks
	// every summary message (is_summary_message); each one before the
	// current was where the session resumed from until the next.
	for _, at := range earlier {
		if latest, ok := index[summaryID]; !ok || at > latest {
			// No current summary (the program resumes from the
			// start), or one still being written after it.
			continue
		}
		pd.Compactions = append(pd.Compactions, sessiondb.Compaction{AtSeq: int64(at), KeepFromSeq: int64(at),
			CreatedAt: pd.Entries[at-1].CreatedAt,
			Details:   jsonl.MustJSON(map[string]any{"source": st.Format + " summary", "message": jsonl.DecodeObject(pd.Entries[at-1].Body)["id"]})})
	}
	if summaryID != "" {
		if at, ok := index[summaryID]; ok {
			pd.Compactions = append(pd.Compactions, sessiondb.Compaction{AtSeq: int64(at), KeepFromSeq: int64(at),
				CreatedAt: pd.Entries[at-1].CreatedAt,
				Details:   jsonl.MustJSON(map[string]any{"source": st.Format + " summary", "message": summaryID})})
		} else if len(pd.Problems) == 0 {
			pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("the session's summary message %s is not among its messages; the transcript is kept whole", summaryID)})
		}
	}
	// Usage: the program keeps it per session only: the cost summed over
	// its calls, and the prompt and completion tokens of its latest call.
	// One ledger row holds them, replaced (its CallID) at each import.
	cost := srow.Float("cost")
	if math.IsInf(cost, 0) || math.IsNaN(cost) || cost < 0 {
		pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("the session's cost %v is not a cost; left out", cost)})
		cost = 0
	}
	in, out := srow.Int("prompt_tokens"), srow.Int("completion_tokens")
	if cost > 0 || in > 0 || out > 0 {
		pd.Usage = append(pd.Usage, sessiondb.Usage{CallID: st.Format + ":session", Provider: provider, Model: model,
			InputTokens: max(in, 0), OutputTokens: max(out, 0), Cost: cost, CreatedAt: unixTime(srow.Int("updated_at"))})
	}
	title := srow.Str("title")
	if defaultTitles[title] {
		if rs.Title == "" {
			rs.Title = jsonl.PromptTitle(st, pd.Entries)
		}
		title = rs.Title
	}
	attrs := map[string]any{"model": model, "provider": provider}
	if store, _, ok := jsonl.SplitSessionPath(u.Path); ok {
		// The program keeps its database in a folder of the project
		// (.crush/, .opencode/): the project is that folder's parent.
		if dir := filepath.Dir(store); filepath.Base(dir) == "."+st.Agent {
			attrs["cwd"], attrs["project"] = filepath.Dir(dir), filepath.Dir(dir)
		}
	}
	if summaryID != "" {
		attrs["summary_message_id"] = summaryID
	}
	pd.Session = sessiondb.Session{ID: id, Title: title, ParentID: srow.Str("parent_session_id"), Attrs: jsonl.MergeAttrs(attrs),
		CreatedAt: unixTime(srow.Int("created_at")), UpdatedAt: unixTime(srow.Int("updated_at"))}
	if n := len(pd.Entries); n > 0 && pd.Entries[n-1].CreatedAt.After(pd.Session.UpdatedAt) {
		pd.Session.UpdatedAt = pd.Entries[n-1].CreatedAt
	}
	if pd.Session.UpdatedAt.Before(pd.Session.CreatedAt) {
		pd.Session.UpdatedAt = pd.Session.CreatedAt
	}
	pd.Offset = int64(len(pd.Entries))
	rs.V, rs.N = 1, len(pd.Entries)
	pd.ResumeState = jsonl.MustJSON(rs)
	return pd, nil
}
