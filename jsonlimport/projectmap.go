package jsonlimport

import (
	"fmt"
	"strings"

	"github.com/sessiondb/sessiondb"
)

// PathMap rewrites a project path recorded on one machine to the path the
// same project has on another (Options.Map, sessionctl's --map FROM=TO):
// /home/a/src/x recorded on a Linux machine becomes /Users/a/src/x with
// {From: "/home/a", To: "/Users/a"}, so that the project is one project
// across machines (list --project, usage by project).
//
// Only the recorded project (Session.Project, which an import takes from
// the agent's cwd) is rewritten: never the transcript, its attrs (the
// agent's own cwd stays in them as recorded) or the source path. An
// export therefore gives back what the agent wrote; the mapping is how
// sessiondb files the session.
type PathMap struct {
	From, To string
}

// ParsePathMap parses FROM=TO. Both sides are paths without a trailing
// separator (one is removed); FROM must not be empty.
func ParsePathMap(s string) (PathMap, error) {
	from, to, ok := strings.Cut(s, "=")
	from, to = trimSep(strings.TrimSpace(from)), trimSep(strings.TrimSpace(to))
	if !ok || from == "" {
		return PathMap{}, fmt.Errorf("path map %q: want FROM=TO, FROM not empty", s)
	}
	return PathMap{From: from, To: to}, nil
}

func trimSep(p string) string {
	if len(p) > 1 {
		p = strings.TrimRight(p, `/\`)
		if p == "" {
			p = "/"
		}
	}
	return p
}

// MapPath rewrites p by the map whose From is the longest prefix of p
// that ends at a path boundary (p itself, or p followed by a separator):
// /home/a maps /home/a and /home/a/x, never /home/ab. The first of equal
// Froms wins. p is returned unchanged when no From matches.
func MapPath(maps []PathMap, p string) string {
	best := -1
	for i, m := range maps {
		if !underPath(p, m.From) {
			continue
		}
		if best < 0 || len(m.From) > len(maps[best].From) {
			best = i
		}
	}
	if best < 0 {
		return p
	}
	m := maps[best]
	rest := p[len(m.From):]
	if m.From == "/" && rest != "" {
		rest = "/" + rest
	}
	if m.To == "/" && strings.HasPrefix(rest, "/") {
		return rest
	}
	return m.To + rest
}

// underPath reports whether p is dir or a path under it.
func underPath(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	if !strings.HasPrefix(p, dir) {
		return false
	}
	rest := p[len(dir):]
	return rest == "" || rest[0] == '/' || rest[0] == '\\'
}

// mapProjects rewrites the project each commit records, on create and in
// a metadata patch, once, by maps.
func mapProjects(commits []sessiondb.SessionCommit, maps []PathMap) {
	if len(maps) == 0 {
		return
	}
	for i := range commits {
		c := &commits[i].Commit
		if c.Create != nil {
			c.Create.Project = MapPath(maps, c.Create.Project)
		}
		if c.Meta != nil && c.Meta.Project != nil {
			p := MapPath(maps, *c.Meta.Project)
			c.Meta.Project = &p
		}
	}
}
