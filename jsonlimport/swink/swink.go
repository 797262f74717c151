package swink

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Format reads and writes the session directories of swink-agent-memory
// (JsonlSessionStore and FileCheckpointStore), as described in
// formats/swink.md:
//
//	sessions/<id>.jsonl            line 1: SessionMeta header; lines 2+: records
//	sessions/<id>.interrupt.json   optional pretty InterruptState
//	checkpoints/<cp-id>.json       core Checkpoint documents
//
// # Claim
//
// A "<id>.jsonl" whose first line is a valid swink SessionMeta header (and
// whose name is a valid swink session ID) becomes a Unit; "<id>.interrupt.json"
// beside it and every "<cp-id>.json" of a "checkpoints" directory next to the
// sessions directory whose name starts with "<id>-" (the "{session}-turn-{n}"
// and "{session}-rolling" IDs of swink-agent-policies; the longest such
// session ID wins) go into Unit.Extra. Claim also takes, without making a
// unit of them, checkpoint files that belong to such a session when it is
// handed the checkpoints directory itself, and the opaque files of swink's
// ".search_index" directory. Everything else goes back in rest: orphan
// interrupt files (swink ignores them), checkpoints of no known session,
// ".tmpXXXXXX" leftovers, and .jsonl files whose header swink cannot read
// (swink refuses to load those too). Importing a checkpoints directory on
// its own therefore imports nothing from it: its files are read with their
// sessions.
//
// # Parse: what is imported
//
// Parse reproduces swink's read algorithm (§1.11): stage A (commit filter:
// records between an {"_append":true} marker and its {"_meta":true} commit
// are kept only once the commit is seen, the last commit's SessionMeta
// replaces the header's, invalid UTF-8 lines are dropped) and stage B
// (classification and strict parsing). The result:
//
//   - Raw LlmMessage lines ({"role":…}) become entries of Kind "message"; the
//     body is the line's exact bytes (minus a trailing '\r').
//   - Tagged {"entry_type":"message","data":{…}} lines become Kind "message"
//     entries whose body is the exact bytes of the "data" value: the envelope
//     is dropped so that every "message" body is the LlmMessage swink's load()
//     returns (the transcript filtered to Kind "message" equals load() as JSON
//     values, whichever way the line was written).
//   - Other rich entries keep their envelope: the body is the whole line
//     ({"entry_type":"label","data":{…}}), which is the SessionEntry that
//     swink's load_entries() returns, and the Kind is the entry_type, except
//     SessionEntry::Custom (entry_type "custom"), whose Kind is "custom_entry":
//     swink.md §2.6 warns that swink's own "custom" is ambiguous between
//     application messages and custom entries, and sessiondb reserves
//     KindCustom for application messages.
//   - {"_custom":true,"data":…,"type":…} agent messages become Kind "custom"
//     entries whose body is the whole line. They are imported as if swink's
//     loader had a registry that knows every type (swink without a registry
//     skips them; filter on Kind "message" to get that view).
//   - The first committed {"_state":true,"data":…} line gives Parsed.State
//     (the exact bytes of "data"); a corrupt state line before it makes
//     swink's load_state fail, so then no state is imported (a Problem).
//   - Lines swink's loader skips (not JSON, invalid UTF-8, strict parse
//     failures, unknown entry types, uncommitted append blocks, lines over
//     MaxLineSize) are skipped too, each reported as a Problem with path,
//     line and reason. A blank line is skipped and reported.
//   - Entry.CreatedAt is the record's "timestamp" (Unix seconds); records
//     without one (custom messages) take the previous entry's time, or the
//     session's created_at for the first.
//   - Parsed.Usage has one row per imported assistant message (usage and
//     cost.total), Seq = its 1-based entry number.
//   - Session: ID from the file name (swink's canonical ID), title,
//     created_at, updated_at and version from the last committed meta; Attrs
//     holds {"swink_sequence":n} (swink's own revision counter) and the
//     provider and model of the last assistant message.
//
// Schema versions: a committed meta whose version is above 1 (swink's
// CURRENT_VERSION) is refused: Parse returns an error wrapping
// ErrVersion and sessiondb.ErrInvalid (with a Parsed that carries only
// the line Problems, for the report), and nothing of the unit is imported;
// nothing is guessed. A version below 1 (swink needs a registered
// SessionMigrator to load it) is imported unmigrated with Session.Version
// kept at that version, plus a Problem, so that no data is lost and a
// sessiondb payload migrator can upgrade the bodies later.
//
// Interrupt: the exact bytes of "<id>.interrupt.json" when it is a valid
// InterruptState; otherwise a Problem (swink's load_interrupt fails then).
//
// Checkpoints: each valid checkpoint file becomes a sessiondb.Checkpoint with
// ID = the checkpoint ID (file name), Label = that ID without the
// "<session>-" prefix, CreatedAt from created_at, State = the "state" value
// (JSON null when absent), Metadata = the whole original file, and AtSeq = the
// 1-based number of the entry (in Parsed.Entries order, like compaction
// positions) at which the session's transcript matches the checkpoint's
// messages (in message_order). When the checkpoint's messages are not a prefix
// of the session's, AtSeq counts the entries not newer than the checkpoint and
// a Problem says so.
//
// Because swink rewrites its header in place, a file cannot be resumed from
// an offset: Parse returns ErrNotIncremental for any Resume with Offset > 0.
// For the same reason Format is a jsonl.HeaderRewriter: a file whose
// consumed bytes changed is read whole and, when the records imported still
// read the same, only the new ones are appended (a new header alone is no
// rewrite).
//
// # Export
//
// Export writes <dir>/sessions/<id>.jsonl as swink's save_full does: a header
// padded with 64 spaces, one line per entry of the effective transcript
// (compaction summary messages included), and a {"_state":true,"data":…}
// line when the session has state; plus <dir>/sessions/<id>.interrupt.json
// (the exact bytes) and <dir>/checkpoints/<cp-id>.json. Each file is written
// atomically (temporary file, fsync, rename); everything is checked before
// the first file is written.
//
//   - Header: id, title, created_at and updated_at (chrono's RFC 3339 with 0,
//     3, 6 or 9 fraction digits), version, and sequence = the session's
//     sessiondb Sequence. Version is the session's; 0 becomes 1 for sessions
//     that were not imported from swink (0 means "never versioned" there,
//     while swink refuses 0 without a migrator). Summary, scope, aliases and
//     attrs have no place in swink's format and are not written.
//   - Entries: see swinkEntryLine. Message bodies are written as raw
//     LlmMessage lines (in an "entry_type" envelope when their own top-level
//     keys would make swink misclassify them); swink "_custom" envelopes and
//     rich-entry bodies that carry their "entry_type" envelope are written as
//     they are; other bodies are wrapped. Bodies are compacted
//     (json.Compact), which changes no JSON value; a body that is not valid
//     UTF-8 (swink would drop the line) fails the export with ErrInvalid.
//     Bodies swink does not understand (another tool's messages) are written
//     all the same and skipped by swink's loader, as by Parse.
//   - Interrupt: it must be a swink InterruptState, else the export fails
//     with ErrInvalid (swink's load_interrupt would fail on it). Without an
//     interrupt, a stale "<id>.interrupt.json" in dir is removed.
//   - Checkpoints: the original swink document (Checkpoint.Metadata) when it
//     is one with the same ID; otherwise a document built from the log up to
//     AtSeq (its swink LLM messages and custom messages in order, zero usage,
//     turn_count = user messages, the checkpoint's state).
//   - IDs that are not valid swink IDs (':' or '/' for instance) fail the
//     export with ErrInvalid.
type Format struct{}

// Name is the format's name.
const Name = "swink"

var _ jsonl.Format = Format{}

// ErrVersion is wrapped by the error Parse returns for a swink session
// whose schema version is newer than the one swink-agent-memory knows (1).
var ErrVersion = fmt.Errorf("%w: swink session schema version too new", sessiondb.ErrInvalid)

// swinkCurrentVersion is swink-agent-memory's CURRENT_VERSION.
const swinkCurrentVersion = 1

// swinkHeaderPadding is META_LINE_PADDING: the spaces save writes after the
// header JSON.
const swinkHeaderPadding = 64

// swinkKindCustomEntry is the Kind given to SessionEntry::Custom rich entries
// (entry_type "custom"), kept apart from KindCustom (the "_custom" agent
// messages).
const swinkKindCustomEntry = "custom_entry"

// Name returns Name.
func (Format) Name() string { return Name }

// ---------------------------------------------------------------------------
// Claim

// Claim recognises swink session files, their interrupt files and their
// checkpoints; see the type documentation.
func (Format) Claim(files []string) (units []jsonl.Unit, rest []string) {
	c := newSwClaim()
	present := make(map[string]bool, len(files))
	for _, f := range files {
		present[f] = true
	}
	claimed := make(map[string]bool)
	for _, f := range files {
		base := filepath.Base(f)
		if !strings.HasSuffix(base, ".jsonl") {
			continue
		}
		id := strings.TrimSuffix(base, ".jsonl")
		if !validSwinkID(id) || !c.isSession(f) {
			continue
		}
		u := jsonl.Unit{Format: Name, Path: f}
		if ip := filepath.Join(filepath.Dir(f), id+".interrupt.json"); present[ip] {
			u.Extra = append(u.Extra, ip)
			claimed[ip] = true
		}
		u.Extra = append(u.Extra, c.checkpointsOf(f)...)
		claimed[f] = true
		units = append(units, u)
	}
	for _, f := range files {
		if claimed[f] {
			continue
		}
		if filepath.Base(filepath.Dir(f)) == ".search_index" {
			continue // swink's tantivy index: opaque, rebuilt by swink
		}
		if owner := c.checkpointOwner(f); owner != "" && !present[owner] {
			// A checkpoint of a swink session in a sibling directory: it is
			// imported with that session's unit.
			continue
		}
		rest = append(rest, f)
	}
	return units, rest
}

// swClaim caches what one Claim call learns from the disk: which files have
// a swink header, directory listings, and the checkpoints of each session.
type swClaim struct {
	sniffed map[string]bool
	listed  map[string][]os.DirEntry
	owned   map[string]map[string][]string // checkpoints dir → session file → checkpoint files
}

// CheckpointOwner returns the session file that the checkpoint file path
// belongs to, "" when none does.
func CheckpointOwner(path string) string { return newSwClaim().checkpointOwner(path) }

func newSwClaim() *swClaim {
	return &swClaim{sniffed: map[string]bool{}, listed: map[string][]os.DirEntry{}, owned: map[string]map[string][]string{}}
}

func (c *swClaim) isSession(path string) bool {
	ok, seen := c.sniffed[path]
	if !seen {
		ok = isSwinkSession(path)
		c.sniffed[path] = ok
	}
	return ok
}

func (c *swClaim) list(dir string) []os.DirEntry {
	des, seen := c.listed[dir]
	if !seen {
		des, _ = os.ReadDir(dir)
		c.listed[dir] = des
	}
	return des
}

// checkpointsOf lists the checkpoint files that belong to the session file
// sessionPath: the "*.json" files of the "checkpoints" directory beside its
// directory whose owner is sessionPath.
func (c *swClaim) checkpointsOf(sessionPath string) []string {
	cpDir := filepath.Join(filepath.Dir(filepath.Dir(sessionPath)), "checkpoints")
	if cpDir == filepath.Dir(sessionPath) {
		return nil
	}
	owned, seen := c.owned[cpDir]
	if !seen {
		owned = map[string][]string{}
		for _, de := range c.list(cpDir) {
			if !de.Type().IsRegular() || !strings.HasSuffix(de.Name(), ".json") {
				continue
			}
			p := filepath.Join(cpDir, de.Name())
			if owner := c.checkpointOwner(p); owner != "" {
				owned[owner] = append(owned[owner], p)
			}
		}
		c.owned[cpDir] = owned
	}
	return owned[sessionPath]
}

// checkpointOwner returns the session file a checkpoint file belongs to, or
// "". The checkpoint must be "<P>/checkpoints/<cp-id>.json"; its owner is
// "<P>/<dir>/<id>.jsonl", a swink session, where <id> is the longest prefix
// of <cp-id> followed by '-' (then the first such <dir> in name order).
func (c *swClaim) checkpointOwner(path string) string {
	dir := filepath.Dir(path)
	name := filepath.Base(path)
	if filepath.Base(dir) != "checkpoints" || !strings.HasSuffix(name, ".json") {
		return ""
	}
	stem := strings.TrimSuffix(name, ".json")
	parent := filepath.Dir(dir)
	des := c.list(parent)
	for i := len(stem) - 1; i > 0; i-- {
		if stem[i] != '-' {
			continue
		}
		id := stem[:i]
		if !validSwinkID(id) {
			continue
		}
		for _, de := range des {
			if !de.IsDir() || de.Name() == "checkpoints" {
				continue
			}
			p := filepath.Join(parent, de.Name(), id+".jsonl")
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && c.isSession(p) {
				return p
			}
		}
	}
	return ""
}

// isSwinkSession reports whether path's first line is a swink SessionMeta.
func isSwinkSession(path string) bool {
	f, err := jsonl.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	ok := false
	_ = jsonl.ScanLines(f, 0, func(line []byte, _ int, _, _ int64, _ bool) error {
		if !jsonl.Oversized(line) {
			_, err := parseSwinkMeta(jsonl.TrimCR(line))
			ok = err == nil
		}
		return jsonl.ErrStopScan
	})
	return ok
}

// validSwinkID applies swink's validate_session_id (also used for checkpoint
// IDs): non-empty, no '/', '\\', "..", ':' or ASCII control character. It
// also requires valid UTF-8 and sessiondb's ID rules.
func validSwinkID(id string) bool {
	if id == "" || strings.ContainsAny(id, "/\\:") || strings.Contains(id, "..") {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x20 || id[i] == 0x7f {
			return false
		}
	}
	return sessiondb.ValidateID(id) == nil
}

// ---------------------------------------------------------------------------
// Parse

// swinkMeta is a SessionMeta.
type swinkMeta struct {
	ID        string
	Title     string
	CreatedAt time.Time
	UpdatedAt time.Time
	Version   uint64
	Sequence  uint64
}

// Line classes of stage A/B.
const (
	swOther  = iota // anything not listed below: garbage, unparseable records
	swBlank         // only whitespace
	swState         // {"_state":true,…}
	swBegin         // {"_append":true,…}
	swCommit        // {"_meta":true,"data":<SessionMeta>}
	swCustom        // {"_custom":true,…}
	swEntry         // LLM message or SessionEntry
)

// swLine is one classified record line.
type swLine struct {
	no     int
	class  int
	reason string // why an swOther/swBlank line is skipped
	entry  sessiondb.Entry
	hasTS  bool
	usage  *sessiondb.Usage
	meta   swinkMeta       // swCommit
	state  json.RawMessage // swState: the data
	// What swink's load_state sees: 1 when the line is a JSON object with a
	// top-level "_state" key, 2 when it is not JSON but contains "_state".
	stateSeen int
	stateErr  string
}

// RewritesHeader reports that swink patches a file's header in place on
// every append (jsonl.HeaderRewriter): a grown file whose first line changed
// is continued, not replaced, when its records still read the same.
func (Format) RewritesHeader() bool { return true }

// Parse reads one swink session; see the type documentation.
func (Format) Parse(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (*jsonl.Parsed, error) {
	if from.Offset > 0 {
		return nil, jsonl.ErrNotIncremental
	}
	f, err := jsonl.Open(u.Path)
	if err != nil {
		return nil, fmt.Errorf("parse swink %s: %w", u.Path, err)
	}
	defer f.Close()

	id := strings.TrimSuffix(filepath.Base(u.Path), ".jsonl")
	p := &jsonl.Parsed{Unit: u}
	problem := func(line int, format string, args ...any) {
		p.Problems = append(p.Problems, jsonl.Problem{Path: u.Path, Line: line, Reason: fmt.Sprintf(format, args...)})
	}

	var (
		header    *swinkMeta
		headerErr error
		meta      swinkMeta
		output    []swLine
		pending   []swLine
		inBlock   bool
		blockLine int
	)
	scanErr := jsonl.ScanLines(f, 0, func(line []byte, no int, start, end int64, complete bool) error {
		if no%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if complete {
			p.Offset = end
		}
		if no == 1 {
			switch {
			case jsonl.Oversized(line):
				headerErr = fmt.Errorf("header longer than %d bytes", jsonl.MaxLineSize)
			default:
				m, err := parseSwinkMeta(jsonl.TrimCR(line))
				if err != nil {
					headerErr = err
				} else {
					header = &m
					meta = m
				}
			}
			if headerErr != nil {
				return jsonl.ErrStopScan
			}
			return nil
		}
		torn := ""
		if !complete {
			torn = " (torn last line, no newline)"
		}
		if jsonl.Oversized(line) {
			problem(no, "line longer than %d bytes skipped%s", jsonl.MaxLineSize, torn)
			return nil
		}
		line = jsonl.TrimCR(line)
		if !utf8.Valid(line) {
			problem(no, "invalid UTF-8 skipped%s", torn)
			return nil
		}
		rec := classifySwinkLine(line, no)
		if rec.class == swOther && torn != "" {
			rec.reason += torn
		}
		switch rec.class {
		case swBegin:
			if inBlock {
				problem(blockLine, "nested append marker at line %d: uncommitted append block discarded (%d lines)", no, len(pending))
			}
			inBlock, blockLine, pending = true, no, nil
		case swCommit:
			output = append(output, pending...)
			inBlock, pending = false, nil
			meta = rec.meta
		default:
			if inBlock {
				pending = append(pending, rec)
			} else {
				output = append(output, rec)
			}
		}
		return nil
	})
	if scanErr != nil {
		return nil, fmt.Errorf("parse swink %s: %w", u.Path, scanErr)
	}
	if header == nil {
		if headerErr == nil {
			return nil, fmt.Errorf("parse swink %s: %w: empty session file", u.Path, sessiondb.ErrInvalid)
		}
		return nil, fmt.Errorf("parse swink %s:1: %w: invalid session metadata: %v", u.Path, sessiondb.ErrInvalid, headerErr)
	}
	if inBlock {
		problem(blockLine, "uncommitted append discarded (%d lines): no _meta commit before end of file", len(pending))
	}
	// Report in line order (stage A drops invalid UTF-8 lines at once, stage
	// B and the end of file report the rest later).
	byLine := func() {
		sort.SliceStable(p.Problems, func(i, j int) bool { return p.Problems[i].Line < p.Problems[j].Line })
	}
	if meta.Version > swinkCurrentVersion {
		byLine()
		// The line problems are still handed back for the report.
		return p, fmt.Errorf("parse swink %s: unsupported session version %d (current: %d), not imported: %w", u.Path, meta.Version, swinkCurrentVersion, ErrVersion)
	}
	if meta.Version < swinkCurrentVersion {
		problem(0, "session schema version %d is older than %d: swink loads it only through a %d -> %d SessionMigrator; imported unmigrated with version %d", meta.Version, swinkCurrentVersion, meta.Version, meta.Version+1, meta.Version)
	}

	// Stage B, in file order.
	lastTime := meta.CreatedAt
	stateDone := false
	var model, provider string
	for _, r := range output {
		if !stateDone {
			switch {
			case r.stateSeen == 2:
				problem(r.no, "corrupted state line: swink's load_state fails, no state imported")
				stateDone = true
			case r.stateSeen == 1 && r.class != swState:
				problem(r.no, "invalid state marker (_state is not true): swink's load_state fails, no state imported")
				stateDone = true
			case r.class == swState:
				if r.stateErr != "" {
					problem(r.no, "state line %s: no state imported", r.stateErr)
				} else {
					p.State = r.state
				}
				stateDone = true
			}
		} else if r.class == swState {
			problem(r.no, "additional state line ignored (swink reads the first)")
		}
		switch r.class {
		case swOther, swBlank:
			problem(r.no, "%s", r.reason)
		case swEntry, swCustom:
			e := r.entry
			if r.hasTS {
				lastTime = e.CreatedAt
			} else {
				e.CreatedAt = lastTime
			}
			p.Entries = append(p.Entries, e)
			if r.usage != nil {
				us := *r.usage
				us.Seq = int64(len(p.Entries))
				provider, model = us.Provider, us.Model
				p.Usage = append(p.Usage, us)
			}
		}
	}

	byLine()

	attrs := map[string]any{"swink_sequence": meta.Sequence}
	if model != "" {
		attrs["model"] = model
	}
	if provider != "" {
		attrs["provider"] = provider
	}
	attrJSON, _ := json.Marshal(attrs)
	p.Session = sessiondb.Session{
		ID:        id,
		Title:     meta.Title,
		CreatedAt: meta.CreatedAt,
		UpdatedAt: meta.UpdatedAt,
		Version:   int(meta.Version),
		Attrs:     attrJSON,
	}

	for _, x := range u.Extra {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if filepath.Dir(x) == filepath.Dir(u.Path) && filepath.Base(x) == id+".interrupt.json" {
			p.Interrupt = readSwinkInterrupt(x, swSideProblem(p, x))
			continue
		}
		if cp, ok := readSwinkCheckpoint(x, id, p.Entries, swSideProblem(p, x)); ok {
			p.Checkpoints = append(p.Checkpoints, cp)
		}
	}
	return p, nil
}

// swSideProblem returns a problem reporter for side file path.
func swSideProblem(p *jsonl.Parsed, path string) func(line int, format string, args ...any) {
	return func(line int, format string, args ...any) {
		p.Problems = append(p.Problems, jsonl.Problem{Path: path, Line: line, Reason: fmt.Sprintf(format, args...)})
	}
}

// classifySwinkLine classifies one valid-UTF-8 record line (stages A and B
// together: the class decides stage A, the entry stage B).
func classifySwinkLine(line []byte, no int) swLine {
	r := swLine{no: no, class: swOther}
	if jsonl.IsBlank(line) {
		r.class, r.reason = swBlank, "blank line skipped"
		return r
	}
	if err := swSerdeJSONValid(line); err != nil {
		r.reason = "not JSON, skipped: " + err.Error()
		if bytes.Contains(line, []byte(`"_state"`)) {
			r.stateSeen = 2
		}
		return r
	}
	kvs, err := swDecodeObject(line)
	if err != nil {
		r.reason = "not a JSON object, skipped"
		return r
	}
	get := func(k string) (json.RawMessage, bool) { return swLastKV(kvs, k) }
	isTrue := func(k string) bool {
		v, ok := get(k)
		return ok && string(v) == "true"
	}
	if _, ok := get("_state"); ok {
		r.stateSeen = 1
	}
	switch {
	case isTrue("_state"):
		r.class = swState
		data, ok := get("data")
		if !ok {
			r.stateErr = "has no data"
		} else {
			r.state = data
		}
		return r
	case isTrue("_append"):
		r.class = swBegin
		return r
	case isTrue("_meta"):
		if data, ok := get("data"); ok {
			if m, err := parseSwinkMeta(data); err == nil {
				r.class, r.meta = swCommit, m
				return r
			}
		}
		r.reason = "_meta record whose data is not a SessionMeta, skipped"
		return r
	case isTrue("_custom"):
		typ, ok := get("type")
		if !ok || swCheckString(typ) != nil {
			r.reason = "_custom message without a string type, skipped"
			return r
		}
		if _, ok := get("data"); !ok {
			r.reason = "_custom message without data, skipped"
			return r
		}
		r.class = swCustom
		r.entry = sessiondb.Entry{Kind: sessiondb.KindCustom, Body: bytes.Clone(line)}
		return r
	}
	if et, ok := get("entry_type"); ok {
		if err := checkSwinkSessionEntry(line); err != nil {
			r.reason = "invalid rich entry, skipped: " + err.Error()
			return r
		}
		var typ string
		_ = json.Unmarshal(et, &typ)
		data, _ := get("data")
		if typ == "message" {
			r.class = swEntry
			r.entry = sessiondb.Entry{Kind: sessiondb.KindMessage, Body: bytes.Clone(data)}
			r.fillMessage(data)
			return r
		}
		kind := typ
		if typ == "custom" {
			kind = swinkKindCustomEntry
		}
		r.class = swEntry
		r.entry = sessiondb.Entry{Kind: kind, Body: bytes.Clone(line)}
		if dkv, err := swDecodeObject(data); err == nil {
			if ts, ok := swLastKV(dkv, "timestamp"); ok {
				r.setTime(ts)
			}
		}
		return r
	}
	if err := checkSwinkLlmMessage(line); err != nil {
		r.reason = "not a valid swink message, skipped: " + err.Error()
		return r
	}
	r.class = swEntry
	r.entry = sessiondb.Entry{Kind: sessiondb.KindMessage, Body: bytes.Clone(line)}
	r.fillMessage(line)
	return r
}

// fillMessage sets role, time and usage from a valid LlmMessage.
func (r *swLine) fillMessage(msg json.RawMessage) {
	var m struct {
		Role      string          `json:"role"`
		Timestamp json.RawMessage `json:"timestamp"`
		Provider  string          `json:"provider"`
		ModelID   string          `json:"model_id"`
		Usage     struct {
			Input      int64 `json:"input"`
			Output     int64 `json:"output"`
			CacheRead  int64 `json:"cache_read"`
			CacheWrite int64 `json:"cache_write"`
		} `json:"usage"`
		Cost struct {
			Total float64 `json:"total"`
		} `json:"cost"`
	}
	// Validated already; a u64 above MaxInt64 only fails the int64 fields.
	_ = json.Unmarshal(msg, &m)
	r.entry.Role = m.Role
	r.setTime(m.Timestamp)
	if m.Role == "assistant" {
		r.usage = &sessiondb.Usage{
			Provider:         m.Provider,
			Model:            m.ModelID,
			InputTokens:      m.Usage.Input,
			OutputTokens:     m.Usage.Output,
			CacheReadTokens:  m.Usage.CacheRead,
			CacheWriteTokens: m.Usage.CacheWrite,
			Cost:             m.Cost.Total,
			CreatedAt:        r.entry.CreatedAt,
		}
	}
}

// swMaxSwinkUnix is the largest timestamp turned into a time (9999-12-31).
const swMaxSwinkUnix = 253402300799

func (r *swLine) setTime(ts json.RawMessage) {
	n, err := strconv.ParseUint(string(ts), 10, 64)
	if err != nil || n > swMaxSwinkUnix {
		return
	}
	r.entry.CreatedAt = time.Unix(int64(n), 0).UTC()
	r.hasTS = true
}

// parseSwinkMeta parses a SessionMeta strictly, as serde does.
func parseSwinkMeta(b []byte) (swinkMeta, error) {
	var m swinkMeta
	if !utf8.Valid(b) {
		return m, errors.New("not valid UTF-8")
	}
	if err := swSerdeJSONValid(b); err != nil {
		return m, err
	}
	if err := checkSwinkMeta(b); err != nil {
		return m, err
	}
	kvs, _ := swDecodeObject(b)
	m.Version = swinkCurrentVersion
	for _, kv := range kvs {
		switch kv.key {
		case "id":
			_ = json.Unmarshal(kv.val, &m.ID)
		case "title":
			_ = json.Unmarshal(kv.val, &m.Title)
		case "created_at":
			m.CreatedAt, _ = parseSwinkTime(kv.val)
		case "updated_at":
			m.UpdatedAt, _ = parseSwinkTime(kv.val)
		case "version":
			m.Version, _ = strconv.ParseUint(string(kv.val), 10, 32)
		case "sequence":
			m.Sequence, _ = strconv.ParseUint(string(kv.val), 10, 64)
		}
	}
	return m, nil
}

// parseSwinkTime parses a chrono DateTime<Utc> as serialized (RFC 3339).
func parseSwinkTime(v json.RawMessage) (time.Time, error) {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return time.Time{}, errors.New("expected a string")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		// chrono also accepts a lowercase 't'/'z' and a space separator.
		norm := s
		if len(norm) > 10 && (norm[10] == ' ' || norm[10] == 't') {
			norm = norm[:10] + "T" + norm[11:]
		}
		if strings.HasSuffix(norm, "z") {
			norm = norm[:len(norm)-1] + "Z"
		}
		if t, err = time.Parse(time.RFC3339Nano, norm); err != nil {
			return time.Time{}, fmt.Errorf("invalid RFC 3339 time %q", s)
		}
	}
	return t.UTC(), nil
}

// formatSwinkTime formats t as chrono serializes a DateTime<Utc>: RFC 3339,
// 'Z', with 0, 3, 6 or 9 fraction digits, as few as are exact.
func formatSwinkTime(t time.Time) string {
	t = t.UTC()
	ns := t.Nanosecond()
	base := t.Format("2006-01-02T15:04:05")
	switch {
	case ns == 0:
		return base + "Z"
	case ns%1_000_000 == 0:
		return fmt.Sprintf("%s.%03dZ", base, ns/1_000_000)
	case ns%1_000 == 0:
		return fmt.Sprintf("%s.%06dZ", base, ns/1_000)
	default:
		return fmt.Sprintf("%s.%09dZ", base, ns)
	}
}

// readSwinkInterrupt returns the exact bytes of a valid InterruptState file,
// or nil after reporting why not.
func readSwinkInterrupt(path string, problem func(int, string, ...any)) json.RawMessage {
	b, err := swReadSideFile(path)
	if err != nil {
		problem(0, "interrupt not imported: %v", err)
		return nil
	}
	if err := checkSwinkInterrupt(b); err != nil {
		problem(0, "corrupted interrupt file (swink's load_interrupt fails), not imported: %v", err)
		return nil
	}
	return b
}

// swReadSideFile reads a JSON side file of at most MaxBodySize bytes.
func swReadSideFile(path string) ([]byte, error) {
	f, err := jsonl.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, sessiondb.MaxBodySize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > sessiondb.MaxBodySize {
		return nil, fmt.Errorf("file larger than %d bytes", sessiondb.MaxBodySize)
	}
	if !utf8.Valid(b) {
		return nil, errors.New("not valid UTF-8")
	}
	if err := swSerdeJSONValid(b); err != nil {
		return nil, err
	}
	return b, nil
}

// readSwinkCheckpoint turns a checkpoint file into a sessiondb.Checkpoint.
func readSwinkCheckpoint(path, sessionID string, entries []sessiondb.Entry, problem func(int, string, ...any)) (sessiondb.Checkpoint, bool) {
	var cp sessiondb.Checkpoint
	b, err := swReadSideFile(path)
	if err != nil {
		problem(0, "checkpoint not imported: %v", err)
		return cp, false
	}
	if err := checkSwinkCheckpoint(b); err != nil {
		problem(0, "not a valid swink checkpoint (FileCheckpointStore skips it), not imported: %v", err)
		return cp, false
	}
	cpID := strings.TrimSuffix(filepath.Base(path), ".json")
	if !validSwinkID(cpID) {
		problem(0, "invalid checkpoint ID %q, not imported", cpID)
		return cp, false
	}
	kvs, _ := swDecodeObject(b)
	get := func(k string) json.RawMessage { v, _ := swLastKV(kvs, k); return v }
	var created uint64
	created, _ = strconv.ParseUint(string(get("created_at")), 10, 64)
	cp = sessiondb.Checkpoint{
		ID:        cpID,
		SessionID: sessionID,
		Label:     strings.TrimPrefix(cpID, sessionID+"-"),
		State:     json.RawMessage("null"),
		Metadata:  b,
	}
	if created <= swMaxSwinkUnix {
		cp.CreatedAt = time.Unix(int64(created), 0).UTC()
	}
	if st := get("state"); st != nil {
		cp.State = st
	}
	if inner := get("id"); inner != nil {
		var s string
		_ = json.Unmarshal(inner, &s)
		if s != cpID {
			problem(0, "checkpoint id %q differs from its file name; the file name is used", s)
		}
	}
	msgs := swinkCheckpointMessages(kvs)
	if n, ok := swMatchCheckpoint(msgs, entries); ok {
		cp.AtSeq = int64(n)
	} else {
		n := 0
		for i, e := range entries {
			if !e.CreatedAt.After(cp.CreatedAt) {
				n = i + 1
			}
		}
		cp.AtSeq = int64(n)
		problem(0, "checkpoint messages are not a prefix of the session transcript; position %d estimated from created_at", n)
	}
	return cp, true
}

// swCpMsg is one message of a checkpoint: an LLM message or the {"data","type"}
// of a custom message.
type swCpMsg struct {
	custom bool
	value  json.RawMessage
}

// swinkCheckpointMessages rebuilds a checkpoint's message order.
func swinkCheckpointMessages(kvs []swJsonKV) []swCpMsg {
	var llm, custom []json.RawMessage
	var order []struct {
		Kind  string `json:"kind"`
		Index uint64 `json:"index"`
	}
	if v, ok := swLastKV(kvs, "messages"); ok {
		_ = json.Unmarshal(v, &llm)
	}
	if v, ok := swLastKV(kvs, "custom_messages"); ok {
		_ = json.Unmarshal(v, &custom)
	}
	if v, ok := swLastKV(kvs, "message_order"); ok {
		_ = json.Unmarshal(v, &order)
	}
	var out []swCpMsg
	if len(order) == 0 {
		for _, m := range llm {
			out = append(out, swCpMsg{value: m})
		}
		for _, m := range custom {
			out = append(out, swCpMsg{custom: true, value: m})
		}
		return out
	}
	for _, o := range order {
		switch {
		case o.Kind == "Llm" && o.Index < uint64(len(llm)):
			out = append(out, swCpMsg{value: llm[o.Index]})
		case o.Kind == "Custom" && o.Index < uint64(len(custom)):
			out = append(out, swCpMsg{custom: true, value: custom[o.Index]})
		}
	}
	return out
}

// swMatchCheckpoint reports the 1-based entry number at which the message
// entries (Kind message and custom) of entries match msgs as a prefix.
func swMatchCheckpoint(msgs []swCpMsg, entries []sessiondb.Entry) (int, bool) {
	if len(msgs) == 0 {
		return 0, false
	}
	i := 0
	for n, e := range entries {
		var got json.RawMessage
		switch e.Kind {
		case sessiondb.KindMessage:
			if msgs[i].custom {
				return 0, false
			}
			got = e.Body
		case sessiondb.KindCustom:
			if !msgs[i].custom {
				return 0, false
			}
			kvs, err := swDecodeObject(e.Body)
			if err != nil {
				return 0, false
			}
			d, _ := swLastKV(kvs, "data")
			t, _ := swLastKV(kvs, "type")
			got, _ = json.Marshal(map[string]json.RawMessage{"data": d, "type": t})
		default:
			continue
		}
		if !swJsonEqual(got, msgs[i].value) {
			return 0, false
		}
		i++
		if i == len(msgs) {
			return n + 1, true
		}
	}
	return 0, false
}

// swJsonEqual compares two JSON documents as values (numbers by their text).
func swJsonEqual(a, b []byte) bool {
	var va, vb any
	da := json.NewDecoder(bytes.NewReader(a))
	da.UseNumber()
	db := json.NewDecoder(bytes.NewReader(b))
	db.UseNumber()
	if da.Decode(&va) != nil || db.Decode(&vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// ---------------------------------------------------------------------------
// Export

// Export writes session id in swink's format under dir; see the type
// documentation.
func (sw Format) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	return jsonl.ExportDir(ctx, sw, s, id, dir)
}

// ExportFiles implements jsonl.Exporter. Without an interrupt, the session's
// interrupt file is planned as a removal: a stale one would make swink
// resume a finished turn.
func (Format) ExportFiles(ctx context.Context, s sessiondb.Store, id string) ([]jsonl.File, error) {
	full, err := s.LoadFull(ctx, id, sessiondb.LoadOptions{})
	if err != nil {
		return nil, fmt.Errorf("export swink %s: %w", id, err)
	}
	sess := full.Session
	if !validSwinkID(sess.ID) {
		return nil, fmt.Errorf("export swink %s: %w: not a valid swink session ID", id, sessiondb.ErrInvalid)
	}
	version := sess.Version
	if version == 0 && sess.SourceFormat != Name {
		// A session that never had a swink schema version: its bodies are
		// whatever they are, and swink reads only version 1 without a
		// migrator.
		version = swinkCurrentVersion
	}
	if version < 0 {
		return nil, fmt.Errorf("export swink %s: %w: negative version %d", id, sessiondb.ErrInvalid, version)
	}

	var buf bytes.Buffer
	buf.WriteString(swinkHeader(sess, version))
	buf.WriteString(strings.Repeat(" ", swinkHeaderPadding))
	buf.WriteByte('\n')
	for i, e := range full.Transcript {
		line, err := swinkEntryLine(e)
		if err != nil {
			return nil, fmt.Errorf("export swink %s: entry %d: %w", id, i+1, err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if full.State != nil {
		data, err := swCompactJSON(full.State)
		if err != nil {
			return nil, fmt.Errorf("export swink %s: state: %w", id, err)
		}
		buf.WriteString(`{"_state":true,"data":`)
		buf.Write(data)
		buf.WriteString("}\n")
	}
	if full.Interrupt != nil {
		if !utf8.Valid(full.Interrupt) {
			return nil, fmt.Errorf("export swink %s: %w: interrupt is not valid UTF-8", id, sessiondb.ErrInvalid)
		}
		if err := checkSwinkInterrupt(full.Interrupt); err != nil {
			return nil, fmt.Errorf("export swink %s: %w: interrupt is not a swink InterruptState: %v", id, sessiondb.ErrInvalid, err)
		}
	}

	cps, err := s.ListCheckpoints(ctx, sess.ID)
	if err != nil {
		return nil, fmt.Errorf("export swink %s: list checkpoints: %w", id, err)
	}
	type cpFile struct {
		name string
		data []byte
	}
	var cpFiles []cpFile
	for _, cp := range cps {
		if !validSwinkID(cp.ID) {
			return nil, fmt.Errorf("export swink %s: %w: checkpoint ID %q is not a valid swink ID", id, sessiondb.ErrInvalid, cp.ID)
		}
		doc, err := swinkCheckpointDoc(ctx, s, sess.ID, cp)
		if err != nil {
			return nil, fmt.Errorf("export swink %s: checkpoint %s: %w", id, cp.ID, err)
		}
		cpFiles = append(cpFiles, cpFile{cp.ID + ".json", doc})
	}

	files := []jsonl.File{jsonl.BytesFile("sessions/"+sess.ID+".jsonl", buf.Bytes())}
	if full.Interrupt != nil {
		files = append(files, jsonl.BytesFile("sessions/"+sess.ID+".interrupt.json", full.Interrupt))
	} else {
		files = append(files, jsonl.File{Rel: "sessions/" + sess.ID + ".interrupt.json"})
	}
	for _, c := range cpFiles {
		files = append(files, jsonl.BytesFile("checkpoints/"+c.name, c.data))
	}
	return files, nil
}

// swinkHeader returns the SessionMeta JSON of a header line, in field order.
func swinkHeader(s sessiondb.Session, version int) string {
	var b strings.Builder
	b.WriteString(`{"id":`)
	b.WriteString(swSerdeString(s.ID))
	b.WriteString(`,"title":`)
	b.WriteString(swSerdeString(s.Title))
	b.WriteString(`,"created_at":"`)
	b.WriteString(formatSwinkTime(s.CreatedAt))
	b.WriteString(`","updated_at":"`)
	b.WriteString(formatSwinkTime(s.UpdatedAt))
	b.WriteString(`","version":`)
	b.WriteString(strconv.Itoa(version))
	b.WriteString(`,"sequence":`)
	b.WriteString(strconv.FormatInt(max(s.Sequence, 0), 10))
	b.WriteString(`}`)
	return b.String()
}

// swSerdeString encodes s as serde_json does: raw UTF-8, escapes only for '"',
// '\\' and control characters. Invalid UTF-8 becomes U+FFFD.
func swSerdeString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// swinkEntryLine renders one transcript entry as a swink record line that
// swink's classifier reads back as the same entry, without disturbing its
// state reader (which fails on any top-level "_state" key that is not the
// state line's):
//
//   - a message body is written as it is, unless one of its top-level keys
//     would make swink read it as something else ("_state", "entry_type",
//     or "_append", "_meta" or "_custom" set to true): then it goes in an
//     {"entry_type":"message","data":…} envelope;
//   - a custom body that is a swink {"_custom":true,…} envelope is written
//     as it is (rebuilt with only "_custom", "data" and "type" when it carries
//     such keys); any other body becomes the data of a "custom" envelope;
//   - a rich-entry body that carries its {"entry_type","data"} envelope is
//     written as it is (rebuilt from those two keys in the same case); any
//     other body becomes the data of an envelope named by the kind.
func swinkEntryLine(e sessiondb.Entry) ([]byte, error) {
	body, err := swCompactJSON(e.Body)
	if err != nil {
		return nil, err
	}
	kvs, objErr := swDecodeObject(body)
	get := func(k string) (json.RawMessage, bool) {
		if objErr != nil {
			return nil, false
		}
		return swLastKV(kvs, k)
	}
	isTrue := func(k string) bool {
		v, ok := get(k)
		return ok && string(v) == "true"
	}
	_, hasState := get("_state")
	marker := hasState || isTrue("_append") || isTrue("_meta")
	switch e.Kind {
	case sessiondb.KindMessage, "":
		if _, ok := get("entry_type"); marker || ok || isTrue("_custom") {
			return swWrapEntry("message", body), nil
		}
		return body, nil
	case sessiondb.KindCustom:
		if isTrue("_custom") {
			data, okD := get("data")
			typ, okT := get("type")
			if !marker {
				return body, nil
			}
			if okD && okT {
				var b bytes.Buffer
				b.WriteString(`{"_custom":true,"data":`)
				b.Write(data)
				b.WriteString(`,"type":`)
				b.Write(typ)
				b.WriteString(`}`)
				return b.Bytes(), nil
			}
		}
		var b bytes.Buffer
		b.WriteString(`{"_custom":true,"data":`)
		b.Write(body)
		b.WriteString(`,"type":"custom"}`)
		return b.Bytes(), nil
	default:
		et, okE := get("entry_type")
		data, okD := get("data")
		if okE && okD && swCheckString(et) == nil {
			if !marker && !isTrue("_custom") {
				return body, nil
			}
			var typ string
			_ = json.Unmarshal(et, &typ)
			return swWrapEntry(typ, data), nil
		}
		typ := e.Kind
		if typ == swinkKindCustomEntry {
			typ = "custom"
		}
		return swWrapEntry(typ, body), nil
	}
}

func swWrapEntry(typ string, data []byte) []byte {
	var b bytes.Buffer
	b.WriteString(`{"entry_type":`)
	b.WriteString(swSerdeString(typ))
	b.WriteString(`,"data":`)
	b.Write(data)
	b.WriteString(`}`)
	return b.Bytes()
}

// swCompactJSON returns doc without insignificant whitespace; it fails on
// documents swink could not read back on one line.
func swCompactJSON(doc []byte) ([]byte, error) {
	if !utf8.Valid(doc) {
		return nil, fmt.Errorf("%w: body is not valid UTF-8, swink would drop it", sessiondb.ErrInvalid)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, doc); err != nil {
		return nil, fmt.Errorf("%w: body is not JSON: %v", sessiondb.ErrInvalid, err)
	}
	return b.Bytes(), nil
}

// swinkCheckpointDoc returns the checkpoint file for cp: its original file
// when it was imported from swink, else a Checkpoint built from the log.
func swinkCheckpointDoc(ctx context.Context, s sessiondb.Store, sessionID string, cp sessiondb.Checkpoint) ([]byte, error) {
	if cp.Metadata != nil && utf8.Valid(cp.Metadata) && checkSwinkCheckpoint(cp.Metadata) == nil {
		kvs, _ := swDecodeObject(cp.Metadata)
		if v, ok := swLastKV(kvs, "id"); ok {
			var inner string
			if json.Unmarshal(v, &inner) == nil && inner == cp.ID {
				return cp.Metadata, nil
			}
		}
	}
	entries, err := s.Entries(ctx, sessionID, 1, cp.AtSeq)
	if err != nil {
		return nil, err
	}
	type order struct {
		Kind  string `json:"kind"`
		Index int    `json:"index"`
	}
	doc := struct {
		ID             string            `json:"id"`
		SystemPrompt   string            `json:"system_prompt"`
		Provider       string            `json:"provider"`
		ModelID        string            `json:"model_id"`
		Messages       []json.RawMessage `json:"messages"`
		CustomMessages []json.RawMessage `json:"custom_messages,omitempty"`
		MessageOrder   []order           `json:"message_order,omitempty"`
		TurnCount      int               `json:"turn_count"`
		Usage          json.RawMessage   `json:"usage"`
		Cost           json.RawMessage   `json:"cost"`
		CreatedAt      int64             `json:"created_at"`
		Metadata       json.RawMessage   `json:"metadata,omitempty"`
		State          json.RawMessage   `json:"state,omitempty"`
	}{
		ID:        cp.ID,
		Messages:  []json.RawMessage{},
		Usage:     json.RawMessage(`{"input":0,"output":0,"cache_read":0,"cache_write":0,"total":0}`),
		Cost:      json.RawMessage(`{"input":0.0,"output":0.0,"cache_read":0.0,"cache_write":0.0,"total":0.0}`),
		CreatedAt: max(cp.CreatedAt.Unix(), 0),
	}
	if cp.State != nil && string(cp.State) != "null" {
		doc.State = cp.State
	}
	for _, e := range entries {
		switch e.Kind {
		case sessiondb.KindMessage:
			if !utf8.Valid(e.Body) || checkSwinkLlmMessage(e.Body) != nil {
				continue
			}
			var m struct {
				Role string `json:"role"`
			}
			_ = json.Unmarshal(e.Body, &m)
			if m.Role == "user" {
				doc.TurnCount++
			}
			doc.MessageOrder = append(doc.MessageOrder, order{"Llm", len(doc.Messages)})
			doc.Messages = append(doc.Messages, e.Body)
		case sessiondb.KindCustom:
			// A swink envelope gives its data and type; any other body
			// is wrapped as swinkEntryLine wraps it.
			body, err := swCompactJSON(e.Body)
			if err != nil {
				continue
			}
			d, t := json.RawMessage(body), json.RawMessage(`"custom"`)
			if kvs, err := swDecodeObject(body); err == nil {
				if v, ok := swLastKV(kvs, "_custom"); ok && string(v) == "true" {
					d, _ = swLastKV(kvs, "data")
					t, _ = swLastKV(kvs, "type")
					if d == nil || t == nil {
						continue
					}
				}
			}
			env, _ := json.Marshal(map[string]json.RawMessage{"data": d, "type": t})
			doc.MessageOrder = append(doc.MessageOrder, order{"Custom", len(doc.CustomMessages)})
			doc.CustomMessages = append(doc.CustomMessages, env)
		}
	}
	if len(doc.CustomMessages) == 0 {
		doc.MessageOrder = nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// ---------------------------------------------------------------------------
// Strict JSON checks mirroring swink's serde types.

// swJsonKV is one member of a JSON object, in document order.
type swJsonKV struct {
	key string
	val json.RawMessage
}

var swErrNotObject = errors.New("not a JSON object")

// swDecodeObject splits a JSON object into its members, in order, keeping
// duplicates and each value's exact bytes.
func swDecodeObject(b []byte) ([]swJsonKV, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, swErrNotObject
	}
	var kvs []swJsonKV
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, ok := t.(string)
		if !ok {
			return nil, swErrNotObject
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		kvs = append(kvs, swJsonKV{k, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after JSON object")
	}
	return kvs, nil
}

// swLastKV returns the last value of key (serde_json's Value keeps the last).
func swLastKV(kvs []swJsonKV, key string) (json.RawMessage, bool) {
	for i := len(kvs) - 1; i >= 0; i-- {
		if kvs[i].key == key {
			return kvs[i].val, true
		}
	}
	return nil, false
}

// swSerdeMaxDepth is serde_json's recursion limit: 128 levels of arrays and
// objects fail, 127 pass.
const swSerdeMaxDepth = 127

// swSerdeJSONValid reports whether serde_json would parse b as one JSON value:
// valid JSON, valid UTF-8, no lone surrogate escape, nesting within
// serde_json's recursion limit.
func swSerdeJSONValid(b []byte) error {
	if !utf8.Valid(b) {
		return errors.New("invalid UTF-8")
	}
	if !json.Valid(b) {
		var v json.RawMessage
		if err := json.Unmarshal(b, &v); err != nil {
			return fmt.Errorf("invalid JSON: %v", err)
		}
		return errors.New("invalid JSON")
	}
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '[', '{':
			depth++
			if depth > swSerdeMaxDepth {
				return errors.New("nesting deeper than serde_json's recursion limit")
			}
		case ']', '}':
			depth--
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] != '\\' {
					continue
				}
				i++
				if b[i] != 'u' {
					continue
				}
				r := swHex4(b[i+1 : i+5])
				i += 4
				switch {
				case r >= 0xDC00 && r <= 0xDFFF:
					return errors.New("lone trailing surrogate in string escape")
				case r >= 0xD800 && r <= 0xDBFF:
					if i+6 < len(b) && b[i+1] == '\\' && b[i+2] == 'u' {
						if r2 := swHex4(b[i+3 : i+7]); r2 >= 0xDC00 && r2 <= 0xDFFF {
							i += 6
							continue
						}
					}
					return errors.New("lone leading surrogate in string escape")
				}
			}
		}
	}
	return nil
}

func swHex4(b []byte) rune {
	n, _ := strconv.ParseUint(string(b), 16, 32)
	return rune(n)
}

// A swCheck validates one JSON value (already known to be valid JSON).
type swCheck func(v json.RawMessage) error

// swField describes one struct field: swReq (no serde default), swOpt (a serde
// default: may be missing, null only if the type allows it), or swNullable
// (an Option: may be missing or null).
type swField struct {
	name     string
	c        swCheck
	required bool
	canNull  bool
}

func swReq(name string, c swCheck) swField      { return swField{name: name, c: c, required: true} }
func swOpt(name string, c swCheck) swField      { return swField{name: name, c: c} }
func swNullable(name string, c swCheck) swField { return swField{name: name, c: c, canNull: true} }

func swIsNull(v json.RawMessage) bool { return string(v) == "null" }

func swCheckString(v json.RawMessage) error {
	if len(v) == 0 || v[0] != '"' {
		return errors.New("expected a string")
	}
	return nil
}

func swCheckAny(json.RawMessage) error { return nil }

func swCheckBool(v json.RawMessage) error {
	if s := string(v); s != "true" && s != "false" {
		return errors.New("expected a boolean")
	}
	return nil
}

// swCheckUint accepts an integer literal between 0 and limit (serde rejects
// floats, exponents and negative numbers for unsigned integers).
func swCheckUint(limit uint64) swCheck {
	return func(v json.RawMessage) error {
		s := string(v)
		if s == "-0" {
			return nil
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || n > limit {
			return fmt.Errorf("expected an unsigned integer, got %.40s", s)
		}
		return nil
	}
}

var (
	swCheckU64 = swCheckUint(math.MaxUint64)
	swCheckU32 = swCheckUint(math.MaxUint32)
)

func swCheckF64(v json.RawMessage) error {
	if len(v) == 0 || !(v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
		return errors.New("expected a number")
	}
	if _, err := strconv.ParseFloat(string(v), 64); err != nil {
		return fmt.Errorf("number out of range: %.40s", v)
	}
	return nil
}

func swCheckTime(v json.RawMessage) error {
	_, err := parseSwinkTime(v)
	return err
}

func swOneOf(vals ...string) swCheck {
	return func(v json.RawMessage) error {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return errors.New("expected a string")
		}
		for _, x := range vals {
			if s == x {
				return nil
			}
		}
		return fmt.Errorf("unknown variant %q", s)
	}
}

func swArrayOf(c swCheck) swCheck {
	return func(v json.RawMessage) error {
		var items []json.RawMessage
		if len(v) == 0 || v[0] != '[' || json.Unmarshal(v, &items) != nil {
			return errors.New("expected an array")
		}
		for i, it := range items {
			if err := c(it); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	}
}

func swMapOf(c swCheck) swCheck {
	return func(v json.RawMessage) error {
		kvs, err := swDecodeObject(v)
		if err != nil {
			return errors.New("expected an object")
		}
		for _, kv := range kvs {
			if err := c(kv.val); err != nil {
				return fmt.Errorf("%s: %w", kv.key, err)
			}
		}
		return nil
	}
}

// swObject checks a struct: known fields once each, required ones present,
// unknown fields ignored (serde's default).
func swObject(fields ...swField) swCheck {
	return func(v json.RawMessage) error {
		kvs, err := swDecodeObject(v)
		if err != nil {
			return errors.New("expected an object")
		}
		return swCheckFields(kvs, fields, "")
	}
}

func swCheckFields(kvs []swJsonKV, fields []swField, skip string) error {
	seen := make(map[string]bool, len(fields))
	for _, kv := range kvs {
		if kv.key == skip {
			continue
		}
		for _, f := range fields {
			if f.name != kv.key {
				continue
			}
			if seen[f.name] {
				return fmt.Errorf("duplicate field %q", f.name)
			}
			seen[f.name] = true
			if f.canNull && swIsNull(kv.val) {
				break
			}
			if err := f.c(kv.val); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
			break
		}
	}
	for _, f := range fields {
		if f.required && !seen[f.name] {
			return fmt.Errorf("missing field %q", f.name)
		}
	}
	return nil
}

// swTagged checks an internally tagged enum: the tag field names the variant,
// whose fields live beside it.
func swTagged(tag string, variants map[string][]swField) swCheck {
	return func(v json.RawMessage) error {
		kvs, err := swDecodeObject(v)
		if err != nil {
			return errors.New("expected an object")
		}
		var tv json.RawMessage
		for _, kv := range kvs {
			if kv.key == tag {
				if tv != nil {
					return fmt.Errorf("duplicate field %q", tag)
				}
				tv = kv.val
			}
		}
		if tv == nil {
			return fmt.Errorf("missing field %q", tag)
		}
		var name string
		if json.Unmarshal(tv, &name) != nil {
			return fmt.Errorf("%s: expected a string", tag)
		}
		fields, ok := variants[name]
		if !ok {
			return fmt.Errorf("unknown %s %q", tag, name)
		}
		if err := swCheckFields(kvs, fields, tag); err != nil {
			return fmt.Errorf("%s %s: %w", tag, name, err)
		}
		return nil
	}
}

// The swink types (formats/swink.md §1.4, §1.5, §1.12, §1.13). Built lazily
// because some refer to each other.
var (
	swCheckUsage = swObject(
		swReq("input", swCheckU64), swReq("output", swCheckU64), swReq("cache_read", swCheckU64),
		swReq("cache_write", swCheckU64), swReq("total", swCheckU64), swOpt("extra", swMapOf(swCheckU64)))
	swCheckCost = swObject(
		swReq("input", swCheckF64), swReq("output", swCheckF64), swReq("cache_read", swCheckF64),
		swReq("cache_write", swCheckF64), swReq("total", swCheckF64), swOpt("extra", swMapOf(swCheckF64)))
	swCheckCacheHint = swTagged("action", map[string][]swField{
		"write": {swReq("ttl", swCheckU64)},
		"read":  {},
	})
	swCheckImageSource = swTagged("type", map[string][]swField{
		"base64": {swReq("media_type", swCheckString), swReq("data", swCheckString)},
		"url":    {swReq("url", swCheckString), swReq("media_type", swCheckString)},
		"file":   {swReq("path", swCheckString), swReq("media_type", swCheckString)},
	})
	swCheckContentBlock = swTagged("type", map[string][]swField{
		"text":      {swReq("text", swCheckString)},
		"thinking":  {swReq("thinking", swCheckString), swNullable("signature", swCheckString)},
		"tool_call": {swReq("id", swCheckString), swReq("name", swCheckString), swReq("arguments", swCheckAny), swNullable("partial_json", swCheckString)},
		"image":     {swReq("source", swCheckImageSource)},
		"extension": {swReq("type_name", swCheckString), swReq("data", swCheckAny)},
	})
	swCheckContent = swArrayOf(swCheckContentBlock)
	swCheckLlm     = swTagged("role", map[string][]swField{
		"user": {swReq("content", swCheckContent), swReq("timestamp", swCheckU64), swNullable("cache_hint", swCheckCacheHint)},
		"assistant": {
			swReq("content", swCheckContent), swReq("provider", swCheckString), swReq("model_id", swCheckString),
			swReq("usage", swCheckUsage), swReq("cost", swCheckCost),
			swReq("stop_reason", swOneOf("stop", "length", "tool_use", "aborted", "error", "transfer")),
			swNullable("error_message", swCheckString),
			swNullable("error_kind", swOneOf("throttled", "context_window_exceeded", "auth", "network", "content_filtered", "model_retired")),
			swReq("timestamp", swCheckU64), swNullable("cache_hint", swCheckCacheHint),
		},
		"tool_result": {
			swReq("tool_call_id", swCheckString), swReq("content", swCheckContent), swReq("is_error", swCheckBool),
			swReq("timestamp", swCheckU64), swOpt("details", swCheckAny), swNullable("cache_hint", swCheckCacheHint),
		},
	})
	swThinkingLevels = []string{"off", "minimal", "low", "medium", "high", "extra_high"}
	// ModelCapabilities fields are taken as optional: swink.md lists them
	// but does not say whether they have serde defaults.
	swCheckCapabilities = swObject(
		swOpt("supports_thinking", swCheckBool), swOpt("supports_vision", swCheckBool), swOpt("supports_tool_use", swCheckBool),
		swOpt("supports_streaming", swCheckBool), swOpt("supports_structured_output", swCheckBool),
		swNullable("max_context_window", swCheckU64), swNullable("max_output_tokens", swCheckU64))
	swCheckModelSpec = swObject(
		swReq("provider", swCheckString), swReq("model_id", swCheckString), swReq("thinking_level", swOneOf(swThinkingLevels...)),
		swNullable("thinking_budgets", swObject(swOpt("budgets", swCheckBudgets))),
		swNullable("provider_config", swCheckAny), swNullable("capabilities", swCheckCapabilities))
	swCheckEntryData = map[string]swCheck{
		"message":               swCheckLlm,
		"model_change":          swObject(swReq("from", swCheckModelSpec), swReq("to", swCheckModelSpec), swReq("timestamp", swCheckU64)),
		"thinking_level_change": swObject(swReq("from", swCheckString), swReq("to", swCheckString), swReq("timestamp", swCheckU64)),
		"compaction": swObject(swReq("dropped_count", swCheckU64), swReq("tokens_before", swCheckU64),
			swReq("tokens_after", swCheckU64), swReq("timestamp", swCheckU64)),
		"label":  swObject(swReq("text", swCheckString), swReq("message_index", swCheckU64), swReq("timestamp", swCheckU64)),
		"custom": swObject(swReq("type_name", swCheckString), swReq("data", swCheckAny), swReq("timestamp", swCheckU64)),
	}
	checkSwinkMeta = swObject(
		swReq("id", swCheckString), swReq("title", swCheckString), swReq("created_at", swCheckTime),
		swReq("updated_at", swCheckTime), swOpt("version", swCheckU32), swOpt("sequence", swCheckU64))
	checkSwinkInterruptDoc = swObject(
		swReq("interrupted_at", swCheckU64),
		swReq("pending_tool_calls", swArrayOf(swObject(swReq("tool_call_id", swCheckString), swReq("tool_name", swCheckString), swReq("arguments", swCheckAny)))),
		swReq("context_snapshot", swArrayOf(swCheckLlm)),
		swReq("system_prompt", swCheckString),
		swReq("model", swCheckModelSpec))
	checkSwinkCheckpointDoc = swObject(
		swReq("id", swCheckString), swReq("system_prompt", swCheckString), swReq("provider", swCheckString), swReq("model_id", swCheckString),
		swReq("messages", swArrayOf(swCheckLlm)),
		swOpt("custom_messages", swArrayOf(swCheckAny)),
		swOpt("message_order", swArrayOf(swObject(swReq("kind", swOneOf("Llm", "Custom")), swReq("index", swCheckU64)))),
		swReq("turn_count", swCheckU64), swReq("usage", swCheckUsage), swReq("cost", swCheckCost), swReq("created_at", swCheckU64),
		swOpt("metadata", swMapOf(swCheckAny)), swNullable("state", swCheckAny))
)

// swCheckBudgets checks ThinkingBudgets.budgets: ThinkingLevel keys, u64 values.
func swCheckBudgets(v json.RawMessage) error {
	kvs, err := swDecodeObject(v)
	if err != nil {
		return errors.New("expected an object")
	}
	levels := swOneOf(swThinkingLevels...)
	for _, kv := range kvs {
		k, _ := json.Marshal(kv.key)
		if err := levels(k); err != nil {
			return err
		}
		if err := swCheckU64(kv.val); err != nil {
			return fmt.Errorf("%s: %w", kv.key, err)
		}
	}
	return nil
}

// checkSwinkLlmMessage reports whether line parses as a swink LlmMessage.
func checkSwinkLlmMessage(b []byte) error {
	if err := swSerdeJSONValid(b); err != nil {
		return err
	}
	return swCheckLlm(b)
}

// checkSwinkSessionEntry reports whether line parses as an adjacently tagged
// SessionEntry {"entry_type":…,"data":…}.
func checkSwinkSessionEntry(b []byte) error {
	kvs, err := swDecodeObject(b)
	if err != nil {
		return err
	}
	var et, data json.RawMessage
	for _, kv := range kvs {
		switch kv.key {
		case "entry_type":
			if et != nil {
				return errors.New(`duplicate swField "entry_type"`)
			}
			et = kv.val
		case "data":
			if data != nil {
				return errors.New(`duplicate swField "data"`)
			}
			data = kv.val
		}
	}
	var typ string
	if json.Unmarshal(et, &typ) != nil {
		return errors.New("entry_type: expected a string")
	}
	c, ok := swCheckEntryData[typ]
	if !ok {
		return fmt.Errorf("unknown entry_type %q", typ)
	}
	if data == nil {
		return errors.New(`missing swField "data"`)
	}
	if err := c(data); err != nil {
		return fmt.Errorf("%s: %w", typ, err)
	}
	return nil
}

func checkSwinkInterrupt(b []byte) error {
	if err := swSerdeJSONValid(b); err != nil {
		return err
	}
	return checkSwinkInterruptDoc(b)
}

func checkSwinkCheckpoint(b []byte) error {
	if err := swSerdeJSONValid(b); err != nil {
		return err
	}
	return checkSwinkCheckpointDoc(b)
}
