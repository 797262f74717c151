package jsonlimport

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// lookupFormat returns the named format, or nil.
func lookupFormat(name string) Format {
	for _, f := range Formats() {
		if f.Name() == name {
			return f
		}
	}
	return nil
}

// selectFormats returns the formats to offer files to for Options.Format.
func selectFormats(name string) ([]Format, error) {
	switch name {
	case "", "auto":
		return Formats(), nil
	}
	if f := lookupFormat(name); f != nil {
		return []Format{f}, nil
	}
	return nil, fmt.Errorf("import: unknown format %q (want auto, %s)", name, strings.Join(formatNames(), ", "))
}

func formatNames() []string { return FormatNames() }

// FormatNames returns the names of the formats Import reads, in the
// registry's claim order (Formats): the values of Options.Format, which
// the command line lists from here rather than by hand.
func FormatNames() []string {
	var names []string
	for _, f := range Formats() {
		names = append(names, f.Name())
	}
	return names
}

// ExportFormatNames returns the names of the formats Export writes, in the
// registry's order.
func ExportFormatNames() []string {
	var names []string
	for _, f := range Formats() {
		if _, ok := f.(jsonl.Exporter); ok {
			names = append(names, f.Name())
		}
	}
	return names
}

// planned is one unit found on disk, with the format that claimed it.
type planned struct {
	unit   Unit
	format Format
	size   int64   // bytes of the primary and extra files
	files  int     // 1 + len(unit.Extra)
	pricer *pricer // prices the unit's estimated usage (nil: as parsed)
	// machine is Options.Machine, recorded on the sessions the unit creates.
	machine string
	// maps is Options.Map, applied to the project the unit's sessions record.
	maps   []PathMap
	follow *Follow // Options.Follow
	// chunk: the unit's file is imported a chunk at a time (chunk.go).
	chunk bool
	// session is set for a session of a store (stores.go), whose unit
	// is the session's; cache is where its store's reader keeps what
	// the session is read from.
	session *jsonl.StoreSession
	cache   *jsonl.Cache
	// prev is the unit's import record as read before the walk, for a
	// file taken unchanged by discover's reclaim (unchanged.go).
	prev   *sessiondb.SourceFile
	prevSt *importState // prev's State, decoded
}

// discover walks paths (files and directory trees), offers the sorted files
// of each directory to the formats in turn, and returns the units in a
// deterministic order (by directory, then by primary path) plus a Problem for
// every file no format claimed.
//
// Symbolic links: a path named by the caller is followed (a link to a
// directory is walked under the link's name), since the user chose it.
// Inside a walk, a link to a regular file is followed only when its target
// lies inside the walked tree: an archive from someone else may carry
// notes.jsonl -> ~/.claude/projects/…/private.jsonl, which must not be
// imported under the archive's name; such links are skipped with a note.
// Links to directories are not followed inside a walk, so that a link cycle
// cannot make it loop. A directory named by the caller that holds no file
// at all is a problem: a wrong path must not pass for an empty import.
//
// reclaim, when not nil, is asked first for each file (unchanged.go): a
// unit it returns is taken as it is, with its side files, and neither is
// offered to the formats.
func discover(paths []string, formats []Format, reclaim func(path string) (planned, bool)) (units []planned, problems, skipped []Problem, err error) {
	byDir := map[string][]string{}
	seen := map[string]bool{}
	add := func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		d := filepath.Dir(p)
		byDir[d] = append(byDir[d], p)
	}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("import %s: %w", p, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			problems = append(problems, Problem{Path: abs, Reason: fmt.Sprintf("cannot read: %v", err)})
			continue
		}
		if !fi.IsDir() {
			if !fi.Mode().IsRegular() {
				// A FIFO blocks in open until a writer comes, and a device
				// such as /dev/zero never ends: neither is an archive.
				problems = append(problems, Problem{Path: abs, Reason: fmt.Sprintf("not a regular file (%s), skipped", fileKind(fi.Mode()))})
				continue
			}
			add(abs)
			continue
		}
		found, err := walkRoot(abs, add, skipDirOf(formats), &problems, &skipped)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("import %s: %w", p, err)
		}
		if found == 0 {
			problems = append(problems, Problem{Path: abs, Reason: "the directory holds no file to import (is it the right path?)"})
		}
	}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	var out []planned
	for _, d := range dirs {
		files := byDir[d]
		sort.Strings(files)
		units, rest := claimDir(files, formats, reclaim)
		sort.SliceStable(units, func(i, j int) bool { return units[i].unit.Path < units[j].unit.Path })
		for i := range units {
			units[i].files = 1 + len(units[i].unit.Extra)
			units[i].size = fileSize(units[i].unit.Path)
			for _, x := range units[i].unit.Extra {
				units[i].size += fileSize(x)
			}
		}
		out = append(out, units...)
	rest:
		for _, f := range rest {
			for _, fm := range formats {
				if sk, ok := fm.(jsonl.Skipper); ok {
					if reason := sk.SkipReason(f); reason != "" {
						skipped = append(skipped, Problem{Path: f, Reason: reason})
						continue rest
					}
				}
			}
			if r, err := jsonl.Open(f); err != nil {
				// The formats could not sniff it because it cannot be
				// read (mode 000, …): say so rather than "unknown".
				problems = append(problems, Problem{Path: f, Reason: fmt.Sprintf("cannot read: %v", err)})
				continue
			} else {
				r.Close()
			}
			if strings.EqualFold(filepath.Ext(f), ".jsonl") && fileSize(f) == 0 {
				// Agents create a session file before its first line.
				skipped = append(skipped, Problem{Path: f, Reason: "empty JSONL file; skipped"})
				continue
			}
			if strings.EqualFold(filepath.Ext(f), ".jsonl") {
				// A JSONL file may be a session whose first lines are
				// damaged beyond recognition: not silently skipped.
				problems = append(problems, Problem{Path: f, Reason: "JSONL file of unknown format, not imported"})
				continue
			}
			skipped = append(skipped, Problem{Path: f, Reason: "not a session file of a known format; skipped"})
		}
	}
	return out, problems, skipped, nil
}

// claimDir offers the sorted files of one directory to reclaim (nil: none)
// and then to the formats in claim order, and returns the units and the
// files nobody claimed. A file reclaim takes is not offered to the formats,
// nor are its side files; should a format still claim one of them (a side
// file that appeared beside it since: a picoclaw .meta.json next to a
// transcript another format had claimed), the directory is claimed again
// without reclaim, as an import that never saw it would.
func claimDir(files []string, formats []Format, reclaim func(string) (planned, bool)) (units []planned, rest []string) {
	taken := map[string]bool{}
	if reclaim != nil {
		for _, p := range files {
			if u, ok := reclaim(p); ok && !taken[p] {
				units = append(units, u)
				taken[p] = true
				for _, x := range u.unit.Extra {
					taken[x] = true
				}
			}
		}
	}
	rest = slices.DeleteFunc(slices.Clone(files), func(p string) bool { return taken[p] })
	for _, f := range formats {
		var us []Unit
		us, rest = f.Claim(rest)
		for _, u := range us {
			if taken[u.Path] || slices.ContainsFunc(u.Extra, func(x string) bool { return taken[x] }) {
				return claimDir(files, formats, nil)
			}
			if u.Format == "" {
				u.Format = f.Name()
			}
			units = append(units, planned{unit: u, format: f})
		}
	}
	return units, rest
}

// walkRoot walks the directory tree at root (a directory, or a link to
// one), hands every regular file to add, and returns how many files it
// found, skipped ones included. Unreadable directories are problems; links
// to files outside the tree are skipped with a note (see discover).
func walkRoot(root string, add func(string), skipDir func(string) string, problems, skipped *[]Problem) (int, error) {
	// The tree's real location, to tell links that stay inside it from
	// links that leave it. A link named as the root is followed: walking
	// "root/" makes WalkDir resolve it, and the paths stay under the name
	// the user gave.
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		*problems = append(*problems, Problem{Path: root, Reason: fmt.Sprintf("cannot read: %v", err)})
		return 0, nil
	}
	walk := root
	if real != root {
		walk = root + string(filepath.Separator)
	}
	found := 0
	err = filepath.WalkDir(walk, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			*problems = append(*problems, Problem{Path: filepath.Clean(path), Reason: fmt.Sprintf("cannot read: %v", err)})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case d.IsDir():
			if path != walk && skipDir != nil {
				if reason := skipDir(filepath.Clean(path)); reason != "" {
					*skipped = append(*skipped, Problem{Path: filepath.Clean(path), Reason: reason})
					found++ // a folder of the agent's: not an empty walk
					return fs.SkipDir
				}
			}
		case d.Type().IsRegular():
			found++
			add(path)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := filepath.EvalSymlinks(path)
			if err != nil {
				return nil // dangling: nothing to read
			}
			if fi, err := os.Stat(target); err != nil || !fi.Mode().IsRegular() {
				return nil
			}
			found++
			if !within(real, target) {
				*skipped = append(*skipped, Problem{Path: path, Reason: fmt.Sprintf("symbolic link to %s, outside the imported folder; skipped (name that file itself to import it)", target)})
				return nil
			}
			add(path)
		}
		return nil
	})
	return found, err
}

// SkipDir returns why an import walking a tree skips the folder at path
// and all it holds (a format's jsonl.DirSkipper: opencode's snapshots and
// logs beside its database), or "" when it is walked. A watcher skips the
// same folders.
func SkipDir(path string) string {
	if f := skipDirOf(Formats()); f != nil {
		return f(path)
	}
	return ""
}

// skipDirOf returns the formats' folder skipping (jsonl.DirSkipper): the
// first reason a format gives for a folder.
func skipDirOf(formats []Format) func(string) string {
	var ds []jsonl.DirSkipper
	for _, f := range formats {
		if d, ok := f.(jsonl.DirSkipper); ok {
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 {
		return nil
	}
	return func(dir string) string {
		for _, d := range ds {
			if r := d.SkipDir(dir); r != "" {
				return r
			}
		}
		return ""
	}
}

// within reports whether path lies inside the directory dir (both
// cleaned, absolute, links resolved).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// fileKind names a non-regular file's type for a problem report.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}
