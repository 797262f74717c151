package cursoragent

// Where a transcript lies: its project's folder (whose name is the
// project's path made a slug), the project's path, and the transcript of
// the session a sub-agent's belongs to.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// TrustFile is the file Cursor writes in a project's folder when the
// workspace is trusted: {"trustedAt", "workspacePath", "trustMethod"}.
const TrustFile = ".workspace-trusted"

// Location is what a transcript's path says.
type Location struct {
	// Dir is the project's folder (projects/<slug>), "" when the file
	// does not lie in an agent-transcripts folder.
	Dir string
	// Slug is the project folder's name.
	Slug string
	// CWD is the project's path when it can be told (ProjectPath).
	CWD string
	// Parent is the name of the transcript folder a sub-agent's
	// transcript lies in (agent-transcripts/<parent>/subagents/), else
	// the folder of the transcript itself (agent-transcripts/<id>/).
	Parent string
}

// Project is the session's project: its path, else the slug.
func (l Location) Project() string {
	if l.CWD != "" {
		return l.CWD
	}
	return l.Slug
}

// Locate reads path as a transcript of Cursor's layout:
// <dir>/agent-transcripts/<id>.jsonl, <dir>/agent-transcripts/<id>/<id>.jsonl
// or <dir>/agent-transcripts/<parent>/subagents/<id>.jsonl.
func Locate(path string) Location {
	dir := filepath.Dir(path)
	var l Location
	for i := 0; i < 3; i++ {
		if filepath.Base(dir) == TranscriptsDir {
			l.Dir = filepath.Dir(dir)
			break
		}
		if i == 0 {
			l.Parent = filepath.Base(dir)
		}
		if filepath.Base(dir) == SubagentsDir && i == 0 {
			l.Parent = filepath.Base(filepath.Dir(dir))
		}
		dir = filepath.Dir(dir)
	}
	if l.Dir == "" {
		return Location{}
	}
	if filepath.Dir(path) == filepath.Join(l.Dir, TranscriptsDir) {
		l.Parent = ""
	}
	l.Slug = filepath.Base(l.Dir)
	l.CWD = ProjectPath(l.Dir)
	return l
}

// nonAlnum is what Cursor's slug replaces: every run of characters that
// are not ASCII letters or digits.
var nonAlnum = regexp.MustCompile(`[^A-Za-z0-9]+`)

// Slugs returns the names Cursor may give the folder of the project at
// path (cursor-agent's workspace-paths.js, as read by others): every run
// of characters that are not letters or digits becomes "-", the ends are
// trimmed; a name longer than 92 characters is cut to 84 and given "-"
// and the first seven hex digits of a SHA-256 (of the path; of the name,
// which the sources do not settle, is the second candidate).
func Slugs(path string) []string {
	s := strings.Trim(nonAlnum.ReplaceAllString(path, "-"), "-")
	if len(s) <= 92 {
		return []string{s}
	}
	var out []string
	for _, of := range []string{path, s} {
		sum := sha256.Sum256([]byte(of))
		out = append(out, s[:84]+"-"+hex.EncodeToString(sum[:])[:7])
	}
	return out
}

// ProjectPath returns the path of the project whose folder is dir
// (projects/<slug>): the workspacePath of its .workspace-trusted when
// that path gives the folder's name, else a folder of this machine whose
// path gives the name (walked down from /, one name at a time), else "".
// The name alone cannot be read back: "a-b" is the slug of /a/b, /a-b
// and /a_b.
func ProjectPath(dir string) string {
	slug := filepath.Base(dir)
	if b, err := jsonl.ReadFile(filepath.Join(dir, TrustFile), 1<<20); err == nil {
		var t struct {
			WorkspacePath string `json:"workspacePath"`
		}
		if json.Unmarshal(b, &t) == nil && t.WorkspacePath != "" {
			for _, s := range Slugs(t.WorkspacePath) {
				if s == slug {
					return t.WorkspacePath
				}
			}
		}
	}
	if len(slug) > 92 || slug == "" {
		return ""
	}
	if p, ok := resolved.Load(dir); ok {
		return p.(string)
	}
	budget := 64
	p := resolve(string(filepath.Separator), slug, &budget)
	if p != "" {
		// Kept for the process: a watcher reads a growing transcript
		// again and again, and the folders it found do not move.
		resolved.Store(dir, p)
	}
	return p
}

// resolved holds the paths ProjectPath found on the file system, by
// project folder.
var resolved sync.Map

// resolve finds under dir a folder whose path relative to dir makes the
// slug rest, reading at most budget folders.
func resolve(dir, rest string, budget *int) string {
	if *budget <= 0 {
		return ""
	}
	*budget--
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, n := range names {
		s := strings.Trim(nonAlnum.ReplaceAllString(n, "-"), "-")
		if s == "" {
			continue
		}
		if s == rest {
			return filepath.Join(dir, n)
		}
	}
	for _, n := range names {
		s := strings.Trim(nonAlnum.ReplaceAllString(n, "-"), "-")
		if s != "" && strings.HasPrefix(rest, s+"-") {
			if p := resolve(filepath.Join(dir, n), rest[len(s)+1:], budget); p != "" {
				return p
			}
		}
	}
	return ""
}
