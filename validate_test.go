package sessiondb

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestValidateCommit(t *testing.T) {
	good := json.RawMessage(`{"role":"user","content":"x"}`)
	for _, tc := range []struct {
		name string
		c    Commit
		ok   bool
	}{
		{"empty", Commit{}, true},
		{"append", Commit{Append: []Entry{{Body: good}}}, true},
		{"non-json body", Commit{Append: []Entry{{Body: json.RawMessage(`{"a":`)}}}, false},
		{"empty body", Commit{Append: []Entry{{}}}, false},
		{"control char kind", Commit{Append: []Entry{{Kind: "a\x00", Body: good}}}, false},
		{"oversized body", Commit{Append: []Entry{{Body: json.RawMessage(`"` + strings.Repeat("a", MaxBodySize) + `"`)}}}, false},
		{"bad state", Commit{State: json.RawMessage(`nope`)}, false},
		{"state set and cleared", Commit{State: good, ClearState: true}, false},
		{"interrupt set and cleared", Commit{Interrupt: good, ClearInterrupt: true}, false},
		{"keep-from zero", Commit{Compactions: []Compaction{{KeepFromSeq: 0}}}, false},
		{"bad summary", Commit{Compactions: []Compaction{{KeepFromSeq: 1, Summary: []Entry{{Body: json.RawMessage(`x`)}}}}}, false},
		{"bad alias", Commit{Meta: &MetaPatch{Aliases: &[]string{""}}}, false},
		{"bad scope", Commit{Create: &Session{Scope: json.RawMessage(`{`)}}, false},
		{"source without path", Commit{Source: &SourceFile{}}, false},
	} {
		err := ValidateCommit("s1", tc.c)
		if tc.ok && err != nil {
			t.Errorf("%s: %v, want nil", tc.name, err)
		}
		if !tc.ok && !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", tc.name, err)
		}
	}
}
