package main

import (
	"fmt"
	"regexp"
	"strings"
)

// anonymizer rewrites paths and the names in them. It is deterministic: a
// component always becomes the same pseudonym, so a cwd, the project folder
// encoded from it and every path naming the same place agree, in one file
// and across the corpus.
type anonymizer struct {
	users map[string]string // user name → pseudonym, assigned in plan order
}

func newAnonymizer() *anonymizer {
	return &anonymizer{users: map[string]string{}}
}

var userNames = strings.Fields("ada bruno cleo dario elin farah gus hana ivo juno kai lena milo nadia otto pia quinn rosa sami tove ugo vera wim xia yann zara")

// user returns the pseudonym of a user name. Generic account names are kept.
func (a *anonymizer) user(name string) string {
	switch strings.ToLower(name) {
	case "", "root", "runner", "ubuntu", "user", "dev", "admin", "administrator", "vscode", "node", "codespace", "codespaces", "shared", "public", "default":
		return name
	}
	if p, ok := a.users[name]; ok {
		return p
	}
	i := len(a.users)
	p := userNames[i%len(userNames)]
	if i >= len(userNames) {
		p = fmt.Sprintf("%s%d", p, i/len(userNames))
	}
	a.users[name] = p
	return p
}

// keptComponents are path components that say nothing about a person or a
// project.
var keptComponents = map[string]bool{}

func init() {
	for _, c := range strings.Fields(`~ . .. Users users home root tmp temp var opt usr mnt
		Volumes private etc srv workspace workspaces Workspace Desktop Documents Downloads
		Projects projects project src source code Code dev work Work repos repo git github
		GitHub go app apps lib bin docs doc scripts script test tests config configs
		.claude .codex .config .git .github .vscode .cursor .local .cache .npm .agents
		skills commands agents hooks plugins memory node_modules dist build packages pkg
		cmd internal web api server client frontend backend public assets static data
		sessions subagents tool-results workflows todos plans shell-snapshots file-history
		AppData Roaming Local Temp tmp.d mcp sandbox worktrees Library Application
		README.md CLAUDE.md AGENTS.md SKILL.md package.json package-lock.json go.mod go.sum
		settings.json settings.local.json tsconfig.json Cargo.toml Makefile Dockerfile
		main.go index.ts index.js main.py __init__.py .env .gitignore pyproject.toml`) {
		keptComponents[c] = true
	}
}

var driveRE = regexp.MustCompile(`^[A-Za-z]:$`)
var extRE = regexp.MustCompile(`^(.+?)(\.[A-Za-z0-9]{1,6})$`)
var pathLikeRE = regexp.MustCompile(`^(~?/|[A-Za-z]:[\\/]|\\\\)[^\n\t]*$`)

// looksLikePath reports whether s is a single absolute path (no line breaks).
func looksLikePath(s string) bool {
	return len(s) < 1024 && pathLikeRE.MatchString(s)
}

// path anonymises a file system path, keeping its separators, drive letters,
// well-known components and file extensions; the user name after Users/ or
// home/ becomes a pseudonym and every other component a stable two-word name.
func (a *anonymizer) path(p string) string {
	var b strings.Builder
	afterHome := false
	start := 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' && p[i] != '\\' {
			continue
		}
		comp := p[start:i]
		switch {
		case afterHome && comp != "":
			b.WriteString(a.user(comp))
			afterHome = false
		default:
			b.WriteString(a.component(comp))
			if c := strings.ToLower(comp); c == "users" || c == "home" {
				afterHome = true
			}
		}
		if i < len(p) {
			b.WriteByte(p[i])
		}
		start = i + 1
	}
	return b.String()
}

func (a *anonymizer) component(c string) string {
	if c == "" || keptComponents[c] || driveRE.MatchString(c) {
		return c
	}
	if u, ok := a.users[c]; ok {
		return u
	}
	if m := extRE.FindStringSubmatch(c); m != nil && !strings.HasPrefix(c, ".") {
		return pseudo(m[1]) + m[2]
	}
	if strings.HasPrefix(c, ".") && len(c) > 1 {
		return "." + pseudo(c[1:])
	}
	return pseudo(c)
}

var nonAlnumRE = regexp.MustCompile(`[^A-Za-z0-9]`)

// encodeProjectDir is how Claude Code names the folder of a cwd under
// ~/.claude/projects: every character that is not an ASCII letter or digit
// becomes "-".
func encodeProjectDir(cwd string) string {
	return nonAlnumRE.ReplaceAllString(cwd, "-")
}

// branch anonymises a git branch name; common default names stay.
func (a *anonymizer) branch(s string) string {
	switch s {
	case "", "main", "master", "HEAD", "develop", "dev", "trunk":
		return s
	}
	return "branch-" + pseudo(s)
}
