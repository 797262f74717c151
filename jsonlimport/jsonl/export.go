package jsonl

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

// MaxNameLen is the longest file name (one path component) the export
// writes: NAME_MAX on Linux, macOS and Windows file systems.
const MaxNameLen = 255

// File is one file an Exporter produces for a session: its path
// relative to the export directory ("/"-separated) and a function that
// writes its content. A nil write means the file must not exist after the
// export (a stale swink interrupt file).
type File struct {
	Rel   string
	Write func(io.Writer) error
}

// Exporter is implemented by every Format: it renders a session into the
// files it would write, without touching the file system.
type Exporter interface {
	ExportFiles(ctx context.Context, s sessiondb.Store, id string) ([]File, error)
}

// Translator returns store s as a Format named format reads it: a store
// whose session id has its bodies translated into the format's shapes,
// nil when they need no translation, or an error when the session cannot
// be written in the format. jsonlimport, which knows every format's
// messages, sets it (SetTranslator).
type Translator func(ctx context.Context, s sessiondb.Store, id, format string) (sessiondb.Store, error)

var translator Translator

// SetTranslator sets the translation Render applies; the importer
// package calls it once, at init.
func SetTranslator(t Translator) { translator = t }

// A ForeignWriter returns the file a format that writes its own sessions
// back as they were imported (Claude Code, Codex, pi) writes for session
// sess, which was imported from another format: the session translated
// into the format's lines, or an error when it cannot be written in the
// format. jsonlimport, which knows every format's messages, sets it
// (SetForeignWriter).
type ForeignWriter func(ctx context.Context, s sessiondb.Store, sess sessiondb.Session, format string) ([]byte, error)

var foreignWriter ForeignWriter

// SetForeignWriter sets what WriteForeign does; the importer package calls
// it once, at init.
func SetForeignWriter(w ForeignWriter) { foreignWriter = w }

// WriteForeign returns the file format writes for session sess of another
// format (the ForeignWriter's answer), or an error wrapping
// sessiondb.ErrInvalid when no ForeignWriter is set.
func WriteForeign(ctx context.Context, s sessiondb.Store, sess sessiondb.Session, format string) ([]byte, error) {
	if foreignWriter == nil {
		return nil, fmt.Errorf("export %s %s: a session of %s is not translated: %w", format, sess.ID, sess.SourceFormat, sessiondb.ErrInvalid)
	}
	return foreignWriter(ctx, s, sess, format)
}

// Render renders session id with ex. picoclaw, zot and swink write
// a session's bodies as stored: a session of another format is given to
// them translated into their shapes, or refused (the Translator).
func Render(ctx context.Context, ex Exporter, s sessiondb.Store, id string) ([]File, error) {
	if f, ok := ex.(Format); ok && translator != nil {
		ts, err := translator(ctx, s, id, f.Name())
		if err != nil {
			return nil, err
		}
		if ts != nil {
			s = ts
		}
	}
	return ex.ExportFiles(ctx, s, id)
}

// ExportDir writes one session's files into dir, replacing existing files:
// the Format.Export methods, which write one session at a time.
func ExportDir(ctx context.Context, ex Exporter, s sessiondb.Store, id, dir string) ([]string, error) {
	files, err := Render(ctx, ex, s, id)
	if err != nil {
		return nil, err
	}
	plan := NewPlan(dir, true)
	for _, f := range files {
		if err := plan.Add(id, f); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	if err := plan.CheckDisk(); err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		p, err := plan.Write(f)
		if err != nil {
			return out, err
		}
		if p != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

// NewPlan returns an empty plan of an export into dir; with force, its
// files replace existing ones.
func NewPlan(dir string, force bool) *Plan {
	return &Plan{dir: dir, force: force, owner: map[string]string{}}
}

// Plan holds the paths an export will write, checked before any is.
type Plan struct {
	dir   string
	force bool
	// owner maps a case-folded relative path to the session writing it.
	owner map[string]string
	rels  []string
	dirs  map[string]bool // relative directories to create
}

// Add checks and adds one relative path of session id: every component a plain
// file name (not empty, ".", "..", no NUL, at most MaxNameLen bytes), so
// that the path lies inside the export directory, and no other session
// writing the same path, compared case-insensitively.
func (p *Plan) Add(id string, f File) error {
	rel := f.Rel
	if err := checkRel(rel); err != nil {
		if f.Write == nil && errors.Is(err, errNameTooLong) {
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

// Check reports whether the files of session id are fit to add on their
// own (plain file names inside the directory, none twice), without adding
// any. Whether another session takes one of them is Add's to say.
func (p *Plan) Check(id string, files []File) error {
	trial := NewPlan(p.dir, false)
	for _, f := range files {
		if err := trial.Add(id, f); err != nil {
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
		case len(c) > MaxNameLen:
			return fmt.Errorf("%w: %w: export file name of %d bytes is longer than the %d-byte file-name limit (%.40q…)", sessiondb.ErrInvalid, errNameTooLong, len(c), MaxNameLen, c)
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

// CheckDisk checks the planned paths against what is on disk: every
// planned directory is absent or a real directory (not a symbolic link,
// which could lead out of the output directory), and, without force, no
// planned file exists. All existing files are named in one error.
func (p *Plan) CheckDisk() error {
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

// Write creates the directories of f and writes it, returning its path
// ("" for a removal). Directories are created one component at a time and
// checked not to be symbolic links. Without force a file is created with
// O_EXCL, which fails rather than replace a file or follow a link created
// since the plan was checked; with force it is written to a temporary file
// and renamed into place, which replaces a link rather than following it.
func (p *Plan) Write(f File) (string, error) {
	parent := p.dir
	if d := pathDir(f.Rel); d != "" {
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
	path := filepath.Join(p.dir, filepath.FromSlash(f.Rel))
	if f.Write == nil {
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
		err = f.Write(out)
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
	err = f.Write(tmp)
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

// BytesFile is a File whose content is data.
func BytesFile(rel string, data []byte) File {
	return File{Rel: rel, Write: func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}}
}
