package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
)

// sessionSelector picks sessions by where they came from, for the
// commands that change many at once (delete, prune): --format, the source
// format they were imported from ("none" for sessions an application
// wrote), and --source, a file or directory they were imported from (a
// session whose source file is that file or lies under that directory).
// Both given: sessions that match both. It is how a user removes the
// README's demo sessions, or everything one archive brought, without
// naming them one by one.
type sessionSelector struct {
	format string
	source string
}

// addFlags adds --format and --source to c.
func (s *sessionSelector) addFlags(c *cobra.Command, verb string) {
	c.Flags().StringVar(&s.format, "format", "", verb+" the sessions imported from this format ("+orList(selectFormats())+"; none: written by an application)")
	c.Flags().StringVar(&s.source, "source", "", verb+" the sessions imported from this file or from files under this directory")
}

// active reports whether a selector was given.
func (s *sessionSelector) active() bool { return s.format != "" || s.source != "" }

// check validates the flags (a usage error when wrong) and makes
// --source absolute, as import records source paths.
func (s *sessionSelector) check(c *cobra.Command) error {
	if s.format != "" && !knownFormat(selectFormats(), s.format) {
		return usageErrorf(c, "unknown --format %q: use %s", s.format, orList(selectFormats()))
	}
	if s.source != "" {
		abs, err := filepath.Abs(s.source)
		if err != nil {
			return usageErrorf(c, "--source %q: %v", s.source, err)
		}
		s.source = filepath.Clean(abs)
	}
	return nil
}

// describe says what the selector selects, for messages.
func (s *sessionSelector) describe() string {
	var parts []string
	if s.format == "none" {
		parts = append(parts, "written by an application")
	} else if s.format != "" {
		parts = append(parts, "imported from "+s.format)
	}
	if s.source != "" {
		parts = append(parts, "from "+visible(s.source))
	}
	return strings.Join(parts, ", ")
}

// matches reports whether sess is selected.
func (s *sessionSelector) matches(sess sessiondb.Session) bool {
	switch {
	case s.format == "none" && sess.SourceFormat != "":
		return false
	case s.format != "" && s.format != "none" && sess.SourceFormat != s.format:
		return false
	}
	if s.source != "" {
		p := sess.SourcePath
		if p == "" {
			return false
		}
		if p != s.source && !strings.HasPrefix(p, s.source+string(os.PathSeparator)) && !strings.HasPrefix(p, s.source+"/") {
			return false
		}
	}
	return true
}

// selectSessions returns the sessions s selects, newest first.
func (a *app) selectSessions(st sessiondb.Store, s *sessionSelector) ([]sessiondb.SessionInfo, error) {
	all, err := listSessions(a.ctx, st, "", 0)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var out []sessiondb.SessionInfo
	for _, si := range all {
		if s.matches(si.Session) {
			out = append(out, si)
		}
	}
	return out, nil
}

// idList names ids for a prompt: all of them when few, else the first
// five and how many more.
func idList(ids []string) string {
	if len(ids) <= 5 {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:5], ", ") + fmt.Sprintf(" and %d more", len(ids)-5)
}
