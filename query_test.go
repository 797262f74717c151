package sessiondb

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSearchTerms(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"hello world", []string{"hello", "world"}},
		{`  "exact  phrase" other `, []string{"exact phrase", "other"}},
		{`unclosed "quote here`, []string{"unclosed", "quote here"}},
		{`a-b c:d e* (f) NOT AND OR NEAR`, []string{"a-b", "c:d", "e*", "(f)", "NOT", "AND", "OR", "NEAR"}},
		{`你好 世界 🚀`, []string{"你好", "世界", "🚀"}},
		{`""  x`, []string{"x"}},
	} {
		got, err := SearchTerms(tc.q)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("SearchTerms(%q) = %q, %v; want %q", tc.q, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "   ", `""`, "a\x00b", "\xff", strings.Repeat("a", MaxQueryLen+1)} {
		if _, err := SearchTerms(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("SearchTerms(%q) = %v, want ErrInvalid", bad, err)
		}
	}
}

func FuzzSearchTerms(f *testing.F) {
	for _, s := range []string{`a "b c" d`, `"`, `(x) -y *z`, `你好`, "\t\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		terms, err := SearchTerms(q)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		if len(terms) == 0 {
			t.Fatal("no terms and no error")
		}
		for _, term := range terms {
			if term == "" || !utf8.ValidString(term) || strings.TrimSpace(term) != term {
				t.Fatalf("bad term %q from %q", term, q)
			}
		}
	})
}

// TestSplitSnippet: the markers Search puts around matches are taken off,
// and a "**" the text itself holds (a glob, markdown bold) stays text.
func TestSplitSnippet(t *testing.T) {
	show := func(parts []SnippetPart) string {
		var b strings.Builder
		for _, p := range parts {
			if p.Match {
				b.WriteString("[" + p.Text + "]")
			} else {
				b.WriteString(p.Text)
			}
		}
		return b.String()
	}
	for _, tc := range []struct{ snippet, query, want string }{
		{"the **lighthouse** keeper", "lighthouse", "the [lighthouse] keeper"},
		{"/home/kai/**git**hub/**/x.go", "git", "/home/kai/[git]hub/**/x.go"},
		{"**/*.go and **Deploy** it", "deploy", "**/*.go and [Deploy] it"},
		{"****git**** literal", "git", "**[git]** literal"},
		{"**bold** words, **deploy** now", "deploy", "**bold** words, [deploy] now"},
		{"a **b c** d", `"b c"`, "a [b c] d"},
		{"no markers", "x", "no markers"},
		{"…tail **x", "x", "…tail **x"},
	} {
		if got := show(SplitSnippet(tc.snippet, tc.query)); got != tc.want {
			t.Errorf("SplitSnippet(%q, %q) = %q, want %q", tc.snippet, tc.query, got, tc.want)
		}
	}
}
