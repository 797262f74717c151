package jsonl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sessiondb/sessiondb"
)

// MaxLineSize is the longest JSONL line a reader accepts (64 MiB). Longer
// lines are reported as a Problem and skipped; they never make a reader
// hold more than this much of one line in memory.
const MaxLineSize = 64 << 20

// Problem is one defect found in a source file, or, in Report.Notes, one
// remark about it. Line is 1-based; 0 when it concerns the whole file.
type Problem struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
	// Action marks a note that asks the user to do something, which its
	// Reason says (a model without a price: the command that prices it).
	// Reports list such notes first, and a summary never cuts them off.
	Action bool `json:"action,omitempty"`
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Reason)
	}
	return fmt.Sprintf("%s: %s", p.Path, p.Reason)
}

// Unit is one source session as found on disk: a primary file plus the
// side files the format keeps beside it.
type Unit struct {
	Format string
	// Path is the primary file (the .jsonl; for a picoclaw meta-only
	// session, the .meta.json; for a legacy picoclaw session, the .json).
	Path string
	// Extra lists side files read with it (meta, interrupt, checkpoints).
	Extra []string
}

// Resume tells a reader where a previous import of Unit.Path stopped, so
// that a file that only grew is read from Offset on.
type Resume struct {
	// Offset is the number of bytes of Path already imported; 0 reads the
	// whole file.
	Offset int64
	// Entries is the number of entries already imported from Path.
	Entries int
	// State is the reader's own continuation state, as it returned it in
	// Parsed.ResumeState. With Offset 0 it is a whole read of a file that
	// grew (the reader returned ErrNotIncremental for the offset): the
	// reader must number the file's entries as the import that returned
	// State did, and may use State to do so (Claude Code's tool-results
	// files keep the places they were given); the importer then keeps the
	// entries after those imported.
	State json.RawMessage
	// Cache is where a reader may keep its parse state between imports:
	// the importer's Follow (nil: none, every import stands alone).
	Cache *Cache
	// Reread, on a whole read of a file that grew (Offset 0, State set),
	// is the number of entries imported before. The importer keeps only
	// what follows them (TrimReread), and when they no longer read as
	// imported it reads the file again without Reread to replace the
	// session: a reader may leave out of Parsed.Usage the rows of those
	// entries, and skip what only they need (Claude Code: looking their
	// responses up in the other transcripts of the project folder).
	Reread int
	// Size, when > 0, is the file's size when the importer listed the
	// unit's side files (see SideLister): a reader whose side files are
	// named by its lines reads no further.
	Size int64
}

// SideLister is implemented by a Format whose units read side files that
// lines of the main file name (Claude Code's tool-results files, written
// before the line that names them). The importer lists them again after
// it has taken the main file's size, and the reader reads no further than
// that size (Resume.Size), so every file a line it reads names is in the
// list: the list Claim made may be older than the lines (a watcher sees the
// file grow in between), and a line read without its file would place the
// file later than one import of the finished transcript does.
type SideLister interface {
	SideFiles(path string) []string
}

// Reclaimer is implemented by a Format that can name the unit of a file it
// claimed before without reading the file again: Reclaim(path) returns the
// unit Claim returns for path (its side files listed as Claim lists them),
// with ok true, when that claim depends only on the file's own bytes and
// path, not on the files beside it. An import takes a file whose device,
// inode, size and modification time are those its import record holds
// (so its bytes are taken as unchanged, as for any unchanged file) as the
// unit Reclaim names for the format recorded, instead of offering it to
// every format again: a no-op import of an archive is then a walk and a
// stat per file. ok false (a claim that depends on a sibling: Gemini CLI's
// whole-JSON chat, skipped once migrated beside it) offers it to Claim.
type Reclaimer interface {
	Reclaim(path string) (u Unit, ok bool)
}

// Skipper is implemented by formats whose archives hold files that are
// not sessions but are known (a Claude Code workflow journal): SkipReason
// returns why such a file is skipped ("" for a file it does not know),
// which the import reports as a note rather than a problem.
type Skipper interface {
	SkipReason(path string) string
}

// Parsed is what a reader returns for one Unit: everything the importer
// writes for that session, in one transaction.
type Parsed struct {
	Unit Unit
	// Session holds the metadata: ID, Title, Summary, Scope, Aliases, Attrs,
	// CreatedAt, UpdatedAt, Version, ParentID and ForkSeq. SourceFormat and
	// SourcePath are set by the importer.
	Session sessiondb.Session
	// Entries are the log entries read, in file order. When reading from a
	// Resume, they are only the new ones (file entry numbers
	// Resume.Entries+1 …).
	Entries []sessiondb.Entry
	// Compactions are the compaction points, in order. Their AtSeq and
	// KeepFromSeq are 1-based entry numbers within the whole file
	// (KeepFromSeq == total entries + 1 keeps nothing; AtSeq 0 means "after
	// the last entry read"); the importer maps them to log positions.
	// When reading from a Resume, return only the compaction points found in
	// the new part of the file (still numbered within the whole file); a
	// format whose compaction point lives outside the JSONL (picoclaw's meta
	// skip) returns its current one. Either way the importer does not record
	// a compaction equal to the last one it recorded from this file (same
	// KeepFromSeq, byte-equal summary bodies), so repeating it is harmless.
	Compactions []sessiondb.Compaction
	// State and Interrupt are the state and interrupt documents (nil: none).
	State     json.RawMessage
	Interrupt json.RawMessage
	// Usage rows, so that the session's usage total equals the source tool's.
	// A row's Seq, when > 0, is a 1-based entry number within the whole
	// file (mapped to a log position by the importer). When reading from a
	// Resume, only the rows of the new part.
	Usage []sessiondb.Usage
	// Checkpoints are agent checkpoints that belong to the session. Their
	// AtSeq is a 1-based entry number within the whole file, like a
	// compaction's (0: after the last entry read); SessionID is set by the
	// importer. A checkpoint whose ID already exists in the store is not
	// saved again.
	Checkpoints []sessiondb.Checkpoint
	// Problems found while reading: data that could not be carried over,
	// damaged lines. The readable rest is still imported.
	Problems []Problem
	// Notes record what the importer did that the source tool itself does
	// on load (zot's stub result for a tool call that never got one): the
	// transcript equals the tool's own, nothing was lost.
	Notes []Problem
	// Offset is the number of bytes of Unit.Path consumed: the end of the
	// last complete line. A torn last line is not consumed, so that it is
	// read again once the writer completes it.
	Offset int64
	// ResumeState is handed back in Resume.State on the next incremental
	// import.
	ResumeState json.RawMessage
	// Branches are the paths of the file's entry tree that the tool does
	// not resume (pi's abandoned branches), each written as a fork of the
	// session. A reader returns them only from a whole read.
	Branches []Branch
	// Continued are the tips of branches an earlier import of the file
	// made forks for (its ResumeState says which) that are tips no more:
	// the tool went back to them and went on (pi's /tree), so one import
	// of the file makes no fork for them. The importer deletes those
	// forks in the commit that imports the file, when they hold what the
	// import gave them and nothing since. A reader returns them only from
	// a whole read.
	Continued []Continued
}

// Continued is a branch tip that an earlier import made a fork for and
// that the file continues now (Parsed.Continued).
type Continued struct {
	Tip string
	// Entries is the length of the fork's log as the import made it (for
	// pi, the header and the path from the root to Tip, which never
	// changes): a fork of another length was written to since.
	Entries int64
}

// Branch is one path of a session file's entry tree that ends elsewhere
// than at the leaf the tool resumes. The importer writes it as a fork
// session: its ID is the session's ID, "@" and Tip; its ParentID is the
// session and its ForkSeq the log position of entry FromEntry. The path
// never changes once written (entries are immutable and name their
// parent), so a fork that already exists is left as it is; once the tool
// goes back to the tip and continues the branch, it is no branch of its
// own any more, and its fork is deleted (Parsed.Continued).
type Branch struct {
	// Tip is the id of the entry the branch ends at.
	Tip string
	// FromEntry is the 1-based entry number, within the whole file, of the
	// last entry the branch shares with the resumed path (0: none).
	FromEntry int64
	// Session holds Title, Attrs, CreatedAt and UpdatedAt.
	Session sessiondb.Session
	// Entries are the fork's log, copies of file entries: what the tool
	// reads to resume the branch (for pi, the header and the path from the
	// root to Tip).
	Entries []sessiondb.Entry
	// Compactions are numbered within Entries (1-based), like Parsed's.
	Compactions []sessiondb.Compaction
}

// BranchID returns the ID of the fork that holds branch tip of session id.
func BranchID(id, tip string) string { return id + "@" + tip }

// Format reads and writes one on-disk session format.
type Format interface {
	// Name returns the format name ("picoclaw", …).
	Name() string
	// Claim takes the files of one directory (absolute paths, sorted) and
	// returns the units it recognises plus the files it did not claim.
	Claim(files []string) (units []Unit, rest []string)
	// Parse reads one unit. It returns an error only when nothing of the
	// unit can be read; defects inside it are Problems.
	Parse(ctx context.Context, u Unit, from Resume) (*Parsed, error)
	// Export writes session id from store s into dir in this format and
	// returns the files written.
	Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error)
}

// ErrNoConversation is returned by Parse for a file of the format that
// holds nothing to import yet (an empty file, or only lines without a
// time). The importer reports it as a note and records nothing, so the
// file is looked at again on the next import.
var ErrNoConversation = errors.New("no conversation to import yet; skipped")

// ErrNotIncremental is returned by Parse when the unit cannot be resumed
// from Resume (the format rewrites files in place); the importer then reads
// it whole and replaces the session's transcript.
var ErrNotIncremental = fmt.Errorf("format cannot resume from an offset")

// HeaderRewriter is implemented by a format whose tool rewrites the start
// of a file in place as it appends to it (swink patches its header line
// with the new metadata on every append, and rewrites the file whole when
// that line outgrows its slot), so that the bytes an import consumed change
// although the entries read from them do not. When the consumed prefix no
// longer hashes as recorded, the importer reads such a file whole and, if
// its first entries still read as they were imported (the import state's
// digest), appends only the new ones, as after ErrNotIncremental;
// otherwise it replaces the transcript, as for any rewritten file.
type HeaderRewriter interface {
	RewritesHeader() bool
}

// Bounded is implemented by a format whose Parse reads no further than
// Resume.Size and, under the importer's Follow (Resume.Cache), continues
// from Resume.Offset without reading the bytes before it again. The
// importer then imports a file much larger than one chunk as a stream of
// chunks, each ending at a line end and written as the file's growth to
// that size would be (jsonlimport's chunk.go), so that one large file
// costs what a stream of its lines costs.
type Bounded interface {
	ReadsUpToSize() bool
}

// Reserver is implemented by a format that owns files an earlier format in
// the registry's claim order would otherwise take (a Claude Code sub-agent
// keeps agent-<id>.meta.json beside its transcript, a pair picoclaw's
// Claim would read as one of its sessions). Reserves reports whether path
// is such a file.
type Reserver interface {
	Reserves(path string) bool
}

var reserved func(path string) bool

// SetReserved sets the predicate Reserved asks; the importer package calls
// it once, at init, with one that asks every Reserver of its registry.
func SetReserved(f func(path string) bool) { reserved = f }

// Reserved reports whether a format of the registry reserves path (see
// Reserver): a format's Claim leaves such a file in rest. It is false
// before SetReserved.
func Reserved(path string) bool { return reserved != nil && reserved(path) }

// DroppedAliasesKey is the Attrs member where the importer keeps a source
// session's full alias list when some of its aliases cannot be registered
// (an alias that is not a valid ID: empty, too long, a control character).
const DroppedAliasesKey = "source_aliases"

// SourceAliases returns a session's aliases as the source had them: the
// list the importer recorded under DroppedAliasesKey when there is one,
// else Session.Aliases. Exporters write these.
func SourceAliases(s sessiondb.Session) []string {
	if len(s.Attrs) > 0 {
		var obj map[string]json.RawMessage
		if json.Unmarshal(s.Attrs, &obj) == nil {
			if raw, ok := obj[DroppedAliasesKey]; ok {
				var list []string
				if json.Unmarshal(raw, &list) == nil {
					return list
				}
			}
		}
	}
	return s.Aliases
}
