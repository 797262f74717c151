package sessioncopy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/sessiondb/sessiondb"
)

// Relation is how a target's session stands to the source's session of the
// same ID, for a copy from source to target.
type Relation int

const (
	// Missing: the target has no session with the ID.
	Missing Relation = iota
	// Same: the target holds an earlier copy with the source's Sequence
	// and LastSeq: there is nothing to copy.
	Same
	// Behind: the target holds an earlier copy that the source has moved
	// past: copying replaces it.
	Behind
	// Diverged: the target holds a copy of the same session that was
	// written there since (its Sequence or LastSeq is above the source's):
	// a copy would lose those writes.
	Diverged
	// Conflict: the target's session is another session under the same ID
	// (two hosts' picoclaw sessions "agent:main:cli:direct:alice", say):
	// a copy would destroy it.
	Conflict
)

func (r Relation) String() string {
	return [...]string{"missing", "same", "behind", "diverged", "conflict"}[r]
}

// Compare tells how dst, the target's session of src's ID, stands to src.
// The target's session is a copy of the same session only if it was
// created at the same time from the same source (format and path) and
// every log entry that both hold (same seq) is byte for byte the same
// (kind, body and time); entries that only one side still holds are
// allowed only below the other side's first entry (pruned there).
// Otherwise it is a Conflict, whatever the counters say. A copy is Same
// when the counters are equal, Diverged when the target's are ahead, and
// Behind when the source's are.
func Compare(src, dst sessiondb.SessionDump) Relation {
	s, d := src.Session, dst.Session
	if !s.CreatedAt.Equal(d.CreatedAt) || s.SourceFormat != d.SourceFormat || s.SourcePath != d.SourcePath {
		return Conflict
	}
	if !logsAgree(src.Entries, dst.Entries) {
		return Conflict
	}
	switch {
	case d.Sequence == s.Sequence && d.LastSeq == s.LastSeq:
		return Same
	case d.Sequence > s.Sequence || d.LastSeq > s.LastSeq:
		return Diverged
	default:
		return Behind
	}
}

// logsAgree reports whether two logs (by increasing Seq) are the same
// session's: equal entries at every seq both hold, and an entry only one
// holds either beyond the other's last entry (appended since) or below
// the other's first (pruned there).
func logsAgree(a, b []sessiondb.Entry) bool {
	first := func(es []sessiondb.Entry) int64 {
		if len(es) == 0 {
			return 0
		}
		return es[0].Seq
	}
	last := func(es []sessiondb.Entry) int64 {
		if len(es) == 0 {
			return 0
		}
		return es[len(es)-1].Seq
	}
	// only reports whether an entry at seq that the other log lacks can
	// be explained by the other's pruning or its shorter log.
	explained := func(seq int64, other []sessiondb.Entry) bool {
		return len(other) == 0 || seq < first(other) || seq > last(other)
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i].Seq < b[j].Seq):
			if !explained(a[i].Seq, b) {
				return false
			}
			i++
		case i == len(a) || b[j].Seq < a[i].Seq:
			if !explained(b[j].Seq, a) {
				return false
			}
			j++
		default:
			x, y := a[i], b[j]
			if kindOf(x) != kindOf(y) || !bytes.Equal(x.Body, y.Body) || !x.CreatedAt.Equal(y.CreatedAt) {
				return false
			}
			i, j = i+1, j+1
		}
	}
	return true
}

// renameSep separates a session's ID from the suffix that RenamedID adds.
const renameSep = "~"

// RenamedID is the ID under which a copy stores d when the target holds a
// different session under d's ID (sessionctl copy --rename-conflicts):
// d's ID, "~" and 12 hex digits of a SHA-256 over what identifies d's
// session for Compare (its ID, creation time and source). It is the same
// on every run, so a later copy finds the renamed session and brings it up
// to date instead of renaming again. An ID too long to take the suffix is
// cut first (at a rune boundary).
func RenamedID(d sessiondb.SessionDump) string {
	s := d.Session
	h := sha256.New()
	for _, part := range []string{s.ID, s.CreatedAt.UTC().Format(timeLayout), s.SourceFormat, s.SourcePath} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	suffix := renameSep + hex.EncodeToString(h.Sum(nil))[:12]
	return cutID(s.ID, len(suffix)) + suffix
}

// Renamed returns d moved to RenamedID(d) for a target that holds another
// session under d's ID. What names things across the whole target, and
// there belongs to that other session, is left out: the aliases (they
// would change what the target resolves them to) and the import records
// (the target's importer must keep resuming into its own session). The
// checkpoints move with their session under IDs with the same suffix.
// dropped says what was left out, for the report.
func Renamed(d sessiondb.SessionDump) (out sessiondb.SessionDump, dropped []string) {
	id := RenamedID(d)
	suffix := id[strings.LastIndex(id, renameSep):]
	out = d
	out.Session.ID = id
	if len(d.Session.Aliases) > 0 {
		dropped = append(dropped, "aliases "+strings.Join(d.Session.Aliases, ", "))
	}
	out.Session.Aliases = nil
	for _, f := range d.Sources {
		dropped = append(dropped, "import record of "+f.Path)
	}
	out.Sources = nil
	out.Checkpoints = make([]sessiondb.Checkpoint, len(d.Checkpoints))
	for i, cp := range d.Checkpoints {
		cp.SessionID = id
		cp.ID = cutID(cp.ID, len(suffix)) + suffix
		out.Checkpoints[i] = cp
	}
	return out, dropped
}

// cutID shortens id so that n more bytes fit in an ID.
func cutID(id string, n int) string {
	for len(id)+n > sessiondb.MaxIDLen {
		id = strings.ToValidUTF8(id[:len(id)-1], "")
	}
	return id
}
