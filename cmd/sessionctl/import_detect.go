package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/sessiondb/sessiondb/jsonlimport"
)

// foundLocation is one well-known archive directory that exists, with what
// it holds (the --json output of a bare "import").
type foundLocation struct {
	jsonlimport.Location
	Detected []jsonlimport.Detected `json:"detected"`
	Sessions int                    `json:"sessions"`
}

// runOffer lists the well-known archive directories found on this machine,
// with their session counts, and the command that imports them. It opens no
// database and imports nothing.
func (a *app) runOffer(o importOptions) error {
	home := a.getenv("HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = h
		}
	}
	var found []foundLocation
	for _, loc := range jsonlimport.WellKnownLocations(home, a.getenv) {
		fi, err := os.Stat(loc.Path)
		if err != nil || !fi.IsDir() {
			continue
		}
		det, _, err := jsonlimport.Detect(a.ctx, []string{loc.Path}, o.format)
		if err != nil {
			return fmt.Errorf("detect %s: %w", loc.Path, err)
		}
		f := foundLocation{Location: loc, Detected: det}
		for _, d := range det {
			f.Sessions += d.Sessions
		}
		if f.Detected == nil {
			f.Detected = []jsonlimport.Detected{}
		}
		found = append(found, f)
	}
	if o.json {
		if found == nil {
			found = []foundLocation{}
		}
		return writeJSON(a.stdout, found)
	}
	if len(found) == 0 {
		fmt.Fprintln(a.stdout, "no session archives found in the default places (~/.claude/projects, ~/.codex/sessions, ~/.pi/agent/sessions, ~/.gemini/tmp, ~/.qwen/projects, ~/.local/share/opencode, picoclaw workspace, zot home, Cursor's User folder, ~/.cursor/projects); give a PATH")
		return nil
	}
	tw := newTable(a.stdout)
	fmt.Fprintln(tw, "FORMAT\tSESSIONS\tSIZE\tPATH")
	var paths []string
	for _, f := range found {
		var size int64
		for _, d := range f.Detected {
			size += d.Bytes
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", f.Format, f.Sessions, humanBytes(size), cell(f.Path, 0))
		if f.Sessions > 0 {
			paths = append(paths, shellQuote(f.Path))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(paths) > 0 {
		fmt.Fprintf(a.stdout, "import them with: sessionctl import %s\n", visible(strings.Join(paths, " ")))
	}
	return nil
}

// detectReport is the --json output of import --detect.
type detectReport struct {
	Formats  []jsonlimport.Detected `json:"formats"`
	Skipped  []jsonlimport.Problem  `json:"skipped"`
	Sessions int                    `json:"sessions"`
}

// runDetect prints what importing paths would read, per format, without
// opening a database.
func (a *app) runDetect(paths []string, o importOptions) error {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("cannot read %s: %w", p, unwrapPathError(err))
		}
	}
	det, skipped, err := jsonlimport.Detect(a.ctx, paths, o.format)
	if err != nil {
		return fmt.Errorf("detect: %w", err)
	}
	rep := detectReport{Formats: det, Skipped: skipped}
	for _, d := range det {
		rep.Sessions += d.Sessions
	}
	if o.json {
		if rep.Formats == nil {
			rep.Formats = []jsonlimport.Detected{}
		}
		if rep.Skipped == nil {
			rep.Skipped = []jsonlimport.Problem{}
		}
		return writeJSON(a.stdout, rep)
	}
	tw := newTable(a.stdout)
	fmt.Fprintln(tw, "FORMAT\tSESSIONS\tFILES\tSIZE")
	for _, d := range det {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", d.Format, d.Sessions, d.Files, humanBytes(d.Bytes))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%d sessions would be imported; %d files skipped\n", rep.Sessions, len(skipped))
	for i, p := range skipped {
		if i == maxListedProblems && len(skipped) > maxListedProblems+1 {
			fmt.Fprintf(a.stdout, "  … and %d more (use --json to list them all)\n", len(skipped)-i)
			break
		}
		fmt.Fprintf(a.stdout, "  %s\n", oneLine(p.String()))
	}
	return nil
}

// shellQuote quotes a path for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[](){};&|<>#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
