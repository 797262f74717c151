package secrets

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestFindJSONReadsDecodedStrings: in a stored body a key often follows an
// escaped newline ("…:\nAKIA…"), which read as raw bytes glues an n to
// it; the body is read with its strings decoded, and the span is mapped
// back to the stored bytes of the secret.
func TestFindJSONReadsDecodedStrings(t *testing.T) {
	body := []byte(`{"role":"tool","content":"keys:\n` + awsKeyID + `\n\tdone \u00e9"}`)
	spans := Default().FindJSON(body)
	if len(spans) != 1 || string(body[spans[0].Start:spans[0].End]) != awsKeyID {
		t.Fatalf("spans %v, want the key's bytes", spans)
	}
	red := Redact(body, spans)
	if !json.Valid(red) || strings.Contains(string(red), awsKeyID) || !strings.Contains(string(red), Placeholder("aws-access-token")) {
		t.Fatalf("redacted: %s", red)
	}
}

// TestSpansNeverCutEscapes: a secret holding escapes (\" \u00e9 \\) is
// redacted whole and the body stays valid JSON.
func TestSpansNeverCutEscapes(t *testing.T) {
	for _, pw := range []string{`Tr0ub\"4dor&3`, `p\u00e4ss-w0rd\\x9`, `s3cr3t\/Path42`} {
		body := []byte(`{"command":"PGPASSWORD=x psql 'host=db user=app password=` + pw + ` dbname=app'","n":1}`)
		spans := Default().FindJSON(body)
		red := Redact(body, spans)
		var v map[string]any
		if err := json.Unmarshal(red, &v); err != nil {
			t.Fatalf("%s: redacted body is not JSON: %v\n%s", pw, err, red)
		}
		if strings.Contains(string(red), pw) || strings.Contains(v["command"].(string), "dbname") == false {
			t.Errorf("%s: redacted %s", pw, red)
		}
	}
}

// TestSpanAcrossStrings: a match that runs over two JSON strings (a PEM
// block split between two fields) is redacted in each, and the structure
// between them stays.
func TestSpanAcrossStrings(t *testing.T) {
	lines := strings.Split(pem, "\n")
	body, _ := json.Marshal(map[string]string{"a": strings.Join(lines[:2], "\n"), "b": strings.Join(lines[2:], "\n")})
	spans := Default().FindJSON(body)
	if len(spans) < 2 {
		t.Fatalf("want a span in each string, got %v in %s", spans, body)
	}
	red := Redact(body, spans)
	var v map[string]string
	if err := json.Unmarshal(red, &v); err != nil || len(v) != 2 {
		t.Fatalf("redacted body %s: %v", red, err)
	}
	if strings.Contains(string(red), lines[1]) || strings.Contains(string(red), lines[3]) {
		t.Fatalf("key material left: %s", red)
	}
}

// TestFindJSONNotJSON: a body that is not JSON is read as text.
func TestFindJSONNotJSON(t *testing.T) {
	body := []byte(`not json "unterminated ` + githubPAT)
	spans := Default().FindJSON(body)
	if len(spans) != 1 || string(body[spans[0].Start:spans[0].End]) != githubPAT {
		t.Fatalf("spans %v", spans)
	}
}

// TestRedactIgnoresStaleSpans: spans past the end of a body, or
// overlapping, never make Redact panic or cut outside them.
func TestRedactIgnoresStaleSpans(t *testing.T) {
	body := []byte(`{"a":"0123456789"}`)
	got := Redact(body, []Span{{"r", 6, 9}, {"r", 8, 12}, {"r", 40, 50}, {"r", 5, 3}})
	if string(got) != `{"a":"[REDACTED:r]6789"}` {
		t.Fatalf("got %s", got)
	}
}

func TestMask(t *testing.T) {
	if m := Mask(openAIKey); m != openAIKey[:4]+"…"+openAIKey[len(openAIKey)-4:] {
		t.Errorf("Mask = %q", m)
	}
	if m := Mask("hunter2"); strings.Contains(m, "hu") || strings.Contains(m, "r2") {
		t.Errorf("Mask of a short secret shows part of it: %q", m)
	}
}

// FuzzRedactJSON: whatever a string holds around a planted key, the body
// found and redacted stays valid JSON, keeps its fields, and no longer
// holds the key.
func FuzzRedactJSON(f *testing.F) {
	f.Add("plain", "text")
	f.Add("a\"quoted\"\n\tline\\", "\u00e9\u2028")
	f.Add("password=", "")
	f.Add("-----BEGIN RSA PRIVATE KEY-----", "\\n")
	f.Fuzz(func(t *testing.T, before, after string) {
		body, err := json.Marshal(map[string]any{"text": before + " " + githubPAT + " " + after, "n": 1, "list": []string{after, before}})
		if err != nil {
			t.Skip()
		}
		red := Redact(body, Default().FindJSON(body))
		var v map[string]any
		if err := json.Unmarshal(red, &v); err != nil {
			t.Fatalf("redacted body is not JSON: %v\n%s\n%s", err, body, red)
		}
		if len(v) != 3 {
			t.Fatalf("fields lost: %s", red)
		}
		if strings.Contains(v["text"].(string), githubPAT) {
			t.Fatalf("key left in %s", red)
		}
	})
}
