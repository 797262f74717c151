package jsonlimport

import "github.com/sessiondb/sessiondb"

// echoKinds are the entry kinds that repeat text a message of the same
// session holds: Codex's event_msg lines echo each prompt and answer.
var echoKinds = map[string]bool{"event_msg": true}

// DropEchoes removes the search hits on an echo (a Codex event_msg) whose
// snippet a message hit of the same session also shows, so a reader sees
// each prompt or answer once. The order of the other hits is kept.
func DropEchoes(hits []sessiondb.Hit) []sessiondb.Hit {
	type key struct{ session, snippet string }
	shown := map[key]bool{}
	for _, h := range hits {
		if !echoKinds[h.Kind] {
			shown[key{h.SessionID, h.Snippet}] = true
		}
	}
	out := hits[:0:0]
	for _, h := range hits {
		if echoKinds[h.Kind] && shown[key{h.SessionID, h.Snippet}] {
			continue
		}
		out = append(out, h)
	}
	return out
}
