package entire

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Name names the entire format.
const Name = "entire"

// Format reads the checkpoints Entire commits to a git repository's
// entire/checkpoints/v1 branch (see the package doc). It is a
// jsonl.StoreFormat: the repository is the store, each agent session on
// the branch one of its sessions, read by the agent's own reader.
type Format struct{}

var (
	_ jsonl.Format        = Format{}
	_ jsonl.StoreFormat   = Format{}
	_ jsonl.DirSkipper    = Format{}
	_ jsonl.MessageReader = Format{}
)

// Name returns Name.
func (Format) Name() string { return Name }

var readers func() []jsonl.Format

// SetReaders sets where Parse finds the readers of the agents' own
// transcripts: the importer's registry, in its claim order, without the
// stores (package jsonlimport calls it once, at init). A transcript is
// offered to them as a file of a directory is, and the first that claims
// it reads it.
func SetReaders(f func() []jsonl.Format) { readers = f }

// gitInternals are the folders of a git directory that hold git's own
// data (objects, refs, logs, hooks, …), never a session file.
var gitInternals = map[string]bool{
	"objects": true, "refs": true, "logs": true, "hooks": true, "info": true, "lfs": true,
	"worktrees": true, "modules": true, "rr-cache": true, "branches": true, "reftable": true,
}

// isGitDir reports whether dir is a git directory: a HEAD file and an
// objects folder (or, for a linked worktree's, a commondir file).
func isGitDir(dir string) bool {
	if fi, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if fi, err := os.Stat(filepath.Join(dir, "objects")); err == nil && fi.IsDir() {
		return true
	}
	_, err := os.Stat(filepath.Join(dir, "commondir"))
	return err == nil
}

// commonDir returns the directory that holds the refs of git directory
// dir: its commondir for a linked worktree's, else dir.
func commonDir(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "commondir"))
	if err != nil {
		return dir
	}
	c := strings.TrimSpace(string(data))
	if !filepath.IsAbs(c) {
		c = filepath.Join(dir, c)
	}
	return filepath.Clean(c)
}

// hasBranch reports whether git directory dir has the checkpoint branch
// or a remote's copy of it, by its ref files (loose or packed): Claim
// runs no git.
func hasBranch(dir string) bool {
	c := commonDir(dir)
	if fi, err := os.Stat(filepath.Join(c, "refs", "heads", filepath.FromSlash(Branch))); err == nil && fi.Mode().IsRegular() {
		return true
	}
	if m, _ := filepath.Glob(filepath.Join(c, "refs", "remotes", "*", filepath.FromSlash(Branch))); len(m) > 0 {
		return true
	}
	packed, err := os.ReadFile(filepath.Join(c, "packed-refs"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(packed), "\n") {
		_, ref, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok && (ref == "refs/heads/"+Branch || (strings.HasPrefix(ref, "refs/remotes/") && strings.HasSuffix(ref, "/"+Branch))) {
			return true
		}
	}
	return false
}

// refFiles lists the files whose change means the branch moved: the
// loose refs of the branch and of remotes' copies, and packed-refs.
func refFiles(dir string) []string {
	c := commonDir(dir)
	var out []string
	for _, p := range []string{filepath.Join(c, "refs", "heads", filepath.FromSlash(Branch)), filepath.Join(c, "packed-refs")} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	m, _ := filepath.Glob(filepath.Join(c, "refs", "remotes", "*", filepath.FromSlash(Branch)))
	return append(out, m...)
}

// Claim takes, in one directory, the HEAD file of a git directory whose
// repository has the checkpoint branch (the unit of the repository: a
// store whose sessions the importer lists), with git's other files beside
// it, and the .git file of a worktree ("gitdir: …") whose repository has
// it. Extra lists the ref files, so that a watcher sees the branch move.
func (Format) Claim(files []string) (units []jsonl.Unit, rest []string) {
	gitDir := ""
	for _, f := range files {
		if filepath.Base(f) == "HEAD" && isGitDir(filepath.Dir(f)) && hasBranch(filepath.Dir(f)) {
			gitDir = filepath.Dir(f)
			units = append(units, jsonl.Unit{Format: Name, Path: f, Extra: refFiles(gitDir)})
		}
	}
	for _, f := range files {
		switch {
		case gitDir != "" && filepath.Dir(f) == gitDir:
			// git's own files (config, index, packed-refs, …): read
			// with the repository.
		case underRefs(f):
			// The refs of a repository with the branch: read with it.
		case filepath.Base(f) == ".git" && worktreeLink(f) != "":
			d := worktreeLink(f)
			units = append(units, jsonl.Unit{Format: Name, Path: f, Extra: refFiles(d)})
		default:
			rest = append(rest, f)
		}
	}
	return units, rest
}

// underRefs reports whether path lies in the refs folder of a git
// directory whose repository has the branch (SkipDir lets a walk into it).
func underRefs(path string) bool {
	for d := filepath.Dir(path); ; {
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		if filepath.Base(d) == "refs" {
			return isGitDir(parent) && hasBranch(parent)
		}
		d = parent
	}
}

// worktreeLink returns the git directory a worktree's .git file names,
// when it is one whose repository has the branch, else "".
func worktreeLink(path string) string {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return ""
	}
	d, err := findGitDir(path)
	if err != nil || !isGitDir(d) || !hasBranch(d) {
		return ""
	}
	return d
}

// shardRE is the name of a shard folder of the branch: the first two hex
// characters of the checkpoint ids it holds.
var shardRE = regexp.MustCompile(`^[0-9a-f]{2}$`)

// SkipDir implements jsonl.DirSkipper: an import walking a tree skips
// git's own folders inside a git directory (objects, refs, logs, …,
// which hold no session), and the shard folders of a worktree that has
// the checkpoint branch checked out (their transcripts are read from the
// repository, with their checkpoints' metadata; the agents' readers
// would otherwise take each full.jsonl as a session of its own).
func (Format) SkipDir(path string) string {
	parent, base := filepath.Dir(path), filepath.Base(path)
	if gitInternals[base] && isGitDir(parent) {
		if base == "refs" && hasBranch(parent) {
			// Walked (a few small files, which Claim takes), so that a
			// watcher sees the branch move.
			return ""
		}
		return "git's own data in a git directory; skipped"
	}
	if shardRE.MatchString(base) && checkedOutBranch(parent) {
		return "a checkout of Entire's " + Branch + " branch: its sessions are read from the repository's branch; skipped"
	}
	return ""
}

// checkedOutBranch reports whether the working tree dir has the
// checkpoint branch checked out (its .git's HEAD names the branch).
func checkedOutBranch(dir string) bool {
	git := filepath.Join(dir, ".git")
	fi, err := os.Stat(git)
	if err != nil {
		return false
	}
	gd := git
	if fi.Mode().IsRegular() {
		if gd, err = findGitDir(git); err != nil {
			return false
		}
	}
	head, err := os.ReadFile(filepath.Join(gd, "HEAD"))
	return err == nil && strings.TrimSpace(string(head)) == "ref: refs/heads/"+Branch
}

// ErrNoExport is returned by Export: the branch is Entire's, written by
// Entire alone. A session read from it is the agent's (its source format
// is the agent's), and is exported in that format. It wraps
// sessiondb.ErrInvalid.
var ErrNoExport = fmt.Errorf("sessions are not written in this format (Entire's branch is written by Entire; export the session in its agent's format): %w", sessiondb.ErrInvalid)

// Export implements jsonl.Format: it refuses (ErrNoExport).
func (Format) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("export %s %s: %w", Name, id, ErrNoExport)
}

// Parse reads one session of a repository (a unit Sessions listed)
// through its agent's reader; see the package doc. It reads the
// transcript whole: a resumed import (Resume.Offset > 0) gets
// jsonl.ErrNotIncremental, after which the importer keeps only the
// entries after those it imported.
func (f Format) Parse(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (parsed *jsonl.Parsed, err error) {
	defer func() {
		if r := recover(); r != nil {
			parsed, err = nil, fmt.Errorf("parse %s %s: internal error: %v", Name, u.Path, r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	store, key, ok := jsonl.SplitSessionPath(u.Path)
	if !ok {
		return nil, fmt.Errorf("parse %s %s: not a session of a repository: %w", Name, u.Path, sessiondb.ErrInvalid)
	}
	if from.Offset > 0 {
		return nil, jsonl.ErrNotIncremental
	}
	l, release, err := listingFor(ctx, store, from.Cache)
	if err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	defer release()
	s := l.sessions[key]
	if s == nil || s.file == "" {
		return nil, fmt.Errorf("parse %s %s: the session is no longer on the branch: %w", Name, u.Path, sessiondb.ErrNotFound)
	}
	file, err := l.whole(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	reader, unit := claimTranscript(file)
	if reader == nil {
		return nil, fmt.Errorf("parse %s %s: the transcript is of no format this importer reads: %w", Name, u.Path, sessiondb.ErrInvalid)
	}
	pd, err := reader.Parse(ctx, unit, jsonl.Resume{Entries: from.Entries, State: from.State})
	if err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	pd.Unit = u
	rename := func(ps []jsonl.Problem) {
		for i := range ps {
			if ps[i].Path == s.file || filepath.Dir(ps[i].Path) == filepath.Dir(s.file) || strings.HasPrefix(ps[i].Path, filepath.Dir(s.file)+string(filepath.Separator)) {
				ps[i].Path = u.Path
			}
		}
	}
	rename(pd.Problems)
	rename(pd.Notes)
	attrs, err := withEntire(pd.Session.Attrs, s.attrs())
	if err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	pd.Session.Attrs = attrs
	return pd, nil
}

// claimTranscript offers the transcript file to the readers (SetReaders)
// and returns the first that claims it, with its unit.
func claimTranscript(path string) (jsonl.Format, jsonl.Unit) {
	if readers == nil {
		return nil, jsonl.Unit{}
	}
	for _, r := range readers() {
		if r.Name() == Name {
			continue
		}
		if _, isStore := r.(jsonl.StoreFormat); isStore {
			continue
		}
		us, _ := r.Claim([]string{path})
		for _, u := range us {
			if u.Path == path {
				if u.Format == "" {
					u.Format = r.Name()
				}
				return r, u
			}
		}
	}
	return nil, jsonl.Unit{}
}

// HasBranch reports whether dir is a git directory whose repository has
// Entire's checkpoint branch, or a remote's copy of it (by its ref files;
// no git is run).
func HasBranch(dir string) bool { return isGitDir(dir) && hasBranch(dir) }

var shapeReader jsonl.MessageReader

// SetShapeReader sets the reader Understand hands bodies to: the
// importer's reading of a body by its shape (package jsonlimport calls
// it once, at init).
func SetShapeReader(r jsonl.MessageReader) { shapeReader = r }

// Understand implements jsonl.MessageReader. No stored session is of this
// format (a session read from the branch keeps its agent's format, whose
// reader reads its messages); a body given under this name is read by its
// shape (SetShapeReader), as the importer reads a body of a format it
// does not know, else as the default extractor reads it.
func (Format) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	if shapeReader != nil {
		return shapeReader.Understand(e, obj)
	}
	return jsonl.Extracted(e)
}
