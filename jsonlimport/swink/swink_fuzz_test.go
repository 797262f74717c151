package swink_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/swink"
)

// swinkCanonical is what must survive an export of an entry: a message's
// body, a custom message's data and type, a rich entry's type and data.
func swinkCanonical(t *testing.T, e sessiondb.Entry) []byte {
	t.Helper()
	if e.Kind == sessiondb.KindMessage {
		return e.Body
	}
	kvs, err := swink.DecodeObject(e.Body)
	if err != nil {
		t.Fatalf("%s body %q is not an object: %v", e.Kind, e.Body, err)
	}
	var parts []json.RawMessage
	for _, k := range []string{"entry_type", "type", "data"} {
		if v, ok := swink.LastKV(kvs, k); ok {
			parts = append(parts, v)
		}
	}
	b, _ := json.Marshal(parts)
	return b
}

// FuzzSwinkLine feeds one record line (or several, when the input holds
// newlines) after a valid header. The reader must not fail or panic, every
// entry must be storable and made of the file's own bytes, every problem
// must name a line, and what it reads must survive swink export.
func FuzzSwinkLine(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(swinkSessionsDir, "*.jsonl"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		lines := bytes.Split(b, []byte("\n"))
		for _, l := range lines[1:] {
			f.Add(l)
		}
	}
	for _, s := range []string{
		"", "   ", "\r", "{}", "[]", "null", `{"_state":true}`, `{"_state":false,"data":1}`,
		`{"_append":true,"phase":"begin"}`, `{"_meta":true,"data":{"id":"x","title":"t","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","version":0}}`,
		`{"_custom":true,"data":null,"type":"x"}`, `{"entry_type":"custom","data":{"type_name":"a","data":1,"timestamp":1}}`,
		`{"role":"user","content":[{"type":"image","source":{"type":"url","url":"u","media_type":"m"}}],"timestamp":1,"cache_hint":{"action":"write","ttl":3}}`,
		`{"role":"user","content":[{"type":"text","text":"\ud83d"}],"timestamp":1}`,
		swUser, swAsst, "{\"role\":\"user\",\"content\":[],\"timestamp\":1}\n{\"_append\":true}\n" + swUser,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		content := swinkTestHeader + "\n" + string(in) + "\n" + swUser + "\n"
		p, err := parseSwinkString(t, content)
		if err != nil {
			if errors.Is(err, swink.ErrVersion) {
				return // a _meta commit raised the version: refused, as swink does
			}
			t.Fatalf("Parse: %v", err)
		}
		if p.Offset != int64(len(content)) {
			t.Errorf("offset %d, want %d", p.Offset, len(content))
		}
		nLines := strings.Count(content, "\n")
		for _, pr := range p.Problems {
			if pr.Path == "" || pr.Reason == "" || pr.Line < 0 || pr.Line > nLines || (pr.Line == 0 && !strings.Contains(pr.Reason, "version")) {
				t.Errorf("bad problem %+v", pr)
			}
		}
		for _, e := range p.Entries {
			if err := sessiondb.ValidateEntry(e); err != nil {
				t.Errorf("entry %q: %v", e.Body, err)
			}
			if !bytes.Contains([]byte(content), e.Body) {
				t.Errorf("body %q is not from the file", e.Body)
			}
		}
		if p.State != nil && !json.Valid(p.State) {
			t.Errorf("state %q", p.State)
		}

		// What was read survives export: same kinds, same canonical values.
		var b strings.Builder
		b.WriteString(swinkTestHeader + "\n")
		for _, e := range p.Entries {
			line, err := swink.EntryLine(e)
			if err != nil {
				t.Fatalf("swinkEntryLine(%s %q): %v", e.Kind, e.Body, err)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		if p.State != nil {
			data, err := swink.CompactJSON(p.State)
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(`{"_state":true,"data":` + string(data) + "}\n")
		}
		q, err := parseSwinkString(t, b.String())
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if len(q.Problems) != 0 || len(q.Entries) != len(p.Entries) {
			t.Fatalf("re-parse: %d entries (want %d), problems %v\n%s", len(q.Entries), len(p.Entries), q.Problems, b.String())
		}
		for i := range q.Entries {
			if q.Entries[i].Kind != p.Entries[i].Kind || !swink.JSONEqual(swinkCanonical(t, q.Entries[i]), swinkCanonical(t, p.Entries[i])) {
				t.Errorf("entry %d: %s %s became %s %s", i, p.Entries[i].Kind, p.Entries[i].Body, q.Entries[i].Kind, q.Entries[i].Body)
			}
		}
		if (p.State == nil) != (q.State == nil) || (p.State != nil && !swink.JSONEqual(p.State, q.State)) {
			t.Errorf("state %s became %s", p.State, q.State)
		}
	})
}
