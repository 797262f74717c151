package entire

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// occurrence is one session of one checkpoint: <id[:2]>/<id[2:]>/<n>/.
type occurrence struct {
	checkpoint string
	index      int
	dir        string // the folder in the branch's tree
	meta       SessionMeta
	metaOID    string
	cmeta      *CheckpointMeta
	transcript treeEntry // full.jsonl; oid "" when the checkpoint has none
	commits    []string  // commits whose Entire-Checkpoint trailer names it
}

// session is one agent session of the branch: every checkpoint that
// holds it, oldest first; the last holds the transcript as it is now.
type session struct {
	key    string
	occ    []*occurrence
	file   string // the latest transcript, written out for its reader
	format string // the reader that claimed it
	// partial: file holds only the transcript's first sniffLen bytes,
	// enough for the reader to claim it; Parse writes it whole.
	partial bool
}

func (s *session) latest() *occurrence { return s.occ[len(s.occ)-1] }

// listing is what Sessions read of a repository's branch, kept in the
// import's cache for the Parse calls of its sessions; Close removes the
// transcripts written out.
type listing struct {
	repo     repo
	mu       sync.Mutex // guards the sessions' files, written by Parse
	dir      string
	sessions map[string]*session
	order    []string
}

// Close removes the transcripts written for the readers.
func (l *listing) Close() error {
	if l == nil || l.dir == "" {
		return nil
	}
	return os.RemoveAll(l.dir)
}

// cacheName is the name a repository's listing is kept under in a
// jsonl.Cache.
func cacheName(store string) string { return Name + "\x00" + store }

// listingFor returns the listing of store kept in c, or reads one (then
// release removes it).
func listingFor(ctx context.Context, store string, c *jsonl.Cache) (l *listing, release func(), err error) {
	if c != nil {
		c.Do(cacheName(store), func(v any) any {
			if have, ok := v.(*listing); ok && have != nil {
				l = have
				return v
			}
			l, _, err = readListing(ctx, store)
			if err != nil {
				return v
			}
			return l
		})
		return l, func() {}, err
	}
	l, _, err = readListing(ctx, store)
	if err != nil {
		return nil, nil, err
	}
	return l, func() { l.Close() }, nil
}

// Sessions implements jsonl.StoreFormat: it lists the agent sessions the
// checkpoint branch of the repository holds now (see the package doc),
// and keeps what it read in c for their Parse calls.
func (Format) Sessions(ctx context.Context, store jsonl.Unit, c *jsonl.Cache) (list []jsonl.StoreSession, problems []jsonl.Problem, err error) {
	defer func() {
		if r := recover(); r != nil {
			list, problems, err = nil, nil, fmt.Errorf("list %s %s: internal error: %v", Name, store.Path, r)
		}
	}()
	l, problems, err := readListing(ctx, store.Path)
	if err != nil {
		return nil, nil, err
	}
	for _, key := range l.order {
		s := l.sessions[key]
		if s.file == "" {
			continue
		}
		last := s.latest()
		list = append(list, jsonl.StoreSession{
			Unit:    jsonl.Unit{Format: s.format, Path: jsonl.SessionPath(store.Path, key)},
			Stamp:   s.stamp(),
			Rows:    int64(len(s.occ)),
			Updated: last.meta.CreatedAt,
			Bytes:   last.transcript.size,
		})
	}
	if c == nil {
		l.Close()
		return list, problems, nil
	}
	c.Do(cacheName(store.Path), func(v any) any {
		if old, ok := v.(*listing); ok {
			old.Close()
		}
		return l
	})
	return list, problems, nil
}

// stamp changes whenever anything a session is read from changes: its
// transcript, a checkpoint's metadata, the commits linked to them.
func (s *session) stamp() string {
	h := sha256.New()
	fmt.Fprintf(h, "transcript %s\n", s.latest().transcript.oid)
	for _, o := range s.occ {
		fmt.Fprintf(h, "%s/%d %s %s\n", o.checkpoint, o.index, o.metaOID, strings.Join(o.commits, ","))
		if o.cmeta != nil {
			fmt.Fprintf(h, "%x\n", sha256.Sum256(o.cmeta.Raw))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// checkpointDirRE matches a checkpoint's folder in the branch's tree and
// sessionFileRE a file of one of its sessions.
var (
	checkpointFileRE = regexp.MustCompile(`^([0-9a-f]{2})/([0-9a-f]{10})/metadata\.json$`)
	sessionFileRE    = regexp.MustCompile(`^([0-9a-f]{2})/([0-9a-f]{10})/([0-9]{1,6})/(metadata\.json|full\.jsonl)$`)
)

// readListing reads the checkpoint branch of the repository whose unit
// path is store: the tree of the branch's tip, every metadata.json, the
// commits' trailers, and writes out each session's latest transcript for
// its reader. Problems are checkpoints it could not read; an error means
// the branch could not be read at all.
func readListing(ctx context.Context, store string) (*listing, []jsonl.Problem, error) {
	gitDir, err := findGitDir(store)
	if err != nil {
		return nil, nil, err
	}
	r := repo{gitDir: gitDir}
	_, commit, err := r.branchRef(ctx)
	if err != nil {
		return nil, nil, err
	}
	tree, err := r.tree(ctx, commit)
	if err != nil {
		return nil, nil, err
	}
	var problems []jsonl.Problem
	where := func(treePath string) string { return jsonl.SessionPath(store, treePath) }

	cpMeta := map[string]treeEntry{}
	occs := map[string]*occurrence{}
	var metaOIDs []string
	for _, e := range tree {
		if m := checkpointFileRE.FindStringSubmatch(e.path); m != nil {
			cpMeta[m[1]+m[2]] = e
			metaOIDs = append(metaOIDs, e.oid)
			continue
		}
		m := sessionFileRE.FindStringSubmatch(e.path)
		if m == nil {
			continue
		}
		idx, _ := strconv.Atoi(m[3])
		dir := m[1] + "/" + m[2] + "/" + m[3]
		o := occs[dir]
		if o == nil {
			o = &occurrence{checkpoint: m[1] + m[2], index: idx, dir: dir}
			occs[dir] = o
		}
		if m[4] == "metadata.json" {
			o.metaOID = e.oid
			metaOIDs = append(metaOIDs, e.oid)
		} else {
			o.transcript = e
		}
	}
	blobs, err := r.blobs(ctx, metaOIDs, maxMetadata)
	if err != nil {
		return nil, nil, err
	}
	links, err := r.trailers(ctx)
	if err != nil {
		problems = append(problems, jsonl.Problem{Path: store, Reason: fmt.Sprintf("the commits' Entire-Checkpoint trailers could not be read (%v); sessions are imported without their commits", err)})
	}
	cps := map[string]*CheckpointMeta{}
	for id, e := range cpMeta {
		cm, err := ParseCheckpointMeta(blobs[e.oid])
		if err != nil {
			problems = append(problems, jsonl.Problem{Path: where(e.path), Reason: err.Error()})
			continue
		}
		cps[id] = &cm
	}

	l := &listing{repo: r, sessions: map[string]*session{}}
	dirs := make([]string, 0, len(occs))
	for d := range occs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		o := occs[d]
		if o.metaOID == "" {
			problems = append(problems, jsonl.Problem{Path: where(d), Reason: "a checkpoint session without metadata.json; skipped"})
			continue
		}
		meta, err := ParseSessionMeta(blobs[o.metaOID])
		if err != nil {
			problems = append(problems, jsonl.Problem{Path: where(d + "/metadata.json"), Reason: err.Error()})
			continue
		}
		if meta.CheckpointID != "" && meta.CheckpointID != o.checkpoint {
			problems = append(problems, jsonl.Problem{Path: where(d + "/metadata.json"), Reason: fmt.Sprintf("names checkpoint %q, but lies in checkpoint %s's folder; read as %s's", meta.CheckpointID, o.checkpoint, o.checkpoint)})
		}
		o.meta, o.cmeta, o.commits = meta, cps[o.checkpoint], links[o.checkpoint]
		key := meta.SessionID
		if key == "" {
			key = o.checkpoint + "-" + strconv.Itoa(o.index)
		}
		s := l.sessions[key]
		if s == nil {
			s = &session{key: key}
			l.sessions[key] = s
			l.order = append(l.order, key)
		}
		s.occ = append(s.occ, o)
	}
	sort.Strings(l.order)
	for _, key := range l.order {
		s := l.sessions[key]
		sort.SliceStable(s.occ, func(i, j int) bool { return before(s.occ[i], s.occ[j]) })
		if s.latest().transcript.oid == "" {
			problems = append(problems, jsonl.Problem{Path: where(s.latest().dir), Reason: "the session's latest checkpoint has no full.jsonl; skipped"})
		}
	}
	if err := l.writeTranscripts(ctx, r, where, &problems); err != nil {
		l.Close()
		return nil, nil, err
	}
	return l, problems, nil
}

// before orders the checkpoints of one session: by the time the session's
// metadata gives, then (transcripts only grow) by the transcript's size,
// then by checkpoint id.
func before(a, b *occurrence) bool {
	if !a.meta.CreatedAt.Equal(b.meta.CreatedAt) {
		return a.meta.CreatedAt.Before(b.meta.CreatedAt)
	}
	if a.transcript.size != b.transcript.size {
		return a.transcript.size < b.transcript.size
	}
	if a.checkpoint != b.checkpoint {
		return a.checkpoint < b.checkpoint
	}
	return a.index < b.index
}

// writeTranscripts writes each session's latest transcript into a
// temporary folder of its own and finds the reader that claims it: as
// <session id>.jsonl, else (a transcript that is one JSON document:
// Gemini CLI's whole chats, an opencode export) as <session id>.json.
func (l *listing) writeTranscripts(ctx context.Context, r repo, where func(string) string, problems *[]jsonl.Problem) error {
	for n, key := range l.order {
		s := l.sessions[key]
		last := s.latest()
		if last.transcript.oid == "" {
			continue
		}
		if l.dir == "" {
			d, err := os.MkdirTemp("", "sessiondb-entire-")
			if err != nil {
				return err
			}
			l.dir = d
		}
		dir := filepath.Join(l.dir, strconv.Itoa(n))
		if err := os.Mkdir(dir, 0o700); err != nil {
			return err
		}
		// The agents' readers may take the session's id from the file's
		// name (Claude Code resumes a session by its file's name): the
		// transcript is named after the session Entire names.
		name := "full"
		if last.meta.SessionID != "" {
			name = jsonl.FileName(last.meta.SessionID)
		}
		file := filepath.Join(dir, name+".jsonl")
		var reader jsonl.Format
		if last.transcript.size > sniffLen {
			// A session unchanged since the last import is not parsed:
			// its reader is found from the transcript's start.
			if err := r.blobToFile(ctx, last.transcript.oid, file, sniffLen); err != nil {
				return err
			}
			if reader, _ = claimTranscript(file); reader != nil {
				s.file, s.format, s.partial = file, reader.Name(), true
				continue
			}
			if err := os.Remove(file); err != nil {
				return err
			}
		}
		if err := r.blobToFile(ctx, last.transcript.oid, file, 0); err != nil {
			return err
		}
		reader, _ = claimTranscript(file)
		if reader == nil {
			alt := filepath.Join(dir, name+".json")
			if err := os.Rename(file, alt); err != nil {
				return err
			}
			file = alt
			reader, _ = claimTranscript(file)
		}
		if reader == nil {
			agent := last.meta.Agent
			if agent == "" {
				agent = "an unnamed agent"
			}
			*problems = append(*problems, jsonl.Problem{Path: where(last.dir + "/full.jsonl"), Reason: fmt.Sprintf("the transcript of %s is in no format this importer reads; skipped", agent)})
			continue
		}
		s.file, s.format = file, reader.Name()
	}
	return nil
}

// sniffLen is how much of a large transcript is written out for the
// readers to claim it (their Claim reads a file's first lines). (A
// variable: the tests make it small.)
var sniffLen int64 = 1 << 20

// whole returns the file of session s holding its whole transcript,
// writing it when only its start was written.
func (l *listing) whole(ctx context.Context, s *session) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !s.partial {
		return s.file, nil
	}
	if err := os.Remove(s.file); err != nil {
		return "", err
	}
	if err := l.repo.blobToFile(ctx, s.latest().transcript.oid, s.file, 0); err != nil {
		return "", err
	}
	s.partial = false
	return s.file, nil
}

// entireAttrs is what a session's attrs hold of Entire under "entire".
type entireAttrs struct {
	Agent        string           `json:"agent,omitempty"`
	Model        string           `json:"model,omitempty"`
	Strategy     string           `json:"strategy,omitempty"`
	Branch       string           `json:"branch,omitempty"`
	FilesTouched []string         `json:"files_touched,omitempty"`
	Checkpoints  []checkpointAttr `json:"checkpoints"`
}

// checkpointAttr is one checkpoint of the session.
type checkpointAttr struct {
	ID           string          `json:"id"`
	Session      int             `json:"session"`
	CreatedAt    string          `json:"created_at,omitempty"`
	Commits      []string        `json:"commits,omitempty"`
	FilesTouched []string        `json:"files_touched,omitempty"`
	TokenUsage   json.RawMessage `json:"token_usage,omitempty"`
}

// attrs returns what the session's attrs keep of Entire: the agent, its
// model, Entire's strategy and the git branch as the latest checkpoint
// gives them, the files touched by all, and every checkpoint with its
// commits, files and Entire's token usage as recorded.
func (s *session) attrs() entireAttrs {
	last := s.latest()
	a := entireAttrs{Agent: last.meta.Agent, Model: last.meta.Model, Strategy: last.meta.Strategy, Branch: last.meta.Branch}
	files := map[string]bool{}
	for _, o := range s.occ {
		c := checkpointAttr{ID: o.checkpoint, Session: o.index, Commits: o.commits, FilesTouched: o.meta.FilesTouched,
			TokenUsage: o.meta.TokenUsage}
		if !o.meta.CreatedAt.IsZero() {
			c.CreatedAt = o.meta.CreatedAt.Format(time.RFC3339Nano)
		}
		for _, f := range o.meta.FilesTouched {
			files[f] = true
		}
		a.Checkpoints = append(a.Checkpoints, c)
	}
	for f := range files {
		a.FilesTouched = append(a.FilesTouched, f)
	}
	sort.Strings(a.FilesTouched)
	return a
}

// withEntire returns attrs with member "entire" set to v.
func withEntire(attrs json.RawMessage, v entireAttrs) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(attrs) > 0 {
		if err := json.Unmarshal(attrs, &m); err != nil {
			return nil, fmt.Errorf("the agent's reader gave attrs that are no JSON object: %w", err)
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	m["entire"] = b
	return json.Marshal(m)
}
