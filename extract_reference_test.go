package sessiondb

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// referenceExtractor is DefaultExtractor as it was written first, by
// decoding the body into Go values: the definition the byte walk of
// extract.go must match, whatever the body.
func referenceExtractor(body []byte) (role, text string) {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return "", ""
	}
	obj, ok := v.(map[string]any)
	if !ok {
		if s, ok := v.(string); ok {
			return "", capText(s)
		}
		return "", ""
	}
	if r, ok := obj["role"].(string); ok {
		role = r
	}
	var b strings.Builder
	referenceCollect(&b, obj, 0)
	if calls, ok := obj["tool_calls"]; ok {
		referenceCollect(&b, calls, 0)
	}
	return role, capText(b.String())
}

func referenceCollect(b *strings.Builder, v any, depth int) {
	if depth > 64 || b.Len() > maxExtractedText {
		return
	}
	switch v := v.(type) {
	case string:
		appendText(b, v)
	case []any:
		for _, e := range v {
			referenceCollect(b, e, depth+1)
		}
	case map[string]any:
		for _, k := range textKeys {
			e, ok := v[k]
			if !ok {
				continue
			}
			switch k {
			case "arguments", "args", "input":
				if _, isString := e.(string); !isString {
					var raw bytes.Buffer
					enc := json.NewEncoder(&raw)
					enc.SetEscapeHTML(false)
					if enc.Encode(e) == nil {
						appendText(b, strings.TrimSuffix(raw.String(), "\n"))
					}
					continue
				}
			}
			referenceCollect(b, e, depth+1)
		}
		if f, ok := v["function"]; ok {
			referenceCollect(b, f, depth+1)
		}
	}
}

// checkAgainstReference fails t when DefaultExtractor and the reference
// disagree on body.
func checkAgainstReference(t *testing.T, name string, body []byte) {
	t.Helper()
	role, text := DefaultExtractor(KindMessage, body)
	wantRole, wantText := referenceExtractor(body)
	if role != wantRole || text != wantText {
		t.Fatalf("%s: %q\ngot  (%q, %q)\nwant (%q, %q)", name, body, role, text, wantRole, wantText)
	}
}

func TestExtractorKeyIndexes(t *testing.T) {
	for k, name := range map[int]string{keyArguments: "arguments", keyArgs: "args", keyInput: "input"} {
		if textKeys[k] != name {
			t.Fatalf("textKeys[%d] = %q, want %q", k, textKeys[k], name)
		}
	}
}

// TestDefaultExtractorMatchesReference: every line of every JSONL file
// under testdata (files the real tools wrote, and the fixtures), and bodies
// built to reach each rule of encoding/json the walk must follow.
func TestDefaultExtractorMatchesReference(t *testing.T) {
	for _, body := range []string{
		`{"role":"user","content":"a","content":"b"}`,                 // the last of a key twice
		`{"role":"a","role":7}`,                                       // role not a string
		`{"\u0074ext":"escaped key","te\u0078t":"again"}`,             // keys spelled with escapes
		"{\"text\":\"bad \xff utf-8\",\"na\xffme\":\"x\"}",            // invalid UTF-8 in a value and a key
		`{"text":"lone \ud800 surrogate","name":"pair \ud83d\ude80"}`, // surrogates
		`{"input":{"b":1,"a":[1.0,2e3,-0.5e-3,true,null,"<&>"]}}`,     // rendered: keys sorted, float64, HTML escaped
		`{"args":null,"arguments":false,"input":12345678901234567890}`,
		`{"text":"x","n":1e400}`,   // out of float64's range: no text at all
		`{"text":"x","n":-1E+309}`, // likewise
		`{"text":"x","n":1e-400}`,  // underflow
		`{"text":"x","n":` + strings.Repeat("9", 400) + `}`,
		`"top-level string"`, `  "\u00e9 spaced"  `, `[{"text":"in an array"}]`, `12`, `null`, `true`,
		`{"function":{"name":"f","arguments":{"z":1}},"tool_calls":[{"function":{"name":"g"}}]}`,
		`{"content":[{"content":[{"content":"deep"}]}],"message":{"payload":{"summary":" trimmed "}}}`,
		`{"text":"  ","thinking":"\t\n","label":"kept"}`,
		`{"text":"a\\"b\\\\","title":"c\"d"}`,
		`{"tool_calls":"not a list","role":"assistant"}`,
		` { "role" : "user" , "content" : [ { "text" : "spaced" } , 3 , [ "nested" ] ] } `,
		`{}`, `[]`, `{"a":{}}`, `{"text":""}`,
		strings.Repeat(`{"content":`, 70) + `"too deep"` + strings.Repeat(`}`, 70),
		strings.Repeat(`[`, 80) + strings.Repeat(`]`, 80),
		`{"text":"x"`, `{"text":"x"}}`, `{"text":x}`, ``, `{"text":"\u12"}`, // invalid
	} {
		checkAgainstReference(t, "case", []byte(body))
	}
	n := 0
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			checkAgainstReference(t, path, bytes.Clone(sc.Bytes()))
			n++
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10000 {
		t.Fatalf("checked %d lines of testdata, want the corpora's (>= 10,000)", n)
	}
	t.Logf("%d lines of testdata match", n)
}

// BenchmarkDefaultExtractor describes the lines of the Claude Code corpus
// (files Claude Code wrote), with the walk and with the reference decode.
func BenchmarkDefaultExtractor(b *testing.B) {
	var lines [][]byte
	var size int64
	_ = filepath.WalkDir(filepath.Join("testdata", "corpus", "claude-code"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(l) > 0 {
				lines = append(lines, l)
				size += int64(len(l))
			}
		}
		return nil
	})
	if len(lines) == 0 {
		b.Skip("no corpus")
	}
	for _, bc := range []struct {
		name string
		fn   func([]byte) (string, string)
	}{
		{"walk", func(body []byte) (string, string) { return DefaultExtractor(KindMessage, body) }},
		{"decode", referenceExtractor},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				for _, l := range lines {
					bc.fn(l)
				}
			}
		})
	}
}
