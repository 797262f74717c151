package sessiondb

import (
	"context"
	"encoding/json"
	"time"
)

// SessionDump is one session with everything stored with it, as it is
// stored: the raw log with its seqs and times (superseded rows included,
// pruned ones absent), every compaction with its summary messages, state,
// interrupt, agent checkpoints, individual usage rows, the import records
// of its source files, and its revision counters. It is what Copier reads
// and writes to move a session between stores without loss.
type SessionDump struct {
	// Session is the metadata, Sequence and LastSeq included.
	Session Session
	// Entries are the log rows, by Seq.
	Entries []Entry
	// Compactions are oldest first; their IDs are the source store's and
	// only link Checkpoints to them (a store assigns its own on write).
	Compactions []Compaction
	State       json.RawMessage
	Interrupt   json.RawMessage
	// StateUpdatedAt and InterruptUpdatedAt are when the documents were
	// last written.
	StateUpdatedAt     time.Time
	InterruptUpdatedAt time.Time
	// Checkpoints are the agent checkpoints; CompactionID names one of
	// Compactions (0: none).
	Checkpoints []Checkpoint
	// Usage rows, oldest first.
	Usage []Usage
	// Sources are the import records whose SessionID is this session.
	Sources []SourceFile
}

// Copier is implemented by stores that can read and write a whole session
// exactly, for tools that move sessions between stores (sessionctl copy).
// Both sqlstore and pgstore implement it.
type Copier interface {
	// DumpSession reads a session and everything stored with it from one
	// snapshot. ErrNotFound when it does not exist.
	DumpSession(ctx context.Context, id string) (SessionDump, error)
	// PutSession writes d in one transaction, replacing whatever the store
	// holds under d.Session.ID (and the import records of d's source
	// paths): afterwards DumpSession returns d, except compaction IDs,
	// which the store assigns (in the same order). Sequence, LastSeq, seqs
	// and times are kept as given. With expectSequence non-nil the write
	// fails with ErrConflict unless the stored Sequence equals it (0: the
	// session must not exist). A dump that is not consistent (entries out
	// of order or beyond LastSeq, a checkpoint naming an unknown
	// compaction, invalid JSON, …) is ErrInvalid and changes nothing; an
	// alias the store cannot share with another session is ErrExists.
	PutSession(ctx context.Context, d SessionDump, expectSequence *int64) (Session, error)
}

// ValidateDump checks a dump before PutSession writes it: valid IDs and
// JSON, entries in increasing Seq order between 1 and LastSeq, compaction
// positions in range, checkpoints naming compactions of the dump, usage
// call IDs valid and distinct, import records of this session. The error wraps ErrInvalid.
func ValidateDump(d SessionDump) error {
	s := d.Session
	if err := ValidateID(s.ID); err != nil {
		return err
	}
	for _, a := range s.Aliases {
		if err := ValidateID(a); err != nil {
			return err
		}
	}
	if err := validateOptionalJSON("scope", s.Scope); err != nil {
		return err
	}
	if err := validateOptionalJSON("attrs", s.Attrs); err != nil {
		return err
	}
	if s.Sequence < 1 || s.LastSeq < 0 {
		return invalidf("dump of %s has sequence %d and last seq %d", s.ID, s.Sequence, s.LastSeq)
	}
	prev := int64(0)
	for _, e := range d.Entries {
		if e.Seq <= prev || e.Seq > s.LastSeq {
			return invalidf("dump of %s: entry seq %d out of order or beyond last seq %d", s.ID, e.Seq, s.LastSeq)
		}
		prev = e.Seq
		if err := ValidateEntry(e); err != nil {
			return err
		}
	}
	ids := make(map[int64]bool, len(d.Compactions))
	for _, c := range d.Compactions {
		if c.KeepFromSeq < 1 || c.KeepFromSeq > s.LastSeq+1 || c.AtSeq < 0 || c.AtSeq > s.LastSeq {
			return invalidf("dump of %s: compaction %d keeps from %d at %d, beyond last seq %d", s.ID, c.ID, c.KeepFromSeq, c.AtSeq, s.LastSeq)
		}
		ids[c.ID] = true
		for _, e := range c.Summary {
			if err := ValidateEntry(e); err != nil {
				return err
			}
		}
		if err := validateOptionalJSON("compaction details", c.Details); err != nil {
			return err
		}
	}
	if err := validateOptionalJSON("state", d.State); err != nil {
		return err
	}
	if err := validateOptionalJSON("interrupt", d.Interrupt); err != nil {
		return err
	}
	calls := map[string]bool{}
	for _, u := range d.Usage {
		if err := validateUsage(u); err != nil {
			return err
		}
		if u.CallID != "" {
			if calls[u.CallID] {
				return invalidf("dump of %s: usage call id %q appears twice", s.ID, u.CallID)
			}
			calls[u.CallID] = true
		}
	}
	for _, cp := range d.Checkpoints {
		if err := ValidateID(cp.ID); err != nil {
			return err
		}
		if cp.CompactionID != 0 && !ids[cp.CompactionID] {
			return invalidf("dump of %s: checkpoint %s names compaction %d, which the dump lacks", s.ID, cp.ID, cp.CompactionID)
		}
		if err := validateOptionalJSON("checkpoint state", cp.State); err != nil {
			return err
		}
		if err := validateOptionalJSON("checkpoint metadata", cp.Metadata); err != nil {
			return err
		}
	}
	for _, f := range d.Sources {
		if f.Path == "" || (f.SessionID != "" && f.SessionID != s.ID) {
			return invalidf("dump of %s: source record %q belongs to %q", s.ID, f.Path, f.SessionID)
		}
		if err := validateOptionalJSON("source state", f.State); err != nil {
			return err
		}
	}
	return nil
}
