package jsonlimport

import (
	"strings"
	"testing"
)

// TestMapPath: the longest From that ends at a path boundary wins; the
// rest of the path is kept; no match leaves the path as it was.
func TestMapPath(t *testing.T) {
	maps := []PathMap{
		{From: "/home/a", To: "/Users/a"},
		{From: "/home/a/work", To: "/Volumes/work"},
		{From: `C:\Users\a`, To: "/home/a"},
		{From: "/srv", To: "/"},
	}
	for p, want := range map[string]string{
		"/home/a":               "/Users/a",
		"/home/a/src/x":         "/Users/a/src/x",
		"/home/a/work/y":        "/Volumes/work/y",
		"/home/a/workshop":      "/Users/a/workshop", // not under /home/a/work
		"/home/ab/x":            "/home/ab/x",        // not under /home/a
		`C:\Users\a\proj`:       `/home/a\proj`,
		"/srv/app":              "/app",
		"relative/home/a":       "relative/home/a",
		"":                      "",
		"/home/a/":              "/Users/a/",
		"/home/a/work":          "/Volumes/work",
		"/elsewhere/home/a/src": "/elsewhere/home/a/src",
	} {
		if got := MapPath(maps, p); got != want {
			t.Errorf("MapPath(%q) = %q, want %q", p, got, want)
		}
	}
	if got := MapPath([]PathMap{{"/", "/mnt/a"}}, "/x/y"); got != "/mnt/a/x/y" {
		t.Errorf("MapPath from / = %q", got)
	}
	if got := MapPath([]PathMap{{"/x", "/first"}, {"/x", "/second"}}, "/x/y"); got != "/first/y" {
		t.Errorf("equal Froms: %q, want the first's", got)
	}
}

// TestParsePathMap: FROM=TO, trailing separators dropped, FROM required.
func TestParsePathMap(t *testing.T) {
	for in, want := range map[string]PathMap{
		"/home/a=/Users/a":    {"/home/a", "/Users/a"},
		"/home/a/=/Users/a/":  {"/home/a", "/Users/a"},
		" /home/a = /Users/a": {"/home/a", "/Users/a"},
		"/=/mnt":              {"/", "/mnt"},
		"/a=":                 {"/a", ""},
		"/a=b=c":              {"/a", "b=c"},
	} {
		got, err := ParsePathMap(in)
		if err != nil || got != want {
			t.Errorf("ParsePathMap(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "/home/a", "=/Users/a", " = x"} {
		if m, err := ParsePathMap(in); err == nil {
			t.Errorf("ParsePathMap(%q) = %+v, want an error", in, m)
		}
	}
}

// FuzzMapPath: any map and path: no panic; an unmatched path comes back
// as it was; a matched one starts with its To and keeps the rest.
func FuzzMapPath(f *testing.F) {
	f.Add("/home/a=/Users/a", "/home/a/src/x")
	f.Add("/=/mnt", "/x")
	f.Add(`C:\Users\a=/home/a`, `C:\Users\a\p`)
	f.Add("/a/=", "/a/b")
	f.Fuzz(func(t *testing.T, spec, p string) {
		m, err := ParsePathMap(spec)
		if err != nil {
			return
		}
		got := MapPath([]PathMap{m}, p)
		if !underPath(p, m.From) {
			if got != p {
				t.Fatalf("MapPath(%+v, %q) = %q for a path not under From", m, p, got)
			}
			return
		}
		if !strings.HasPrefix(got, m.To) && m.To != "/" {
			t.Fatalf("MapPath(%+v, %q) = %q, not under To", m, p, got)
		}
	})
}
