package cline

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// usageSays are the UI messages whose text carries the usage of API
// requests, the ones Cline's getApiMetrics sums into what it shows the
// user (and into the index entry's tokensIn, tokensOut, cacheWrites,
// cacheReads, totalCost): one request (api_req_started), the requests of
// deleted messages (deleted_api_reqs), a batch of sub-agents
// (subagent_usage).
var usageSays = map[string]bool{"api_req_started": true, "deleted_api_reqs": true, "subagent_usage": true}

// apiReq is the JSON text of such a message.
type apiReq struct {
	TokensIn    *json.Number `json:"tokensIn"`
	TokensOut   *json.Number `json:"tokensOut"`
	CacheWrites *json.Number `json:"cacheWrites"`
	CacheReads  *json.Number `json:"cacheReads"`
	Cost        *json.Number `json:"cost"`
}

// usage returns a row per usage-carrying UI message that records a number
// (as getApiMetrics counts it): tokens and cost as recorded. A row's Seq is
// the API history's answer to the request (the message after the
// request's conversationHistoryIndex) when there is one, else, for a task
// read from its UI messages, the UI message itself.
func (t *task) usage(entries []sessiondb.Entry, start time.Time) []sessiondb.Usage {
	var rows []sessiondb.Usage
	model, provider := t.model()
	for i, m := range t.uiMsgs {
		if m.Type != "say" || !usageSays[m.Say] || m.Text == nil {
			continue
		}
		var r apiReq
		if jsonNumbers(*m.Text, &r) != nil {
			continue
		}
		if r.TokensIn == nil && r.TokensOut == nil && r.CacheWrites == nil && r.CacheReads == nil && r.Cost == nil {
			continue
		}
		u := sessiondb.Usage{
			CallID:           fmt.Sprintf("ui-%d", i+1),
			InputTokens:      num(r.TokensIn),
			OutputTokens:     num(r.TokensOut),
			CacheWriteTokens: num(r.CacheWrites),
			CacheReadTokens:  num(r.CacheReads),
			CreatedAt:        msTime(m.TS),
			Model:            model,
			Provider:         provider,
		}
		if mi := modelInfo(m.ModelInfo); mi.ModelID != "" {
			u.Model, u.Provider = mi.ModelID, mi.ProviderID
		}
		if r.Cost != nil {
			u.Cost, _ = r.Cost.Float64()
		}
		if u.CreatedAt.IsZero() {
			u.CreatedAt = start
		}
		switch {
		case t.api != nil && m.ConversationHistoryIdx != nil:
			if idx, err := m.ConversationHistoryIdx.Int64(); err == nil && idx+2 >= 1 && idx+2 <= int64(len(entries)) {
				u.Seq = idx + 2
			}
		case t.api == nil:
			u.Seq = int64(i + 1)
		default:
			// Roo Code's UI messages name no history index: the
			// answer is the first assistant message from the request
			// on.
			u.Seq = answerAt(entries, u.CreatedAt)
		}
		rows = append(rows, u)
	}
	var unpriced []sessiondb.Usage
	var at []int
	for i, u := range rows {
		if u.Cost == 0 && (u.InputTokens > 0 || u.OutputTokens > 0) && !hasCost(t.uiMsgs, u) {
			unpriced = append(unpriced, u)
			at = append(at, i)
		}
	}
	if len(unpriced) > 0 {
		jsonl.EstimateCosts(unpriced)
		for k, i := range at {
			rows[i] = unpriced[k]
		}
	}
	return rows
}

// hasCost reports whether the UI message of row u records a cost.
func hasCost(msgs []uiMessage, u sessiondb.Usage) bool {
	var i int
	if _, err := fmt.Sscanf(u.CallID, "ui-%d", &i); err != nil || i < 1 || i > len(msgs) || msgs[i-1].Text == nil {
		return false
	}
	var r apiReq
	return jsonNumbers(*msgs[i-1].Text, &r) == nil && r.Cost != nil
}

// jsonNumbers decodes text into v with numbers kept as written.
func jsonNumbers(text string, v any) error {
	dec := json.NewDecoder(stringReader(text))
	dec.UseNumber()
	return dec.Decode(v)
}

// num is n as an integer (0 when absent or not a number; a fraction is
// cut; at most maxCount).
func num(n *json.Number) int64 {
	if n == nil {
		return 0
	}
	if i, err := n.Int64(); err == nil {
		return min(max(i, 0), maxCount)
	}
	f, err := n.Float64()
	if err != nil || f < 0 {
		return 0
	}
	if f > maxCount {
		return maxCount
	}
	return int64(f)
}

// maxCount bounds a token count (JavaScript's largest exact integer):
// a larger number was not counted by Cline, and would overflow a sum.
const maxCount = 1<<53 - 1

// answerAt is the entry number of the first assistant message at or after
// tm (0: none).
func answerAt(entries []sessiondb.Entry, tm time.Time) int64 {
	for i, e := range entries {
		if e.Role == "assistant" && !e.CreatedAt.Before(tm) {
			return int64(i + 1)
		}
	}
	return 0
}
