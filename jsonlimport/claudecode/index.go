package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// The index of a Claude Code project folder's API responses, which
// decides in which transcript a response copied into several of them is
// counted (see ccCopies). It is kept per folder and updated, not rebuilt,
// when the transcript being resumed only grew: an append then costs the
// new lines, not the folder.

// ccKeys is the responses of one transcript, cached by size and time.
type ccKeys struct {
	size int64
	mod  time.Time
	id   jsonl.Inode
	end  int64  // offset after the last complete line scanned
	tail string // tailHash before end
	keys map[string]ccReport
	// empty: the report of keys[k] counted no token.
	empty map[string]bool
	// only, when not nil, leaves out the lines it is false for
	// (ccMentions): keys then holds the responses of the others only.
	only func([]byte) bool
}

// ccProject is the index of one project folder. mu guards files, stamps
// and the building of idx; idx itself is never changed once published,
// so lookups need no lock.
type ccProject struct {
	mu     sync.Mutex
	files  map[string]*ccKeys
	stamps map[string]string // path → size and modification time
	idx    *ccIndex
}

// ccIndex is a project folder's responses: for each CallID the best and
// the second best report (ccWins) of two different transcripts, so that
// any transcript can learn the best report among the others in one
// lookup. over holds the updates since base was built (an append's few
// keys); it is merged into a new base when it grows large.
type ccIndex struct {
	base map[string][2]ccReport
	many map[string]bool // CallIDs held by three transcripts or more
	over map[string]ccSlot
}

type ccSlot struct {
	best [2]ccReport
	many bool
}

func (x *ccIndex) get(k string) ([2]ccReport, bool) {
	if x == nil {
		return [2]ccReport{}, false
	}
	if s, ok := x.over[k]; ok {
		return s.best, s.many
	}
	return x.base[k], x.many[k]
}

// ccOverMax is how many updated keys an index holds beside its base.
const ccOverMax = 4096

// ccProjectsMax bounds the project folders whose indexes a process keeps
// (the least recently used go first). They were kept for the process's
// life: an import of an archive, or a watcher, held the responses of every
// folder it had seen, a structure that grew with the archive (issue 42).
// An importer goes through the folders one after the other, a watcher
// follows the few being written; an evicted folder is indexed again from
// its files when one of them is read again.
const ccProjectsMax = 16

var ccProjects = struct {
	sync.Mutex
	dirs  map[string]*ccProject
	order []string // least recently used first
}{dirs: map[string]*ccProject{}}

// ccProjectOf returns the kept index of folder project (a new one when
// none), most recently used now.
func ccProjectOf(project string) *ccProject {
	ccProjects.Lock()
	defer ccProjects.Unlock()
	pr := ccProjects.dirs[project]
	if pr == nil {
		pr = &ccProject{files: map[string]*ccKeys{}}
		ccProjects.dirs[project] = pr
	}
	if i := slices.Index(ccProjects.order, project); i >= 0 {
		ccProjects.order = slices.Delete(ccProjects.order, i, i+1)
	}
	ccProjects.order = append(ccProjects.order, project)
	for len(ccProjects.order) > ccProjectsMax {
		delete(ccProjects.dirs, ccProjects.order[0])
		ccProjects.order = ccProjects.order[1:]
	}
	return pr
}

// ccCopies returns the lookup of the responses held by the other
// transcripts of path's project folder (its sessions and their sub-agent
// files): for a CallID, the report that would count it among them.
// grownFrom > 0 says that the first grownFrom bytes of path are those
// read before (the importer checked them): its keys are then updated from
// the new lines only.
func ccCopies(path string, grownFrom int64) func(string) (ccReport, bool) {
	project := ccProjectDir(path)
	grown := ""
	if grownFrom > 0 {
		grown = path
	}
	idx := ccProjectIndex(project, grown, grownFrom)
	return func(key string) (ccReport, bool) {
		best, _ := idx.get(key)
		switch {
		case best[0].path != "" && best[0].path != path:
			return best[0], true
		case best[1].path != "":
			return best[1], true
		}
		return ccReport{}, false
	}
}

// ccProjectDir returns the project folder whose transcripts path's
// responses are compared with.
func ccProjectDir(path string) string {
	if ok, _ := ccAgentOwner(path); ok {
		return filepath.Dir(ccAgentSessionDir(path))
	}
	return filepath.Dir(path)
}

// ccCopiesOf is ccCopies for the responses of message ids only (those
// of the lines a whole read of a grown file adds): each other transcript
// of the folder is read for them, and only its lines that may hold one
// of them are decoded (ccMentions), the folder's index neither built nor
// used. No id: no file is read. A grown file thus costs its new lines
// and, when they hold responses, one pass over the folder's bytes, where
// building the index decoded every response of the folder.
func ccCopiesOf(path string, ids map[string]bool) func(string) (ccReport, bool) {
	if len(ids) == 0 {
		return func(string) (ccReport, bool) { return ccReport{}, false }
	}
	only := ccMentions(ids)
	best := map[string]ccReport{}
	for _, f := range ccProjectFiles(ccProjectDir(path)) {
		if f == path {
			continue
		}
		c := &ccKeys{keys: map[string]ccReport{}, empty: map[string]bool{}, only: only}
		if _, err := c.scan(f, nil); err != nil {
			continue // as the index leaves out a file it cannot read
		}
		for k, r := range c.keys {
			if b, ok := best[k]; !ok || ccWins(r, b) {
				best[k] = r
			}
		}
	}
	return func(key string) (ccReport, bool) {
		r, ok := best[key]
		return r, ok
	}
}

// ccMentionsMax is how many message ids ccMentions looks for in a line;
// beyond, every line with a usage report is decoded.
const ccMentionsMax = 64

// ccMentions returns the test of a line that may hold the message id of
// one of ids: false only when it cannot. A JSON string holds an id's
// bytes as they are unless one of its characters is escaped: one that
// must be (a quote, a backslash, a control character) makes every line
// a candidate, and so does U+FFFD (the decoder's stand-in for bytes that
// are not UTF-8, which the line holds as they were); one that may be
// (\uXXXX, \/) is looked for in the line.
func ccMentions(ids map[string]bool) func([]byte) bool {
	if len(ids) > ccMentionsMax {
		return nil
	}
	var lits [][]byte
	for id := range ids {
		if strings.ContainsFunc(id, func(r rune) bool { return r == '"' || r == '\\' || r < 0x20 || r == utf8.RuneError }) {
			return nil
		}
		lits = append(lits, []byte(id))
	}
	return func(line []byte) bool {
		for _, id := range lits {
			if bytes.Contains(line, id) {
				return true
			}
		}
		return bytes.Contains(line, []byte(`\u`)) || bytes.Contains(line, []byte(`\/`))
	}
}

// ccProjectFiles lists the transcripts of project: its sessions and
// their sub-agent files.
func ccProjectFiles(project string) []string {
	var files []string
	ents, err := os.ReadDir(project)
	if err != nil {
		return nil
	}
	for _, e := range ents {
		full := filepath.Join(project, e.Name())
		switch {
		case e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl"):
			files = append(files, full)
		case e.IsDir():
			_ = filepath.WalkDir(filepath.Join(full, "subagents"), func(p string, d os.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() && ccAgentFileRE.MatchString(d.Name()) {
					files = append(files, p)
				}
				return nil
			})
		}
	}
	return files
}

// ccProjectIndex returns the index of the transcripts of project.
func ccProjectIndex(project, grown string, grownFrom int64) *ccIndex {
	files := ccProjectFiles(project)
	if files == nil {
		if _, err := os.Stat(project); err != nil {
			return nil
		}
	}
	stamps := map[string]string{}
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			stamps[f] = fmt.Sprintf("%d/%d", fi.Size(), fi.ModTime().UnixNano())
		}
	}
	pr := ccProjectOf(project)
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.idx != nil && maps.Equal(pr.stamps, stamps) {
		return pr.idx
	}
	if pr.idx != nil && grown != "" && onlyChanged(pr.stamps, stamps, grown) {
		if idx, ok := pr.grow(grown, grownFrom); ok {
			pr.stamps, pr.idx = stamps, idx
			return idx
		}
	}
	best := map[string][2]ccReport{}
	count := map[string]int{}
	for _, f := range files {
		for k, r := range pr.fileKeys(f) {
			count[k]++
			best[k] = ccTop2(best[k], r)
		}
	}
	many := map[string]bool{}
	for k, n := range count {
		if n > 2 {
			many[k] = true
		}
	}
	for f := range pr.files {
		if _, ok := stamps[f]; !ok {
			delete(pr.files, f)
		}
	}
	pr.stamps, pr.idx = stamps, &ccIndex{base: best, many: many}
	return pr.idx
}

// onlyChanged reports whether stamps a and b list the same files and
// differ at most at path.
func onlyChanged(a, b map[string]string, path string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || (v != w && k != path) {
			return false
		}
	}
	return true
}

// ccTop2 puts report r (of a transcript not in b) among the best two.
func ccTop2(b [2]ccReport, r ccReport) [2]ccReport {
	switch {
	case b[0].path == "" || ccWins(r, b[0]):
		b[1], b[0] = b[0], r
	case b[1].path == "" || ccWins(r, b[1]):
		b[1] = r
	}
	return b
}

// grow updates the index for path, which grew from its first grownFrom
// bytes (checked by the importer): only the lines after those scanned
// before are read. It returns false when the index must be rebuilt
// instead (path was not scanned before, or not as the same file; a
// response the grown file holds moved within the best two of a CallID
// that three transcripts hold).
func (pr *ccProject) grow(path string, grownFrom int64) (*ccIndex, bool) {
	c := pr.files[path]
	fi, err := os.Stat(path)
	if c == nil || err != nil || !c.id.Known() || jsonl.InodeOf(fi) != c.id || c.end > grownFrom || fi.Size() < c.end {
		return nil, false
	}
	if tail, err := jsonl.TailHash(path, c.end); err != nil || tail != c.tail {
		return nil, false
	}
	old := map[string]ccReport{}
	had := map[string]bool{}
	changed, err := c.scan(path, func(k string) {
		if _, seen := had[k]; !seen {
			r, ok := c.keys[k]
			had[k], old[k] = ok, r
		}
	})
	if err != nil {
		delete(pr.files, path)
		return nil, false
	}
	c.size, c.mod = fi.Size(), fi.ModTime()
	idx := &ccIndex{base: pr.idx.base, many: pr.idx.many, over: maps.Clone(pr.idx.over)}
	if idx.over == nil {
		idx.over = map[string]ccSlot{}
	}
	keys := make([]string, 0, len(changed))
	for k := range changed {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b, many := idx.get(k)
		inTop := b[0].path == path || b[1].path == path
		if had[k] && inTop && many {
			return nil, false // a third transcript's report may now be second
		}
		var nb [2]ccReport
		others := 0
		for _, r := range b {
			if r.path != "" && r.path != path {
				nb = ccTop2(nb, r)
				others++
			}
		}
		nb = ccTop2(nb, c.keys[k])
		idx.over[k] = ccSlot{best: nb, many: many || (!had[k] && others == 2)}
	}
	if len(idx.over) > ccOverMax {
		base, many := maps.Clone(idx.base), maps.Clone(idx.many)
		if many == nil {
			many = map[string]bool{}
		}
		for k, s := range idx.over {
			base[k] = s.best
			if s.many {
				many[k] = true
			}
		}
		idx = &ccIndex{base: base, many: many}
	}
	return idx, true
}

// fileKeys returns the responses of the transcript at path, each with
// the report that counts it within the file (ccBetter), scanning the file
// when it changed since it was last scanned.
func (pr *ccProject) fileKeys(path string) map[string]ccReport {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	c := pr.files[path]
	switch {
	case c == nil:
	case c.size == fi.Size() && c.mod.Equal(fi.ModTime()):
		return c.keys
	case c.id.Known() && jsonl.InodeOf(fi) == c.id && fi.Size() >= c.end:
		// Grown, as far as its inode, size and the bytes before the end
		// scanned tell (the trust of jsonlimport's cheap prefix check):
		// read the new lines only.
		if tail, err := jsonl.TailHash(path, c.end); err == nil && tail == c.tail {
			if _, err := c.scan(path, nil); err == nil {
				c.size, c.mod = fi.Size(), fi.ModTime()
				return c.keys
			}
		}
	}
	c = &ccKeys{size: fi.Size(), mod: fi.ModTime(), id: jsonl.InodeOf(fi), keys: map[string]ccReport{}, empty: map[string]bool{}}
	if _, err := c.scan(path, nil); err != nil {
		delete(pr.files, path)
		return nil
	}
	pr.files[path] = c
	return c.keys
}

// ccFileScans counts the transcripts scan read for their responses (the
// tests' count of the sibling files an import opened).
var ccFileScans atomic.Int64

// scan reads the lines of path from c.end on into c and returns the
// CallIDs whose report changed; before, when non-nil, is called with a
// CallID before its report changes.
func (c *ccKeys) scan(path string, before func(string)) (map[string]bool, error) {
	ccFileScans.Add(1)
	f, err := jsonl.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(c.end, 0); err != nil {
		return nil, err
	}
	changed := map[string]bool{}
	marker := []byte(`"usage"`)
	err = jsonl.ScanLines(f, c.end, func(line []byte, _ int, _, end int64, complete bool) error {
		if complete {
			c.end = end
		}
		if !bytes.Contains(line, marker) || (c.only != nil && !c.only(line)) {
			return nil
		}
		var l ccLine
		if json.Unmarshal(line, &l) != nil || l.Type != "assistant" || l.Message == nil || l.Message.Usage == nil || l.Message.ID == "" || l.Message.Model == "<synthetic>" {
			return nil
		}
		k := ccCallID(l.Message.ID, l.RequestID)
		u := l.Message.Usage
		r := ccReport{path: path, side: l.IsSidechain, at: jsonl.ParseTime(l.Timestamp)}
		empty := u.Input == 0 && u.Output == 0 && u.CacheRead == 0 && u.CacheWrite == 0
		old, ok := c.keys[k]
		if !ok || ccBetter(r.side, empty, old.side, c.empty[k]) {
			if before != nil {
				before(k)
			}
			c.keys[k], c.empty[k] = r, empty
			changed[k] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.tail, err = jsonl.TailHash(path, c.end)
	return changed, err
}
