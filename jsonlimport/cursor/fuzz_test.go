package cursor

import (
	"database/sql"
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// realValues reads seed values from the corpus: its composers and bubbles
// cut down to the members the reader reads (real ids, times, token
// counts, tool data; texts cut short), so that the fuzzer mutates inputs
// of a few hundred bytes rather than tens of kilobytes.
func realValues(f *testing.F) (composers, bubbles []string) {
	f.Helper()
	for _, name := range []string{"urpg_app", "cursor-history"} {
		db, err := sql.Open("sqlite", "file:"+filepath.Join("..", "..", "testdata", "corpus", "cursor", name, "state.vscdb")+"?mode=ro")
		if err != nil {
			f.Fatal(err)
		}
		defer db.Close()
		for _, q := range []string{
			`SELECT json_object('composerId', json_extract(value, '$.composerId'), 'name', json_extract(value, '$.name'),
				'createdAt', json_extract(value, '$.createdAt'), 'lastUpdatedAt', json_extract(value, '$.lastUpdatedAt'),
				'fullConversationHeadersOnly', json_array(json_extract(value, '$.fullConversationHeadersOnly[0]'), json_extract(value, '$.fullConversationHeadersOnly[1]')),
				'generatingBubbleIds', json_extract(value, '$.generatingBubbleIds'), 'modelConfig', json_extract(value, '$.modelConfig'),
				'unifiedMode', json_extract(value, '$.unifiedMode'))
			FROM cursorDiskKV WHERE key LIKE 'composerData:%' AND value IS NOT NULL AND json_array_length(value, '$.fullConversationHeadersOnly') > 0`,
			`SELECT json_object('composerId', json_extract(c.value, '$.composerId'), 'createdAt', json_extract(c.value, '$.createdAt'),
				'conversation', json_array(json_extract(c.value, '$.conversation[0].type'), json_object('type', json_extract(c.value, '$.conversation[1].type'),
				'bubbleId', json_extract(c.value, '$.conversation[1].bubbleId'), 'text', substr(json_extract(c.value, '$.conversation[1].text'), 1, 40))))
			FROM ItemTable i, json_each(i.value, '$.allComposers') c WHERE i.key = 'composer.composerData' LIMIT 3`,
		} {
			rows, err := db.Query(q)
			if err != nil {
				continue // the store has not this table
			}
			for rows.Next() {
				var v string
				if err := rows.Scan(&v); err != nil {
					f.Fatal(err)
				}
				composers = append(composers, v)
			}
			rows.Close()
		}
		rows, err := db.Query(`SELECT json_object('type', json_extract(value, '$.type'), 'bubbleId', json_extract(value, '$.bubbleId'),
			'text', substr(json_extract(value, '$.text'), 1, 40), 'tokenCount', json_extract(value, '$.tokenCount'), 'timingInfo', json_extract(value, '$.timingInfo'),
			'toolFormerData', json_object('name', json_extract(value, '$.toolFormerData.name'), 'toolCallId', json_extract(value, '$.toolFormerData.toolCallId'),
				'status', json_extract(value, '$.toolFormerData.status'), 'rawArgs', substr(json_extract(value, '$.toolFormerData.rawArgs'), 1, 80),
				'result', substr(json_extract(value, '$.toolFormerData.result'), 1, 40)))
			FROM cursorDiskKV WHERE key LIKE 'bubbleId:%' AND (json_extract(value, '$.toolFormerData') IS NOT NULL OR json_extract(value, '$.tokenCount.inputTokens') > 0) LIMIT 6`)
		if err == nil {
			for rows.Next() {
				var v string
				if err := rows.Scan(&v); err != nil {
					f.Fatal(err)
				}
				bubbles = append(bubbles, v)
			}
			rows.Close()
		}
	}
	return composers, bubbles
}

// FuzzCursorValues fuzzes a composer's value and its bubbles' values as
// the store gives them: reading them never panics, every entry body is
// JSON that the message reader reads (a call and its result keep one
// id), usage is never negative, entries never go back in time.
func FuzzCursorValues(f *testing.F) {
	composers, bubbles := realValues(f)
	if len(composers) < 3 || len(bubbles) < 3 {
		f.Fatalf("corpus seeds: %d composers, %d bubbles", len(composers), len(bubbles))
	}
	for i, c := range composers {
		f.Add(c, bubbles[i%len(bubbles)], bubbles[(i+1)%len(bubbles)])
	}
	f.Add(`{"composerId":"c","fullConversationHeadersOnly":[{"bubbleId":"b1"},{"bubbleId":"b2"},{"bubbleId":"b3"}],"generatingBubbleIds":["b2"],"lastUpdatedAt":"2025-09-13T02:40:09Z"}`,
		`{"type":2,"bubbleId":"b1","createdAt":"2025-09-13T02:40:09Z","thinking":{"text":"t","signature":"s"},"toolFormerData":{"name":"grep","toolCallId":"x","rawArgs":"[1]","status":"error"},"tokenCount":{"inputTokens":-5,"outputTokens":1e300}}`,
		`{"type":"1","text":7,"timingInfo":{"clientRpcSendTime":"99999999999999999999"}}`)
	f.Add(`{"conversation":[{"type":1,"text":"a"},null,7,{"type":2,"toolFormerData":{"name":""}}]}`, `null`, `[]`)
	f.Add(`{"name":3,"createdAt":-1,"fullConversationHeadersOnly":"x","modelConfig":[]}`, `{`, ``)
	f.Fuzz(func(t *testing.T, composer, b1, b2 string) {
		bubbles := map[string][]byte{"b1": []byte(b1), "b2": []byte(b2), "b3": []byte(b1)}
		var c struct {
			Headers []header `json:"fullConversationHeadersOnly"`
		}
		if json.Unmarshal([]byte(composer), &c) == nil {
			for _, h := range c.Headers {
				if _, ok := bubbles[h.BubbleID]; !ok {
					bubbles[h.BubbleID] = []byte(b2)
				}
			}
		}
		pd, err := build(jsonl.Unit{Format: Name, Path: "x.vscdb#c"}, []byte(composer), bubbles, "", resumeState{})
		if err != nil {
			return
		}
		for i, e := range pd.Entries {
			if !json.Valid(e.Body) {
				t.Fatalf("entry body is not JSON: %q", e.Body)
			}
			if i > 0 && e.CreatedAt.Before(pd.Entries[i-1].CreatedAt) {
				t.Fatalf("entry %d goes back in time", i+1)
			}
			m := jsonl.ReadMessage(Format{}, e)
			for j, r := range m.Results {
				if j >= len(m.Calls) || r.CallID != m.Calls[j].ID {
					t.Fatalf("a result without its call: %+v", m)
				}
			}
		}
		for _, u := range pd.Usage {
			if u.InputTokens < 0 || u.OutputTokens < 0 || math.IsNaN(u.Cost) {
				t.Fatalf("usage %+v", u)
			}
		}
		if int(pd.Offset) != len(pd.Entries) {
			t.Fatalf("offset %d for %d entries", pd.Offset, len(pd.Entries))
		}
	})
}
