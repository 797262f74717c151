package claudecode

// Claude Code without a whole re-read on append.
//
// The Claude Code reader's decisions depend on the whole file (the
// parentUuid tree, the lines of one streamed response, the answers of
// parallel tool calls, which report of a response counts), so its state
// is the whole parse: the tree of lines, the responses, the usage
// reports, the tool-results files. Rather than write all of that into
// SourceFile.State (it grows with the file, and decoding it would cost
// what reading the file costs), the parse state is kept in the importer's
// Follow (package watch keeps one per run), without the entry bodies,
// under a random token that the import state records. The next import of
// the file, when its prefix is unchanged and its state names that token,
// continues the parse from the offset: only the new lines are read and
// decoded, then the decisions (the resume path, the compaction, the
// counted usage) are taken again over the in-memory tree, exactly as a
// whole read of the grown file takes them, and the importer gets what it
// would have kept of that whole read (the entries after those imported,
// the usage rows of the new lines, the compaction).
//
// The whole re-read (Parse returns ErrNotIncremental; the importer counts
// it in FollowStats.Rereads) remains for:
//
//   - the first append to a file in a run when no state was saved for
//     it (snapshot.go: a Follow without a directory, a run that was
//     killed rather than stopped), and any append after the state was
//     not kept: no Follow (sessionctl import), another process imported
//     the file last, the state was evicted (ccCacheMax), a
//     commit that failed after the parse (a lost race) — the whole read
//     keeps the state again;
//   - a tool-results file imported before that changed or vanished (its
//     entry's place is decided again by the whole read);
//   - a new tool-results file whose name is not a tool call or result id
//     of a line imported before (whether an older line names it is only
//     known by reading them);
//   - a grown file whose transcript no longer needs the compaction a
//     previous import recorded (the importer's whole-read rule records
//     one that keeps everything).
//
// What stays proportional to the file on a resumed append is in memory
// only: the walk of the resume path from the newest line (its length) and
// the check that it is a suffix of the log; and when the path is not a
// suffix (branches, interleaved side chains), the compaction that copies
// the path's entries reads their lines back from the file (by offset) —
// that compaction is written again whenever the path changes, so that
// cost is the write's. The folder's response index (index.go) is
// updated from the new lines.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// ccResuming is the part of a Claude Code parse that serves resuming.
type ccResuming struct {
	// grownFrom is the offset a resumed read continued from (0: a whole
	// read); usageFrom the entries before it, whose usage rows were
	// written.
	grownFrom int64
	usageFrom int
	// reread: a whole read of a file that grew (Resume.Reread), whose
	// rows from usageFrom on only are counted.
	reread bool
	// ids are the tool call and result ids that lines contain quoted,
	// as they are: a tool-results file of that stem is named by a line.
	ids map[string]bool
	// hadComp: the read recorded a compaction.
	hadComp bool
}

// ccCacheMax bounds the parse states a Follow keeps, and
// ccCacheEntries the entries they hold together (the least recently used
// go first).
const (
	ccCacheMax     = 32
	ccCacheEntries = 1 << 19
)

// ccCache holds Claude Code parse states between imports, by token.
type ccCache struct {
	states  map[string]*ccParser
	order   []string // least recently kept first
	entries int
}

// ccPut keeps p under token in cache, dropping the least recently kept
// states beyond ccCacheMax and ccCacheEntries.
func ccPut(cache *jsonl.Cache, token string, p *ccParser) {
	cache.Do(Name, func(v any) any {
		c, _ := v.(*ccCache)
		if c == nil {
			c = &ccCache{states: map[string]*ccParser{}}
		}
		c.states[token] = p
		c.order = append(c.order, token)
		c.entries += len(p.entries)
		for len(c.order) > 1 && (len(c.order) > ccCacheMax || c.entries > ccCacheEntries) {
			old := c.order[0]
			c.order = c.order[1:]
			if q := c.states[old]; q != nil {
				c.entries -= len(q.entries)
				delete(c.states, old)
			}
		}
		return c
	})
}

// ccTake removes and returns the state of token (nil when not kept):
// from memory, else from the file a previous run saved in the cache's
// directory (snapshot.go).
func ccTake(cache *jsonl.Cache, token string) *ccParser {
	var p *ccParser
	cache.Do(Name, func(v any) any {
		c, _ := v.(*ccCache)
		if c == nil {
			return v
		}
		if p = c.states[token]; p == nil {
			return c
		}
		delete(c.states, token)
		c.order = slices.DeleteFunc(c.order, func(t string) bool { return t == token })
		c.entries -= len(p.entries)
		return c
	})
	if p == nil && cache != nil {
		p = loadSnapshot(cache.Dir, token)
	}
	return p
}

// Save implements jsonl.Saver: each state kept is written into dir
// (snapshot.go), the most recently kept last; then the states beyond the
// ccSavedMax newest are removed.
func (c *ccCache) Save(dir string) error {
	var errs []error
	for _, token := range c.order {
		if p := c.states[token]; p != nil {
			errs = append(errs, saveSnapshot(dir, token, p))
		}
	}
	errs = append(errs, pruneSnapshots(dir, ccSavedMax))
	return errors.Join(errs...)
}

// sawIDs records the tool ids of a message line that the line holds
// verbatim.
func (p *ccParser) sawIDs(node *ccNode, raw []byte) {
	for _, ids := range [][]string{node.calls, node.results} {
		for _, id := range ids {
			if bytes.Contains(raw, []byte(`"`+id+`"`)) {
				if p.ids == nil {
					p.ids = map[string]bool{}
				}
				p.ids[id] = true
			}
		}
	}
}

// keep puts the parse state into cache for the next import and names it
// in out.ResumeState. The entries from k on (those returned) lose their
// bodies in the kept state: out gets copies.
func (p *ccParser) keep(cache *jsonl.Cache, out *jsonl.Parsed, k int) {
	if cache == nil {
		return
	}
	var rs ccResumeState
	var tok [16]byte
	if json.Unmarshal(out.ResumeState, &rs) != nil {
		return
	}
	if _, err := rand.Read(tok[:]); err != nil {
		return
	}
	rs.Token = hex.EncodeToString(tok[:])
	out.ResumeState = jsonl.MustJSON(rs)
	out.Entries = slices.Clone(out.Entries)
	for i := k; i < len(p.entries); i++ {
		p.entries[i].Body = nil
	}
	for i := range p.files {
		if p.files[i].done {
			p.files[i].entry.Body = nil
		}
	}
	p.hadComp = len(out.Compactions) > 0
	p.Ctx, p.Problems, p.notes = nil, nil, nil
	ccPut(cache, rs.Token, p)
}

// entryOf returns the entry of message line n, its body read back from
// the file when the kept state dropped it.
func (p *ccParser) entryOf(n *ccNode) sessiondb.Entry {
	e := p.entries[n.n-1]
	if e.Body != nil || n.at < 0 {
		return e
	}
	f, err := jsonl.Open(p.Path)
	if err == nil {
		body := make([]byte, n.size)
		if _, err = f.ReadAt(body, n.at); err == nil {
			e.Body = body
		}
		f.Close()
	}
	if err != nil {
		panic(fmt.Sprintf("line %d not read back: %v", n.line, err)) // Parse reports it
	}
	return e
}

// ccResume continues the parse kept in from's Follow (see above); it
// returns ErrNotIncremental when it cannot.
func ccResume(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (*jsonl.Parsed, error) {
	notInc := fmt.Errorf("parse claude-code %s: %w", u.Path, jsonl.ErrNotIncremental)
	var prev ccResumeState
	if from.Cache == nil || json.Unmarshal(from.State, &prev) != nil || prev.V != 2 || prev.Token == "" {
		return nil, notInc
	}
	p := ccTake(from.Cache, prev.Token)
	if p == nil || p.Path != u.Path || p.Offset != from.Offset || len(p.entries) != from.Entries || prev.Entries != from.Entries {
		return nil, notInc
	}
	p.Ctx = ctx
	if !p.resumeToolFiles(u) {
		return nil, notInc
	}
	k := len(p.entries)
	p.prevEntries, p.grownFrom, p.usageFrom, p.reread = k, from.Offset, k, false
	p.LineBase = p.Lines
	hadComp := p.hadComp
	f, size, err := jsonl.OpenAt(u.Path, from.Offset)
	if errors.Is(err, jsonl.ErrNotIncremental) {
		return nil, notInc
	}
	if err != nil {
		return nil, fmt.Errorf("parse claude-code %s: %w", u.Path, err)
	}
	defer f.Close()
	if from.Size > 0 && from.Size < size {
		size = from.Size // read no further than the side files were listed at
	}
	if err := p.Run(upTo(f, from.Offset, size), from.Offset, p.dispatch); err != nil {
		return nil, fmt.Errorf("parse claude-code %s: %w", u.Path, err)
	}
	// As at the end of a whole read: the files named by a line imported
	// before, or by the unconsumed rest (a whole read looks at every
	// byte), come now; the others wait.
	p.placeToolFiles(nil)
	var rest []byte
	if size > p.Offset && size-p.Offset <= jsonl.MaxLineSize {
		rest = make([]byte, size-p.Offset)
		n, _ := f.ReadAt(rest, p.Offset)
		rest = rest[:n]
	}
	for i := range p.files {
		switch tf := &p.files[i]; {
		case tf.done:
		case tf.named || ccNames(rest, *tf):
			p.appendToolFile(tf)
		default:
			p.notes = append(p.notes, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("tool-results file %s is named by no line yet; it is imported after the line that names it", tf.name)})
		}
	}
	out, err := p.finish(u)
	if err != nil {
		return nil, err
	}
	if hadComp && len(out.Compactions) == 0 {
		return nil, notInc
	}
	if reason := jsonl.TrimReread(out, k); reason != "" {
		return nil, notInc
	}
	p.keep(from.Cache, out, k)
	return out, nil
}

// resumeToolFiles brings the kept tool-results files up to date with
// u.Extra: those placed must be unchanged; those waiting are read again;
// new ones are read, and must be named by a line imported before when
// they are named at all (see the notes above). false: read the file whole.
func (p *ccParser) resumeToolFiles(u jsonl.Unit) bool {
	extra := map[string]string{}
	for _, x := range u.Extra {
		extra[filepath.Base(x)] = x
	}
	known := map[string]bool{}
	files := p.files[:0]
	for _, tf := range p.files {
		if !tf.done {
			continue // waiting: read again below
		}
		known[tf.name] = true
		x, ok := extra[tf.name]
		fi, err := os.Stat(x)
		if !ok || err != nil || fi.Size() != tf.stamp.Size || !fi.ModTime().Equal(tf.stamp.ModTime) {
			return false
		}
		files = append(files, tf)
	}
	waiting := map[string]bool{}
	for _, tf := range p.files {
		if !tf.done {
			waiting[tf.name] = true
		}
	}
	p.files = files
	for _, x := range u.Extra {
		name := filepath.Base(x)
		if known[name] {
			continue
		}
		tf, ok := p.loadToolFile(x, 0)
		if !ok {
			continue
		}
		switch {
		case waiting[name]:
			// No line read before named it (else it would be placed).
		case p.ids[tf.stem]:
			tf.named, tf.namedAt = true, 1
		default:
			return false
		}
		p.files = append(p.files, tf)
	}
	return true
}
