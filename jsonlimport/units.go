package jsonlimport

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/claudecode"
	"github.com/sessiondb/sessiondb/jsonlimport/codex"
	"github.com/sessiondb/sessiondb/jsonlimport/opencode"
	"github.com/sessiondb/sessiondb/jsonlimport/swink"
)

// This file serves importers that decide for themselves which units to
// import and when (package watch follows the files as agents write them):
// the discovery that Import runs, the import of given units, and where a
// format keeps the side files of a session.

// Discovery is what Discover finds under some paths.
type Discovery struct {
	// Units are the source sessions, in the order Import writes them (by
	// directory, then by primary path); each Unit.Format names the format
	// that claimed it.
	Units []Unit
	// Problems are files that could not be read and JSONL files no format
	// recognises (what Import reports as problems).
	Problems []Problem
	// Skipped are the files that are not session files of any known
	// format (what Import reports as notes).
	Skipped []Problem
}

// Discover walks paths (files and directory trees) exactly as Import does
// and returns the units it would import, without parsing or writing
// anything. format selects the formats as Options.Format does.
func Discover(paths []string, format string) (Discovery, error) {
	formats, err := selectFormats(format)
	if err != nil {
		return Discovery{}, err
	}
	planned, problems, skipped, err := discover(paths, formats, nil)
	d := Discovery{Problems: problems, Skipped: skipped}
	for _, p := range planned {
		d.Units = append(d.Units, p.unit)
	}
	return d, err
}

// DiscoverIn is Discover for an import into store by machine: a file
// unchanged since machine imported it (its device, inode, size and
// modification time those of its import record) is taken as the unit it
// was imported as, without being read, when its format can name that unit
// (jsonl.Reclaimer), as Import takes it. A watcher starting over an
// archive it imported before reads none of its unchanged files.
func DiscoverIn(ctx context.Context, store sessiondb.Store, machine string, paths []string, format string) (Discovery, error) {
	formats, err := selectFormats(format)
	if err != nil {
		return Discovery{}, err
	}
	planned, problems, skipped, err := discover(paths, formats, reclaimer(rootRecords(ctx, store, importRoots(paths), machine), formats))
	d := Discovery{Problems: problems, Skipped: skipped}
	for _, p := range planned {
		d.Units = append(d.Units, p.unit)
	}
	return d, err
}

// ImportUnits imports units, as Discover returned them, the way Import
// imports what its own discovery finds: same parsing, same transactions
// (one per source session; small new sessions batched), same incremental
// rules, same report. Options.Format is not consulted: each unit names its
// format. A unit of an unknown format is an error and nothing is imported.
func ImportUnits(ctx context.Context, store sessiondb.Store, units []Unit, opts Options) (Report, error) {
	plan := make([]planned, 0, len(units))
	for _, u := range units {
		f := lookupFormat(u.Format)
		if f == nil {
			return Report{}, fmt.Errorf("import %s: unknown format %q: %w", u.Path, u.Format, sessiondb.ErrInvalid)
		}
		p := planned{unit: u, format: f, files: 1 + len(u.Extra), size: fileSize(u.Path)}
		for _, x := range u.Extra {
			p.size += fileSize(x)
		}
		plan = append(plan, p)
	}
	return importPlanned(ctx, store, plan, opts, Report{}, scan{})
}

// Scope is what must be offered to the formats again when a file appears
// or disappears, so that every unit that may hold it is found.
type Scope struct {
	// Dirs are directories whose own files (not their subdirectories')
	// are to be claimed again.
	Dirs []string
	// Trees are directory trees to discover again whole.
	Trees []string
}

// ClaimScope returns where the units that may own the file at path live:
// its own directory (a session file, picoclaw's .meta.json beside its
// .jsonl, swink's .interrupt.json beside its session) and, for the side
// files that formats keep elsewhere:
//
//	claude-code  <project>/<session>/tool-results/*  → <project>, where <session>.jsonl is
//	swink        <P>/checkpoints/<id>-….json          → the directory of session <id> under <P>
//	codex        <home>/session_index.jsonl           → the trees <home>/sessions and <home>/archived_sessions
//	opencode     storage/message/<session>/*.json,
//	             storage/part/<message>/*.json         → storage/session/<project>, where <session>.json is
//
// path need not exist any more (a side file that was deleted).
func ClaimScope(path string) Scope {
	dir := filepath.Dir(path)
	sc := Scope{Dirs: []string{dir}}
	switch base := filepath.Base(path); {
	case filepath.Base(dir) == "tool-results":
		if owner := claudecode.SessionFile(filepath.Dir(dir)); owner != "" {
			sc.Dirs = append(sc.Dirs, filepath.Dir(owner))
		}
	case filepath.Base(dir) == "checkpoints" && strings.HasSuffix(base, ".json"):
		if owner := swink.CheckpointOwner(path); owner != "" {
			sc.Dirs = append(sc.Dirs, filepath.Dir(owner))
		}
	case opencode.LegacyOwner(path) != "":
		sc.Dirs = append(sc.Dirs, filepath.Dir(opencode.LegacyOwner(path)))
	case base == codex.IndexName:
		for _, t := range []string{"sessions", "archived_sessions"} {
			if fi, err := os.Stat(filepath.Join(dir, t)); err == nil && fi.IsDir() {
				sc.Trees = append(sc.Trees, filepath.Join(dir, t))
			}
		}
	}
	return sc
}
