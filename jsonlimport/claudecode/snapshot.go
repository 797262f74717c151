package claudecode

// The parse state across a restart.
//
// A Follow keeps the parse state of a transcript in memory (resume.go); a
// watcher that restarts has none, and the first append to a large file
// then cost a parse of the whole file (chunk.go's replay: 100 MiB, 2.6 s
// of CPU, for one line). When the Follow has a directory
// (jsonl.Cache.Dir), closing it writes each state it keeps into a file of
// that directory named by the state's token, which the import state in
// the store (source_files.state) names; the next run's first import of
// the file reads it back instead of parsing the file, and continues from
// the offset as a run that kept it does. The file is read once and
// removed (the import that continues writes a new token).
//
// What is written is the parse without the bodies (each entry's kind,
// role and time; each line's node: uuid, parent, entry number, where its
// body is in the file, its tool ids; the responses, the answers, the
// usage candidates, the tool-results files placed, the titles and
// attributes): about 150 bytes a line. Nothing in it is trusted beyond
// what a run that kept it trusts: the importer checks the prefix the
// state covers (the whole-prefix hash of a run's first import of a file)
// and ccResume checks the path, offset and entry count. A file that does
// not decode, or whose references do not hold, is not used: the import
// replays the file as before.

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// ccSnapVersion is the version of the snapshot's layout.
const ccSnapVersion = 1

// ccSavedMax bounds the states a directory holds (twice what a Follow
// keeps, ccCacheMax: those of the last run and of the one before).
const ccSavedMax = 2 * ccCacheMax

// ccSnap is a ccParser without its bodies, its pointers as node numbers
// (1-based; 0: none).
type ccSnap struct {
	V         int
	Path      string
	Offset    int64
	Lines     int
	AgentFile bool
	Owner     string
	Stem      string

	Entries []sessiondb.Entry // bodies nil
	Nodes   []ccSnapNode
	ByUUID  []int // the node of each uuid in p.nodes
	ByN     []int // the message nodes by entry number (p.byN)
	MsgNs   []int
	Calls   map[string]int
	Usage   []ccSnapCall

	Summary     string
	AITitle     string
	PromptTitle string
	Custom      string
	SID         string
	AgentID     string
	Attrs       map[string]string
	LastT       time.Time
	FirstT      time.Time

	ToolOf    map[string]int
	Answered  []int
	PartsHead []int
	Parts     [][]int
	Answers   map[string][]int
	Synth     []int
	Files     []ccSnapFile
	Placed    []ccPlaced
	OwnLines  bool
	Walks     uint64
	Tree      uint64
	IDs       []string
	HadComp   bool
}

type ccSnapNode struct {
	UUID, Parent, Typ, MsgID string
	N, Line, Size            int
	Msg, Side, Boundary      bool
	Meta                     []byte
	Head                     int
	Calls, Results           []string
	At                       int64
	Seen, In                 uint64
}

type ccSnapCall struct {
	Row     sessiondb.Usage
	Side    bool
	Session string
}

type ccSnapFile struct {
	Name, Stem string
	Entry      sessiondb.Entry // body nil
	At         int
	Named      bool
	NamedAt    int
	Stamp      jsonl.FileStamp
}

// snapshot returns p as a ccSnap, false when p holds what a snapshot does
// not (an attribute that is not a string, a tool-results file waiting).
func (p *ccParser) snapshot() (ccSnap, bool) {
	s := ccSnap{V: ccSnapVersion, Path: p.Path, Offset: p.Offset, Lines: p.Lines, AgentFile: p.agentFile, Owner: p.owner,
		Stem: p.stem, MsgNs: p.msgNs, Calls: p.calls, Summary: p.summary, AITitle: p.aiTitle, PromptTitle: p.promptTitle,
		Custom: p.custom, SID: p.sid, AgentID: p.agentID, Attrs: map[string]string{}, LastT: p.lastT, FirstT: p.firstT,
		ToolOf: map[string]int{}, Answers: map[string][]int{}, Placed: p.placed, OwnLines: p.ownLines, Walks: p.walks,
		Tree: p.tree, HadComp: p.hadComp}
	for k, v := range p.attrs {
		str, ok := v.(string)
		if !ok {
			return ccSnap{}, false
		}
		s.Attrs[k] = str
	}
	s.Entries = make([]sessiondb.Entry, len(p.entries))
	for i, e := range p.entries {
		e.Body = nil
		s.Entries[i] = e
	}
	num := map[*ccNode]int{}
	var ref func(n *ccNode) int
	ref = func(n *ccNode) int {
		if n == nil {
			return 0
		}
		if k, ok := num[n]; ok {
			return k
		}
		s.Nodes = append(s.Nodes, ccSnapNode{})
		k := len(s.Nodes)
		num[n] = k
		head := ref(n.head)
		s.Nodes[k-1] = ccSnapNode{UUID: n.uuid, Parent: n.parent, Typ: n.typ, MsgID: n.msgID, N: n.n, Line: n.line,
			Size: n.size, Msg: n.msg, Side: n.side, Boundary: n.boundary, Meta: n.meta, Head: head, Calls: n.calls,
			Results: n.results, At: n.at, Seen: n.seen, In: n.in}
		return k
	}
	for _, uuid := range sortedKeys(p.nodes) {
		s.ByUUID = append(s.ByUUID, ref(p.nodes[uuid]))
	}
	for _, n := range p.msgNs {
		s.ByN = append(s.ByN, ref(p.byN[n]))
	}
	for id, n := range p.toolOf {
		s.ToolOf[id] = ref(n)
	}
	for n, ok := range p.answered {
		if ok {
			s.Answered = append(s.Answered, ref(n))
		}
	}
	for head, parts := range p.parts {
		s.PartsHead = append(s.PartsHead, ref(head))
		ks := make([]int, len(parts))
		for i, n := range parts {
			ks[i] = ref(n)
		}
		s.Parts = append(s.Parts, ks)
	}
	for id, ns := range p.answers {
		ks := make([]int, len(ns))
		for i, n := range ns {
			ks[i] = ref(n)
		}
		s.Answers[id] = ks
	}
	for n, ok := range p.synth {
		if ok {
			s.Synth = append(s.Synth, n)
		}
	}
	for _, c := range p.usage {
		s.Usage = append(s.Usage, ccSnapCall{Row: c.row, Side: c.side, Session: c.session})
	}
	for _, f := range p.files {
		if !f.done {
			return ccSnap{}, false
		}
		e := f.entry
		e.Body = nil
		s.Files = append(s.Files, ccSnapFile{Name: f.name, Stem: f.stem, Entry: e, At: f.at, Named: f.named, NamedAt: f.namedAt, Stamp: f.stamp})
	}
	for id := range p.ids {
		s.IDs = append(s.IDs, id)
	}
	return s, true
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// restore returns the parser s describes, or an error when a reference
// does not hold.
func (s ccSnap) restore() (*ccParser, error) {
	if s.V != ccSnapVersion {
		return nil, fmt.Errorf("snapshot version %d", s.V)
	}
	nodes := make([]*ccNode, len(s.Nodes))
	for i := range nodes {
		nodes[i] = &ccNode{}
	}
	at := func(k int) (*ccNode, error) {
		if k < 1 || k > len(nodes) {
			return nil, fmt.Errorf("node %d of %d", k, len(nodes))
		}
		return nodes[k-1], nil
	}
	for i, sn := range s.Nodes {
		n := nodes[i]
		*n = ccNode{uuid: sn.UUID, parent: sn.Parent, typ: sn.Typ, msgID: sn.MsgID, n: sn.N, line: sn.Line, size: sn.Size,
			msg: sn.Msg, side: sn.Side, boundary: sn.Boundary, meta: sn.Meta, calls: sn.Calls, results: sn.Results,
			at: sn.At, seen: sn.Seen, in: sn.In}
		if sn.N < 1 || sn.N > len(s.Entries) {
			return nil, fmt.Errorf("node %d: entry %d of %d", i+1, sn.N, len(s.Entries))
		}
		if sn.Head != 0 {
			h, err := at(sn.Head)
			if err != nil {
				return nil, err
			}
			n.head = h
		}
	}
	p := &ccParser{
		WildScan:    jsonl.WildScan{Path: s.Path, Offset: s.Offset, Lines: s.Lines},
		agentFile:   s.AgentFile,
		owner:       s.Owner,
		stem:        s.Stem,
		entries:     s.Entries,
		nodes:       map[string]*ccNode{},
		byN:         map[int]*ccNode{},
		msgNs:       s.MsgNs,
		calls:       orEmpty(s.Calls),
		summary:     s.Summary,
		aiTitle:     s.AITitle,
		promptTitle: s.PromptTitle,
		custom:      s.Custom,
		sid:         s.SID,
		agentID:     s.AgentID,
		attrs:       map[string]any{},
		lastT:       s.LastT,
		firstT:      s.FirstT,
		toolOf:      map[string]*ccNode{},
		answered:    map[*ccNode]bool{},
		parts:       map[*ccNode][]*ccNode{},
		answers:     map[string][]*ccNode{},
		synth:       map[int]bool{},
		placed:      s.Placed,
		ownLines:    s.OwnLines,
		walks:       s.Walks,
		tree:        s.Tree,
	}
	p.hadComp = s.HadComp
	for k, v := range s.Attrs {
		p.attrs[k] = v
	}
	for _, k := range s.ByUUID {
		n, err := at(k)
		if err != nil || n.uuid == "" {
			return nil, fmt.Errorf("uuid node %d: %v", k, err)
		}
		p.nodes[n.uuid] = n
	}
	if len(s.ByN) != len(s.MsgNs) {
		return nil, errors.New("message lines")
	}
	for i, k := range s.ByN {
		n, err := at(k)
		if err != nil {
			return nil, err
		}
		if s.MsgNs[i] < 1 || s.MsgNs[i] > len(s.Entries) {
			return nil, fmt.Errorf("message entry %d", s.MsgNs[i])
		}
		p.byN[s.MsgNs[i]] = n
	}
	for id, k := range s.ToolOf {
		n, err := at(k)
		if err != nil {
			return nil, err
		}
		p.toolOf[id] = n
	}
	for _, k := range s.Answered {
		n, err := at(k)
		if err != nil {
			return nil, err
		}
		p.answered[n] = true
	}
	if len(s.PartsHead) != len(s.Parts) {
		return nil, errors.New("responses")
	}
	for i, k := range s.PartsHead {
		head, err := at(k)
		if err != nil {
			return nil, err
		}
		parts := make([]*ccNode, len(s.Parts[i]))
		for j, k := range s.Parts[i] {
			if parts[j], err = at(k); err != nil {
				return nil, err
			}
		}
		p.parts[head] = parts
	}
	for id, ks := range s.Answers {
		ns := make([]*ccNode, len(ks))
		for j, k := range ks {
			var err error
			if ns[j], err = at(k); err != nil {
				return nil, err
			}
		}
		p.answers[id] = ns
	}
	for _, n := range s.Synth {
		p.synth[n] = true
	}
	for _, c := range s.Usage {
		p.usage = append(p.usage, ccCall{row: c.Row, side: c.Side, session: c.Session})
	}
	for id, i := range p.calls {
		if i < 0 || i >= len(p.usage) {
			return nil, fmt.Errorf("call %s: usage %d of %d", id, i, len(p.usage))
		}
	}
	for _, f := range s.Files {
		p.files = append(p.files, ccToolFile{name: f.Name, stem: f.Stem, entry: f.Entry, done: true, at: f.At, named: f.Named, namedAt: f.NamedAt, stamp: f.Stamp})
	}
	if len(s.IDs) > 0 {
		p.ids = map[string]bool{}
		for _, id := range s.IDs {
			p.ids[id] = true
		}
	}
	return p, nil
}

func orEmpty(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}

// ccSnapPath is the file of the state kept under token in dir.
func ccSnapPath(dir, token string) string {
	return filepath.Join(dir, Name+"-"+token+".gob")
}

// saveSnapshot writes p, kept under token, into dir (see above). A
// parser it cannot describe is not written.
func saveSnapshot(dir, token string, p *ccParser) error {
	s, ok := p.snapshot()
	if !ok {
		return nil
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(s); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), ccSnapPath(dir, token))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// loadSnapshot reads and removes the state kept under token in dir (nil
// when there is none or it does not hold).
func loadSnapshot(dir, token string) *ccParser {
	if dir == "" || !validToken(token) {
		return nil
	}
	path := ccSnapPath(dir, token)
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer os.Remove(path)
	defer f.Close()
	var s ccSnap
	if gob.NewDecoder(f).Decode(&s) != nil {
		return nil
	}
	p, err := s.restore()
	if err != nil {
		return nil
	}
	return p
}

// validToken reports whether token is one keep wrote (hex): a token read
// from the store names a file only in dir.
func validToken(token string) bool {
	if len(token) != 32 {
		return false
	}
	for _, c := range token {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// pruneSnapshots removes the saved states of dir beyond the keep newest
// (by modification time) and any temporary file a save left.
func pruneSnapshots(dir string, keep int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	type saved struct {
		path string
		mod  time.Time
	}
	var states []saved
	var errs []error
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		switch {
		case strings.HasPrefix(name, ".tmp-"):
			errs = append(errs, os.Remove(path))
		case strings.HasPrefix(name, Name+"-") && strings.HasSuffix(name, ".gob"):
			if fi, err := e.Info(); err == nil {
				states = append(states, saved{path, fi.ModTime()})
			}
		}
	}
	slices.SortFunc(states, func(a, b saved) int { return b.mod.Compare(a.mod) })
	for _, s := range states[min(keep, len(states)):] {
		errs = append(errs, os.Remove(s.path))
	}
	return errors.Join(errs...)
}
