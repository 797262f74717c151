package jsonlimport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb"
)

// ExportOptions configures ExportWith.
type ExportOptions struct {
	// Force lets the export replace files that already exist in the output
	// directory (and remove a stale swink interrupt file). Without it an
	// export that would replace or remove anything writes nothing and fails
	// with ErrExists, naming the files.
	Force bool
	// Skip, when set, is told about each session that cannot be exported
	// (the format cannot render it, or one of its paths is not a plain
	// file name inside the directory) and the export goes on without it.
	// Unset, the first such session fails the whole export, with nothing
	// written. Two sessions that map to one file, existing files and
	// errors of the file system always fail the whole export.
	Skip func(id string, err error)
}

// maxNameLen is the longest file name (one path component) the export
// writes: NAME_MAX on Linux, macOS and Windows file systems.
const maxNameLen = 255

// exportFile is one file an exporter produces for a session: its path
// relative to the export directory ("/"-separated) and a function that
// writes its content. A nil write means the file must not exist after the
// export (a stale swink interrupt file).
type exportFile struct {
	rel   string
	write func(io.Writer) error
}

// exporter is implemented by every Format: it renders a session into the
// files it would write, without touching the file system.
type exporter interface {
	exportFiles(ctx context.Context, s sessiondb.Store, id string) ([]exportFile, error)
}

// renderFiles renders session id with ex. picoclaw, zot and swink write
// a session's bodies as stored: a session of another format is given to
// them translated into their shapes, or refused (translatedStore).
func renderFiles(ctx context.Context, ex exporter, s sessiondb.Store, id string) ([]exportFile, error) {
	if f, ok := ex.(Format); ok {
		ts, err := translatedStore(ctx, s, id, f.Name())
		if err != nil {
			return nil, err
		}
		if ts != nil {
			s = ts
		}
	}
	return ex.exportFiles(ctx, s, id)
}

// Export is ExportWith without Force: it never replaces an existing file.
func Export(ctx context.Context, store sessiondb.Store, ids []string, format string, dir string) ([]string, error) {
	return ExportWith(ctx, store, ids, format, dir, ExportOptions{})
}

// ExportWith writes the sessions ids (IDs or aliases) from store into dir in
// the named format and returns the files written (on error too: the files
// written before the failure). dir is created (0700) when missing.
//
// Every session is rendered and every path planned before anything is
// written, so that a session that cannot be exported, a path that would
// leave dir or exceed a file-name limit, two sessions that map to one file
// (also when the names differ only in case, which collides on
// case-insensitive file systems) and, without Force, an existing file are
// refused with nothing written (with opts.Skip, such a session is reported
// and left out instead). Files are created 0600 and directories
// 0700, as the database is; symbolic links inside dir are never followed.
// Each session is rendered twice (to plan, then to write), so that memory
// stays bounded by the largest session, not the whole export.
func ExportWith(ctx context.Context, store sessiondb.Store, ids []string, format string, dir string, opts ExportOptions) ([]string, error) {
	f := lookupFormat(format)
	if f == nil {
		return nil, fmt.Errorf("export: unknown format %q (want %s): %w", format, fmt.Sprint(formatNames()), sessiondb.ErrInvalid)
	}
	ex, ok := f.(exporter)
	if !ok {
		return nil, fmt.Errorf("export: format %q cannot export: %w", format, sessiondb.ErrInvalid)
	}
	resolved := make([]string, 0, len(ids))
	seenID := map[string]bool{}
	for _, idOrAlias := range ids {
		// A session ID names that session; only a name that is no
		// session's ID is resolved as an alias. (Resolve lets an alias
		// win over a session ID that contains ':', as picoclaw does, so
		// the exact IDs of a listing must not go through it.)
		id := idOrAlias
		if _, err := store.Get(ctx, id); errors.Is(err, sessiondb.ErrNotFound) {
			if id, err = store.Resolve(ctx, idOrAlias); err != nil {
				return nil, fmt.Errorf("export %s: %w", idOrAlias, err)
			}
		} else if err != nil {
			return nil, fmt.Errorf("export %s: %w", idOrAlias, err)
		}
		if !seenID[id] {
			seenID[id] = true
			resolved = append(resolved, id)
		}
	}

	// Plan: render every session, check every path.
	plan := &exportPlan{dir: dir, force: opts.Force, owner: map[string]string{}}
	planned := make([][]string, len(resolved))
	skipped := make([]bool, len(resolved))
	for i, id := range resolved {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		files, err := renderFiles(ctx, ex, store, id)
		if err != nil {
			err = fmt.Errorf("export %s: %w", id, err)
		} else {
			err = plan.check(id, files)
		}
		if err != nil {
			if opts.Skip == nil || ctx.Err() != nil {
				return nil, err
			}
			opts.Skip(id, err)
			skipped[i] = true
			continue
		}
		for _, file := range files {
			if err := plan.add(id, file); err != nil {
				return nil, err
			}
			planned[i] = append(planned[i], file.rel)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("export: create %s: %w", dir, err)
	}
	if err := plan.checkDisk(); err != nil {
		return nil, err
	}

	// Write, rendering each session again.
	var out []string
	for i, id := range resolved {
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("export: %w", err)
		}
		if skipped[i] {
			continue
		}
		files, err := renderFiles(ctx, ex, store, id)
		if err != nil {
			return out, fmt.Errorf("export %s: %w", id, err)
		}
		if !sameRels(files, planned[i]) {
			return out, fmt.Errorf("export %s: the session changed during the export; run it again: %w", id, sessiondb.ErrConflict)
		}
		for _, file := range files {
			p, err := plan.write(file)
			if err != nil {
				return out, fmt.Errorf("export %s: %w", id, err)
			}
			if p != "" {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// exportDir writes one session's files into dir, replacing existing files:
// the Format.Export methods, which write one session at a time.
func exportDir(ctx context.Context, ex exporter, s sessiondb.Store, id, dir string) ([]string, error) {
	files, err := renderFiles(ctx, ex, s, id)
	if err != nil {
		return nil, err
	}
	plan := &exportPlan{dir: dir, force: true, owner: map[string]string{}}
	for _, f := range files {
		if err := plan.add(id, f); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	if err := plan.checkDisk(); err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		p, err := plan.write(f)
		if err != nil {
			return out, err
		}
		if p != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

func sameRels(files []exportFile, rels []string) bool {
	if len(files) != len(rels) {
		return false
	}
	for i, f := range files {
		if f.rel != rels[i] {
			return false
		}
	}
	return true
}

// exportPlan holds the paths an export will write, checked before any is.
type exportPlan struct {
	dir   string
	force bool
	// owner maps a case-folded relative path to the session writing it.
	owner map[string]string
	rels  []string
	dirs  map[string]bool // relative directories to create
}

// add checks and adds one relative path of session id: every component a plain
// file name (not empty, ".", "..", no NUL, at most maxNameLen bytes), so
// that the path lies inside the export directory, and no other session
// writing the same path, compared case-insensitively.
func (p *exportPlan) add(id string, f exportFile) error {
	rel := f.rel
	if err := checkRel(rel); err != nil {
		if f.write == nil && errors.Is(err, errNameTooLong) {
			return nil // a removal of a file that cannot exist
		}
		return fmt.Errorf("export %s: %w", id, err)
	}
	key := strings.ToLower(rel)
	if other, ok := p.owner[key]; ok {
		if other == id {
			return fmt.Errorf("export %s: file %s planned twice: %w", id, rel, sessiondb.ErrInvalid)
		}
		return fmt.Errorf("export %s: sessions %q and %q map to the same file %s (or to names that differ only in case); export them into different directories: %w",
			id, other, id, filepath.Join(p.dir, filepath.FromSlash(rel)), sessiondb.ErrExists)
	}
	p.owner[key] = id
	p.rels = append(p.rels, rel)
	if p.dirs == nil {
		p.dirs = map[string]bool{}
	}
	for d := pathDir(rel); d != ""; d = pathDir(d) {
		p.dirs[d] = true
	}
	return nil
}

// check reports whether the files of session id are fit to add on their
// own (plain file names inside the directory, none twice), without adding
// any. Whether another session takes one of them is add's to say.
func (p *exportPlan) check(id string, files []exportFile) error {
	trial := &exportPlan{dir: p.dir, owner: map[string]string{}}
	for _, f := range files {
		if err := trial.add(id, f); err != nil {
			return err
		}
	}
	return nil
}

var errNameTooLong = errors.New("file name too long")

// checkRel reports whether rel is a relative path whose every component
// is an ordinary file name.
func checkRel(rel string) error {
	if rel == "" || strings.HasPrefix(rel, "/") {
		return fmt.Errorf("%w: export path %q is not relative", sessiondb.ErrInvalid, rel)
	}
	for _, c := range strings.Split(rel, "/") {
		switch {
		case c == "" || c == "." || c == "..":
			return fmt.Errorf("%w: export path %q has a component %q that would not name a file inside the output directory", sessiondb.ErrInvalid, rel, c)
		case strings.ContainsAny(c, "\x00\\"):
			return fmt.Errorf("%w: export file name %q contains NUL or a backslash", sessiondb.ErrInvalid, c)
		case len(c) > maxNameLen:
			return fmt.Errorf("%w: %w: export file name of %d bytes is longer than the %d-byte file-name limit (%.40q…)", sessiondb.ErrInvalid, errNameTooLong, len(c), maxNameLen, c)
		case !utf8.ValidString(c):
			return fmt.Errorf("%w: export file name %q is not valid UTF-8", sessiondb.ErrInvalid, c)
		}
	}
	return nil
}

func pathDir(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

// checkDisk checks the planned paths against what is on disk: every
// planned directory is absent or a real directory (not a symbolic link,
// which could lead out of the output directory), and, without force, no
// planned file exists. All existing files are named in one error.
func (p *exportPlan) checkDisk() error {
	dirs := make([]string, 0, len(p.dirs))
	for d := range p.dirs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		abs := filepath.Join(p.dir, filepath.FromSlash(d))
		fi, err := os.Lstat(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return fmt.Errorf("export: %w", err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("export: %s is a symbolic link; refusing to follow it out of the output directory: %w", abs, sessiondb.ErrInvalid)
		case !fi.IsDir():
			return fmt.Errorf("export: %s exists and is not a directory: %w", abs, sessiondb.ErrExists)
		}
	}
	var existing []string
	for _, rel := range p.rels {
		abs := filepath.Join(p.dir, filepath.FromSlash(rel))
		fi, err := os.Lstat(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return fmt.Errorf("export: %w", err)
		case fi.IsDir():
			return fmt.Errorf("export: %s exists and is a directory: %w", abs, sessiondb.ErrExists)
		}
		existing = append(existing, abs)
	}
	if len(existing) > 0 && !p.force {
		more := ""
		if len(existing) > 3 {
			more = fmt.Sprintf(" and %d more", len(existing)-3)
			existing = existing[:3]
		}
		return fmt.Errorf("export: %s%s already exist; nothing was written (pass --force to replace): %w", strings.Join(existing, ", "), more, sessiondb.ErrExists)
	}
	return nil
}

// write creates the directories of f and writes it, returning its path
// ("" for a removal). Directories are created one component at a time and
// checked not to be symbolic links. Without force a file is created with
// O_EXCL, which fails rather than replace a file or follow a link created
// since the plan was checked; with force it is written to a temporary file
// and renamed into place, which replaces a link rather than following it.
func (p *exportPlan) write(f exportFile) (string, error) {
	parent := p.dir
	if d := pathDir(f.rel); d != "" {
		for _, c := range strings.Split(d, "/") {
			parent = filepath.Join(parent, c)
			if err := os.Mkdir(parent, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return "", err
			}
			fi, err := os.Lstat(parent)
			if err != nil {
				return "", err
			}
			if !fi.IsDir() {
				return "", fmt.Errorf("%s is not a directory (a symbolic link?): %w", parent, sessiondb.ErrInvalid)
			}
		}
	}
	path := filepath.Join(p.dir, filepath.FromSlash(f.rel))
	if f.write == nil {
		if !p.force {
			if _, err := os.Lstat(path); err == nil {
				return "", fmt.Errorf("stale %s exists (pass --force to remove it): %w", path, sessiondb.ErrExists)
			}
			return "", nil
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		return "", nil
	}
	if !p.force {
		out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			if errors.Is(err, fs.ErrExist) {
				return "", fmt.Errorf("%s appeared during the export; not replaced: %w", path, sessiondb.ErrExists)
			}
			return "", err
		}
		err = f.write(out)
		if err == nil {
			err = out.Sync()
		}
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
			return "", fmt.Errorf("write %s: %w", path, err)
		}
		return path, nil
	}
	tmp, err := os.CreateTemp(parent, ".export-*.tmp") // 0600, O_EXCL
	if err != nil {
		return "", err
	}
	name := tmp.Name()
	err = f.write(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// bytesFile is an exportFile whose content is data.
func bytesFile(rel string, data []byte) exportFile {
	return exportFile{rel: rel, write: func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}}
}
