package jsonlimport

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Options configures Import.
type Options struct {
	// Format is "auto" (the default, "" too), "picoclaw", "zot", "swink",
	// "claude-code", "codex", "pi" or "opencode".
	// With a named format only that format is offered the files.
	Format string
	// DryRun parses and reports but writes nothing.
	DryRun bool
	// Jobs is the number of parser goroutines; 0 means runtime.NumCPU().
	Jobs int
	// Progress, when non-nil, is called from one goroutine after each unit.
	Progress func(Progress)
	// Prices prices the calls of tools that record no cost (Claude Code,
	// Codex); nil is the built-in table (see PriceTable, LoadPrices).
	Prices *PriceTable
	// Follow, when non-nil, is the memory of a long-running importer
	// across its imports (package watch keeps one per run): a file whose
	// imported prefix was hashed whole once under it is then checked
	// cheaply, and readers may keep their parse state in it between
	// imports, so that an append costs work proportional to the new bytes
	// (see Follow). nil: every import verifies every prefix whole.
	Follow *Follow
	// Machine is the identity of the machine the sources are read on,
	// recorded as Session.Machine of the sessions the import creates
	// ("": none). A session keeps the machine that created it.
	Machine string
	// Map rewrites the project each imported session records (its
	// agent's working directory) by the longest matching prefix (see
	// PathMap): a project is one project across machines. It applies to
	// Session.Project only, and to the sessions this import writes.
	Map []PathMap
}

// Report summarises an Import.
type Report struct {
	// Files counts the units (source sessions, by their primary file) examined.
	Files int
	// Sessions counts the sessions created or updated (in a dry run: that
	// would be).
	Sessions int
	// Entries counts the log entries appended, the copies that branch
	// forks hold included.
	Entries int
	// Forks counts the fork sessions created for branches of source files
	// (pi's abandoned /tree branches, see Branch); they are not counted in
	// Sessions.
	Forks int
	// Unchanged counts the units skipped because their files did not change
	// since the last import, or because they are copies of the file a
	// session was imported from (a note names it; see copies.go).
	Unchanged int
	// Bytes counts the bytes of source files parsed.
	Bytes int64
	// Problems lists what could not be carried over: damaged lines, data
	// the store refused, files that could not be read (with the cause, such
	// as permission denied), JSONL files no reader recognised. An import
	// with problems is not a faithful copy of its source.
	Problems []Problem
	// Notes lists what is worth knowing but lost nothing: what the source
	// tool itself does on load (zot's stub result for a tool call that
	// never got one), and every file skipped because it is not a session
	// file of any known format. Notes that ask the user to act (a model
	// without a price, Problem.Action) come first.
	Notes []Problem
	// Skipped counts the files skipped because they are not session files
	// of any known format (each also has a note).
	Skipped int
	// Gone counts the sessions the import found, for the first time,
	// without their source (see vanished.go): they are kept whole and
	// marked (Session.SourceGoneAt).
	Gone int
	// gone are the source paths found missing while importing (a unit
	// that would have taken over a session whose file is gone).
	gone []string
}

// maxCommitAttempts bounds the retries of a unit whose commit lost an
// optimistic-concurrency race with another writer of the same session.
const maxCommitAttempts = 3

// importState is the continuation state the importer keeps in
// SourceFile.State for a unit's primary file.
type importState struct {
	// Entries is the number of entries imported from the file so far.
	Entries int `json:"entries"`
	// SeqBase maps file entry numbers to log positions: entry n is log
	// Seq SeqBase+n. Segments refines this when entries of other writers
	// were interleaved between two incremental imports.
	SeqBase  int64      `json:"seq_base"`
	Segments [][2]int64 `json:"segments,omitempty"`
	// Compactions is the number of compactions recorded from the file;
	// LastCompaction identifies the latest of them, so that a reader that
	// repeats its current compaction point on every resume (picoclaw's
	// meta skip) does not record it again, even when another writer has
	// compacted the session since.
	Compactions    int     `json:"compactions"`
	LastCompaction *compID `json:"last_compaction,omitempty"`
	// Extra fingerprints the unit's side files, so that a change to them
	// alone (a picoclaw meta rewritten by TruncateHistory) is noticed.
	Extra []jsonl.FileStamp `json:"extra,omitempty"`
	// Reader is the format reader's own state (Parsed.ResumeState).
	Reader json.RawMessage `json:"reader,omitempty"`
	// Digest is the marshalled sha256 state over the entries imported
	// from the file (entryDigest), so that a re-read can check that the
	// reader still numbers the file's entries as it did.
	Digest []byte `json:"digest,omitempty"`
	// Torn holds the problems of the last line the import left
	// unconsumed (a torn last line: Offset < Size), so that every later
	// import that finds the file unchanged reports them again: a problem
	// is what was not imported, every time it is still not imported.
	Torn []Problem `json:"torn,omitempty"`
	// prefixMark lets the next import continue the prefix hash (see
	// prefix.go).
	prefixMark
}

// tornProblems returns the problems of pd about what it left unconsumed
// at its end, when it left some of size (bytes of a file, rows of a
// store's session): a torn last line (the readers word it "torn last
// line …", "… no trailing newline …"; watch's deferred.go relies on the
// first) or a store session's unfinished last turn (UnfinishedMarker).
// An import that finds the unit unchanged reports them again: without
// the unfinished turn here, a second import of a store session whose
// stamp had not moved reported nothing, and a watcher took that silence
// for the turn having finished and never reported it (watch's
// TestOpencodeStoreWrittenLive, 7 failures in 75 runs beside an fsync
// load).
func tornProblems(pd *Parsed, size int64) []Problem {
	if pd.Offset >= size {
		return nil
	}
	var out []Problem
	for _, p := range pd.Problems {
		if strings.Contains(p.Reason, "torn last line") || strings.Contains(p.Reason, "no trailing newline") ||
			strings.HasPrefix(p.Reason, UnfinishedMarker) {
			out = append(out, p)
		}
	}
	return out
}

// entryDigest feeds entries into h: kind, role and body, each length
// prefixed.
func entryDigest(h hash.Hash, entries []sessiondb.Entry) {
	for _, e := range entries {
		fmt.Fprintf(h, "%d:%s%d:%s%d:", len(e.Kind), e.Kind, len(e.Role), e.Role, len(e.Body))
		h.Write(e.Body)
	}
}

// digestState returns h's marshalled state (nil if it cannot be).
func digestState(h hash.Hash) []byte {
	m, ok := h.(encoding.BinaryMarshaler)
	if !ok {
		return nil
	}
	b, err := m.MarshalBinary()
	if err != nil {
		return nil
	}
	return b
}

// resumeDigest returns the entry digest restored from st (a new one when
// st has none or it cannot be restored; ok false then).
func resumeDigest(st importState) (hash.Hash, bool) {
	h := sha256.New()
	if len(st.Digest) == 0 {
		return h, false
	}
	u, ok := h.(encoding.BinaryUnmarshaler)
	if !ok || u.UnmarshalBinary(st.Digest) != nil {
		return sha256.New(), false
	}
	return h, true
}

// compID identifies a recorded compaction: its KeepFromSeq and a hash of
// its summary bodies.
type compID struct {
	KeepFrom int64  `json:"keep_from"`
	Summary  string `json:"summary,omitempty"`
}

func compactionID(c sessiondb.Compaction) *compID {
	id := &compID{KeepFrom: c.KeepFromSeq}
	if len(c.Summary) > 0 {
		h := sha256.New()
		for _, e := range c.Summary {
			fmt.Fprintf(h, "%d:", len(e.Body))
			h.Write(e.Body)
		}
		id.Summary = hex.EncodeToString(h.Sum(nil))
	}
	return id
}

// seqOf maps a 1-based file entry number to a log position.
func (st *importState) seqOf(n int64) int64 {
	base := st.SeqBase
	for _, s := range st.Segments {
		if n >= s[0] {
			base = s[1]
		}
	}
	return base + n
}

// keepFrom maps a compaction's KeepFromSeq, a 1-based entry number within
// a file of total entries (total+1 keeps nothing), to a log position.
func (st *importState) keepFrom(k, total int64) int64 {
	switch {
	case k < 1:
		k = 1
	case k > total:
		return st.seqOf(total) + 1
	}
	return st.seqOf(k)
}

type mode int

const (
	modeNew mode = iota
	// modeResume: the file grew and the reader continued at the offset.
	modeResume
	// modeReread: the file grew but the reader could not continue; it
	// read the whole file again and only the entries after the ones
	// imported before are appended (see trimReread).
	modeReread
	// modeReplace: the file was rewritten in place.
	modeReplace
	modeUnchanged
	// modeCopy: a new file whose session ID is taken by a session imported
	// from another file that holds all of it (copies.go): skipped.
	modeCopy
	// modeKept: a new file that would take over a session whose own
	// source is gone, holding less than the session (vanished.go):
	// skipped, the session kept whole.
	modeKept
)

// work is one unit, prepared by a parser goroutine for the writer.
type work struct {
	p      planned
	mode   mode
	parsed *Parsed
	prev   sessiondb.SourceFile // when mode != modeNew
	prevSt importState
	sess   sessiondb.Session // the existing session (resume, replace)
	stat   os.FileInfo
	// size and mtime are recorded with the import: the primary file's
	// (stat), or a store session's rows and last change.
	size    int64
	mtime   time.Time
	extra   []jsonl.FileStamp
	sha     string     // hex sha256 of the first parsed.Offset bytes
	prefix  hash.Hash  // sha256 state after the previously consumed prefix
	mark    prefixMark // the prefix state after parsed.Offset, for the next import
	bytes   int64      // bytes parsed
	err     error      // the unit could not be read at all
	problem []Problem
	forks   int    // branch forks the unit's commit creates
	copyOf  string // modeCopy: the file the session was imported from
	// movedFrom is the file the session was imported from, when this new
	// file continues it (copies.go): its record is prev.
	movedFrom string
	// freeID: modeNew and no session had the file's session ID when the
	// unit was prepared, so whether it is a copy of one was not asked.
	freeID bool
	// replaced is the path's record when the file now holds another
	// session than the one recorded for its path (heldBy): the write
	// expects it rather than no record.
	replaced *sessiondb.SourceFile
	// more: the parse stopped at a chunk's end before the end of the
	// file (chunk.go); size is that end. written: the unit's commit
	// succeeded.
	more, written bool
}

// Import reads the sessions under paths (files and directory trees) and
// writes them into store. Each session is written with one Commit, so it
// lands whole or not at all. Files no format recognises, and defects inside
// files, are reported in Report.Problems and the import goes on; the error is
// non-nil only when the import as a whole could not continue (unknown
// Options.Format, a cancelled ctx, a store failure). A session's branch
// forks (Parsed.Branches) are written in the same transaction as it.
func Import(ctx context.Context, store sessiondb.Store, paths []string, opts Options) (Report, error) {
	var rep Report
	formats, err := selectFormats(opts.Format)
	if err != nil {
		return rep, err
	}
	roots := importRoots(paths)
	records := rootRecords(ctx, store, roots, opts.Machine)
	units, problems, skipped, err := discover(paths, formats, reclaimer(records, formats))
	rep.Problems = append(rep.Problems, problems...)
	rep.Notes = append(rep.Notes, skipped...)
	rep.Skipped = len(skipped)
	if err != nil {
		return rep, err
	}
	return importPlanned(ctx, store, units, opts, rep, scan{roots: roots, formats: formats, records: records})
}

// scan is what an import walked (Import; ImportUnits walks nothing): the
// directories whose vanished files it marks gone (vanished.go), for the
// formats offered.
type scan struct {
	roots   []string
	formats []Format
	// records are the import records under each root as the import
	// read them before its walk (rootRecords), for the vanished check.
	records map[string][]sessiondb.SourceFile
}

// importPlanned parses and writes discovered units (Import after its
// discovery; ImportUnits), adding to rep.
func importPlanned(ctx context.Context, store sessiondb.Store, units []planned, opts Options, rep Report, sc scan) (Report, error) {
	// The stores' sessions become units of their own (stores.go), read
	// through a cache that lives as long as the Follow, or this import.
	cache := opts.Follow.readerCache()
	if cache == nil {
		cache = &jsonl.Cache{}
		defer cache.Close()
	}
	units, storeProblems, storeNotes, listed := expandStores(ctx, units, cache)
	rep.Problems = append(rep.Problems, storeProblems...)
	rep.Notes = append(rep.Notes, storeNotes...)
	pr := newPricer(opts.Prices)
	var own *Follow // the chunked units' parse states, without opts.Follow
	for i := range units {
		units[i].pricer = pr
		units[i].follow = opts.Follow
		units[i].machine = opts.Machine
		units[i].maps = opts.Map
		if units[i].session == nil && !opts.DryRun && units[i].size > chunkSize && chunked(units[i].format) {
			units[i].chunk = true
			if opts.Follow == nil {
				if own == nil {
					own = NewFollow()
					defer own.Close()
				}
				units[i].follow = own
			}
		}
	}
	prog := &progress{fn: opts.Progress}
	for _, u := range units {
		prog.p.FilesTotal += u.files
		prog.p.BytesTotal += u.size
	}
	prog.report()
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// Parsers run ahead of the writer by at most window units, so that at
	// most that many parsed sessions are held in memory. The writer takes
	// them in discovery order, which makes an import deterministic (the
	// first session in path order gets a contested alias).
	window := 2 * jobs
	tokens := make(chan struct{}, window)
	type indexed struct {
		i int
		w *work
	}
	jobCh := make(chan int)
	resCh := make(chan indexed, window)
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobCh {
				resCh <- indexed{i, prepare(ctx, store, units[i])}
			}
		}()
	}
	go func() {
		defer close(jobCh)
		for i := range units {
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobCh <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(resCh)
	}()

	pending := map[int]*work{}
	next := 0
	var seen []string // the units found present, for their sessions' marks
	var fatal error
	b := &batch{}
	for r := range resCh {
		if fatal != nil {
			continue // drain so that the parsers can exit
		}
		pending[r.i] = r.w
		for {
			w, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-tokens
			if err := ctx.Err(); err != nil {
				fatal = fmt.Errorf("import: %w", err)
				cancel()
				break
			}
			if w.err == nil || !errors.Is(w.err, os.ErrNotExist) {
				seen = append(seen, w.p.unit.Path)
			}
			if err := b.write(ctx, store, w, opts.DryRun, &rep); err != nil {
				fatal = err
				cancel()
				break
			}
			w, err := nextChunks(ctx, store, w, opts.DryRun, &rep)
			if err != nil {
				fatal = err
				cancel()
				break
			}
			sessions := 0
			if w.err == nil && w.mode != modeUnchanged && w.mode != modeCopy && w.mode != modeKept {
				sessions = 1
			}
			prog.done(w.p.files, w.p.size, sessions)
		}
	}
	if fatal == nil && next < len(units) {
		fatal = fmt.Errorf("import: %w", context.Cause(ctx))
	}
	switch {
	case fatal == nil:
		fatal = b.flush(ctx, store, opts.DryRun, &rep)
	case errors.Is(fatal, context.Canceled) || errors.Is(fatal, context.DeadlineExceeded):
		// The queued units were parsed and reported as done before the
		// cancel: write them, as they would have been without batching.
		if err := b.flush(sessiondb.DetachWrites(ctx), store, opts.DryRun, &rep); err != nil {
			fatal = errors.Join(fatal, err)
		}
	}
	if fatal == nil {
		fatal = markSources(ctx, store, opts, seen, sc, listed, &rep)
	}
	rep.Notes = append(rep.Notes, pr.notes()...)
	actionsFirst(rep.Notes)
	return rep, fatal
}

// actionsFirst moves the notes that ask the user to act (Problem.Action)
// before the others, each group in its order.
func actionsFirst(notes []Problem) {
	sort.SliceStable(notes, func(i, j int) bool { return notes[i].Action && !notes[j].Action })
}

// Batching. Each new small session would otherwise be one transaction
// with its own fsync; importing an archive of thousands of few-turn
// sessions spent most of its time there. New sessions of at most
// batchMaxEntries entries and no checkpoints are queued and written
// together with one Store.CommitMany per batch (still all or nothing per
// session: a batch is all or nothing). Everything else is written alone,
// after the queue is flushed, so units are written in discovery order. If
// a batch fails (another importer created one of its sessions meanwhile,
// two units of the batch carry the same ID, …), its units are written
// again one by one, which handles each case as before.
const (
	batchMaxUnits   = 256
	batchMaxEntries = 512      // per unit
	batchMaxBytes   = 16 << 20 // bodies per batch
)

// batch is the queue of units waiting for one CommitMany.
type batch struct {
	units   []queued
	commits []sessiondb.SessionCommit
	bytes   int
}

type queued struct {
	w        *work
	entries  int
	problems []Problem
}

// batchable reports whether w may wait in the queue.
func batchable(w *work, dryRun bool) bool {
	return !dryRun && w.err == nil && w.mode == modeNew && w.parsed != nil && !w.more &&
		len(w.parsed.Checkpoints) == 0 && len(w.parsed.Entries) <= batchMaxEntries
}

// write writes w: queued when batchable, else alone after a flush.
func (b *batch) write(ctx context.Context, store sessiondb.Store, w *work, dryRun bool, rep *Report) error {
	if !batchable(w, dryRun) {
		if err := b.flush(ctx, store, dryRun, rep); err != nil {
			return err
		}
		return writeUnit(ctx, store, w, dryRun, rep)
	}
	var queuedCommits []sessiondb.SessionCommit
	n, problems, err := buildUnit(ctx, store, w, false, func(cs []sessiondb.SessionCommit) error {
		queuedCommits = cs
		return nil
	})
	if err != nil {
		// Let the one-by-one path report it as it always did.
		if err := b.flush(ctx, store, dryRun, rep); err != nil {
			return err
		}
		return writeUnit(ctx, store, w, dryRun, rep)
	}
	b.units = append(b.units, queued{w: w, entries: n, problems: problems})
	b.commits = append(b.commits, queuedCommits...)
	for _, qc := range queuedCommits {
		for _, e := range qc.Commit.Append {
			b.bytes += len(e.Body)
		}
	}
	if len(b.units) >= batchMaxUnits || b.bytes >= batchMaxBytes {
		return b.flush(ctx, store, dryRun, rep)
	}
	return nil
}

// flush writes the queue with one CommitMany and records its units in
// rep; on failure it writes them one by one.
func (b *batch) flush(ctx context.Context, store sessiondb.Store, dryRun bool, rep *Report) error {
	if len(b.units) == 0 {
		return nil
	}
	units, commits := b.units, b.commits
	b.units, b.commits, b.bytes = nil, nil, 0
	if _, err := store.CommitMany(ctx, commits); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("import: %w", ctx.Err())
		}
		for _, q := range units {
			if err := writeUnit(ctx, store, q.w, dryRun, rep); err != nil {
				return err
			}
		}
		return nil
	}
	for _, q := range units {
		rep.Files++
		rep.Sessions++
		rep.Entries += q.entries
		rep.Forks += q.w.forks
		rep.Bytes += q.w.bytes
		rep.Problems = append(rep.Problems, q.w.problem...)
		rep.Problems = append(rep.Problems, q.w.parsed.Problems...)
		rep.Notes = append(rep.Notes, q.w.parsed.Notes...)
		rep.Problems = append(rep.Problems, q.problems...)
	}
	return nil
}

// writeUnit records one prepared unit in rep and, unless dryRun, writes it.
// On a sequence conflict it prepares the unit again and retries. It returns
// an error only for failures that should stop the whole import.
func writeUnit(ctx context.Context, store sessiondb.Store, w *work, dryRun bool, rep *Report) error {
	for attempt := 1; ; attempt++ {
		mark := len(rep.Problems) // a retry reports its own problems, not these again
		rep.Problems = append(rep.Problems, w.problem...)
		if w.err != nil {
			if errors.Is(w.err, context.Canceled) || errors.Is(w.err, context.DeadlineExceeded) {
				return fmt.Errorf("import: %w", w.err)
			}
			if errors.Is(w.err, jsonl.ErrNoConversation) {
				rep.Files++
				rep.Skipped++
				rep.Notes = append(rep.Notes, Problem{Path: w.p.unit.Path, Reason: w.err.Error()})
				return nil
			}
			rep.Files++
			rep.Problems = append(rep.Problems, Problem{Path: w.p.unit.Path, Reason: fmt.Sprintf("cannot import: %v", w.err)})
			if w.parsed != nil {
				rep.Problems = append(rep.Problems, w.parsed.Problems...)
				rep.Notes = append(rep.Notes, w.parsed.Notes...)
			}
			return nil
		}
		if w.mode == modeUnchanged {
			rep.Files++
			rep.Unchanged++
			// Its torn last line (or unfinished turn) is still not
			// imported: still a problem.
			rep.Problems = append(rep.Problems, w.prevSt.Torn...)
			return nil
		}
		if w.mode == modeKept {
			rep.Files++
			rep.Unchanged++
			rep.gone = append(rep.gone, w.copyOf)
			rep.Notes = append(rep.Notes, Problem{Path: w.p.unit.Path, Reason: fmt.Sprintf(
				"session %q was imported from %s, which is gone; this file holds less of it (%d messages, the session %d): not imported over it, the session is kept whole",
				w.sess.ID, w.copyOf, countMessages(w.parsed.Entries), w.sess.MessageCount)})
			return nil
		}
		if w.mode == modeCopy {
			rep.Files++
			rep.Unchanged++
			rep.Notes = append(rep.Notes, Problem{Path: w.p.unit.Path, Reason: fmt.Sprintf(
				"a copy of %s, imported as session %q, which holds all of it; skipped", w.copyOf, w.parsed.Session.ID)})
			return nil
		}
		n, problems, err := buildUnit(ctx, store, w, dryRun, func(cs []sessiondb.SessionCommit) error {
			if len(cs) == 1 {
				_, err := store.Commit(ctx, cs[0].ID, cs[0].Commit)
				return err
			}
			_, err := store.CommitMany(ctx, cs)
			return err
		})
		if err == nil {
			w.written = true
			if w.more {
				// The end of the transcript is where the chunk ends, not
				// the file: its notes are the last chunk's to give.
				w.parsed.Notes = nil
			}
			rep.Files++
			rep.Sessions++
			rep.Entries += n
			rep.Forks += w.forks
			rep.Bytes += w.bytes
			rep.Problems = append(rep.Problems, w.parsed.Problems...)
			rep.Notes = append(rep.Notes, w.parsed.Notes...)
			rep.Problems = append(rep.Problems, problems...)
			return nil
		}
		// ErrExists: another importer created the session (or took an
		// alias) between prepare and commit; preparing again sees it and
		// disambiguates, as for a conflict.
		if (errors.Is(err, sessiondb.ErrConflict) || errors.Is(err, sessiondb.ErrExists)) && attempt < maxCommitAttempts {
			rep.Problems = rep.Problems[:mark]
			w = prepare(ctx, store, w.p)
			continue
		}
		if errors.Is(err, sessiondb.ErrInvalid) || errors.Is(err, sessiondb.ErrExists) || errors.Is(err, sessiondb.ErrConflict) {
			rep.Files++
			rep.Problems = append(rep.Problems, w.parsed.Problems...)
			rep.Notes = append(rep.Notes, w.parsed.Notes...)
			rep.Problems = append(rep.Problems, Problem{Path: w.p.unit.Path, Reason: fmt.Sprintf("not imported: %v", err)})
			return nil
		}
		return fmt.Errorf("import %s: %w", w.p.unit.Path, err)
	}
}

// prepare decides how a unit is to be imported (new, unchanged, grown,
// rewritten) and parses it. It only reads from the store, so it runs on the
// parser goroutines.
func prepare(ctx context.Context, store sessiondb.Store, p planned) *work {
	if p.session != nil {
		return prepareSession(ctx, store, p)
	}
	w := &work{p: p}
	u := p.unit
	fi, err := os.Stat(u.Path)
	if err != nil {
		w.err = err
		return w
	}
	w.stat = fi
	w.size, w.mtime = fi.Size(), fi.ModTime()
	if l, ok := p.format.(jsonl.SideLister); ok {
		u.Extra = l.SideFiles(u.Path) // after the stat: see jsonl.SideLister
	}
	w.extra = stampFiles(u.Extra)
	var prev sessiondb.SourceFile
	if p.prev != nil {
		prev = *p.prev // read before the walk (unchanged.go)
	} else {
		prev, err = sessiondb.SourceFileOn(ctx, store, p.machine, u.Path)
	}
	switch {
	case errors.Is(err, sessiondb.ErrNotFound):
		w.mode = modeNew
	case err != nil:
		w.err = err
		return w
	default:
		w.prev = prev
		if p.prevSt != nil {
			w.prevSt = *p.prevSt // decoded by reclaim
		} else if len(prev.State) > 0 {
			if err := json.Unmarshal(prev.State, &w.prevSt); err != nil {
				w.problem = append(w.problem, Problem{Path: u.Path, Reason: fmt.Sprintf("previous import state unreadable (%v); importing again as a replacement", err)})
				w.prevSt = importState{}
			}
		}
		if statUnchanged(fi, prev, w.prevSt, w.extra) {
			// Same inode, size and modification time as recorded: not
			// read at all (prefix.go).
			p.follow.markVerified(u.Path, jsonl.InodeOf(fi))
			w.mode = modeUnchanged
			return w
		}
		if p.prev != nil {
			// Changed since the walk: decide on the record as it is now.
			p.prev, p.prevSt = nil, nil
			return prepare(ctx, store, p)
		}
		sess, err := store.Get(ctx, prev.SessionID)
		if err != nil {
			w.err = err
			return w
		}
		w.sess = sess
		w.mode = modeReplace
		if fi.Size() >= prev.Offset {
			h, err := checkPrefix(p.follow, u.Path, fi, prev.SHA256, prev.Offset, w.prevSt.prefixMark)
			if err != nil {
				w.err = err
				return w
			}
			if h != nil {
				w.mode = modeResume
				w.prefix = h
				if fi.Size() == prev.Size && fi.ModTime().Equal(prev.ModTime) && sameStamps(w.prevSt.Extra, w.extra) {
					w.mode = modeUnchanged
					return w
				}
			}
		}
	}
	from := Resume{Cache: p.follow.readerCache(), Size: fi.Size()}
	if w.mode == modeResume {
		from = Resume{Offset: w.prev.Offset, Entries: w.prevSt.Entries, State: w.prevSt.Reader, Cache: p.follow.readerCache(), Size: fi.Size()}
	}
	if p.chunk {
		// A large file is read a chunk at a time (chunk.go).
		end, err := chunkEnd(u.Path, from.Offset, fi.Size())
		if err != nil {
			w.err = err
			return w
		}
		if end < fi.Size() {
			from.Size, w.size, w.more = end, end, true
		}
	}
	parsed, err := p.format.Parse(ctx, u, from)
	if w.mode == modeResume && err == nil {
		p.follow.count(func(s *FollowStats) { s.Resumes++ })
	}
	if w.mode == modeResume && errors.Is(err, ErrNotIncremental) && p.follow != nil && chunked(p.format) && w.prev.Offset > chunkSize {
		// A large file's parse state is gone (a restart): rebuild it a
		// chunk at a time rather than hold the whole file (chunk.go).
		if replay(ctx, p, w.prev.Offset, w.prevSt.Entries, &from) {
			p.follow.count(func(s *FollowStats) { s.Replays++ })
			parsed, err = p.format.Parse(ctx, u, from)
		}
	}
	if w.mode == modeResume && errors.Is(err, ErrNotIncremental) {
		// The file grew, but the reader cannot continue from its state:
		// read it whole, and append only what was not imported yet.
		p.follow.count(func(s *FollowStats) { s.Rereads++ })
		whole := Resume{State: w.prevSt.Reader, Cache: p.follow.readerCache(), Size: from.Size}
		reread := whole
		reread.Reread = w.prevSt.Entries
		parsed, err = p.format.Parse(ctx, u, reread)
		w.mode = modeReread
		if err == nil && parsed != nil {
			if reason := trimReread(parsed, w.prevSt); reason != "" {
				w.problem = append(w.problem, Problem{Path: u.Path, Reason: "the file grew but " + reason + "; imported again as a replacement"})
				w.mode = modeReplace
				// A replacement writes every entry's usage: read again
				// without Reread, which let the reader leave out those
				// of the entries imported before.
				parsed, err = p.format.Parse(ctx, u, whole)
			}
		}
	}
	if w.mode == modeReplace && err == nil && parsed != nil && rewritesHeader(p.format) {
		// The consumed bytes changed, but this format's tool rewrites its
		// header in place as it appends: when the entries imported still
		// read the same, the file only grew.
		if _, ok := resumeDigest(w.prevSt); ok && trimReread(parsed, w.prevSt) == "" {
			p.follow.count(func(s *FollowStats) { s.Rereads++ })
			w.mode = modeReread
		}
	}
	if err != nil {
		w.err = err
		w.parsed = parsed
		return w
	}
	if parsed == nil {
		w.err = fmt.Errorf("reader returned nothing")
		return w
	}
	w.parsed = parsed
	// The session of the ID the file names, read once for the checks
	// below (another session's file, copy, continuation).
	var named sessiondb.Session
	var namedErr error
	namedRead := false
	readNamed := func() (sessiondb.Session, error) {
		if !namedRead {
			named, namedErr = store.Get(ctx, parsed.Session.ID)
			namedRead = true
		}
		return named, namedErr
	}
	validID := sessiondb.ValidateID(parsed.Session.ID) == nil
	if w.mode == modeReplace && validID && !heldBy(w.sess, parsed.Session.ID, p.machine, u.Path) && importedElsewhere(readNamed, u, p.machine) {
		// The file now holds another session, one imported from another
		// file (a Codex rollout renamed over another one): the session
		// recorded for the path keeps what its file had, and the file is
		// imported as a new file would be, as that session's copy or
		// continuation (or beside it). One import of the final files
		// does the same. A name no session has yet is the path's
		// session renamed (a picoclaw .jsonl imported before its meta
		// named its key): that stays a replacement, so that the session
		// is not shown twice.
		rec := w.prev
		w.replaced = &rec
		w.mode, w.sess, w.prev, w.prevSt = modeNew, sessiondb.Session{}, sessiondb.SourceFile{}, importState{}
	}
	if w.mode == modeNew && validID {
		// Another file's session of this ID: is this file its copy, or
		// its continuation (copies.go)? The session is read once for both.
		existing, err := readNamed()
		switch {
		case errors.Is(err, sessiondb.ErrNotFound):
			w.freeID = true
		case err != nil || !fromOtherFile(existing, u, p.machine):
		case keepsVanished(existing, u, p.machine, parsed):
			w.mode, w.copyOf, w.sess = modeKept, existing.SourcePath, existing
			return w
		case copyOf(existing, u, p.machine):
			w.mode, w.copyOf = modeCopy, existing.SourcePath
			return w
		case otherMachine(existing, p.machine) && storeCopyOf(ctx, store, existing, parsed):
			// Another machine's session, whose log starts with this
			// file's entries (the file synced here, as far as it got):
			// nothing the session lacks (copies.go).
			w.mode, w.copyOf = modeCopy, fmt.Sprintf("%s on machine %q", existing.SourcePath, existing.Machine)
			return w
		default:
			prev, st, h, ok := continuation(ctx, store, p.follow, p.machine, existing, u, fi, parsed)
			switch {
			case !ok:
			case len(parsed.Entries) == 0 && !parsed.Session.UpdatedAt.After(existing.UpdatedAt):
				// Nothing new, and its side files are not newer than
				// what was imported (a backup of a picoclaw archive
				// taken before TruncateHistory rewrote its meta): a
				// copy, which must not undo what the session has.
				w.mode, w.copyOf = modeCopy, prev.Path
				return w
			default:
				p.follow.count(func(s *FollowStats) { s.Rereads++ })
				w.mode, w.sess, w.prev, w.prevSt, w.prefix, w.movedFrom = modeReread, existing, prev, st, h, prev.Path
			}
		}
	}
	if w.mode == modeResume || w.mode == modeReread {
		if err := skipLogged(ctx, store, w.sess, parsed, &w.prevSt); err != nil {
			w.err = err
			return w
		}
	}
	if p.pricer != nil {
		p.pricer.price(u.Path, parsed.Usage)
	}
	if parsed.Offset < from.Offset {
		parsed.Offset = from.Offset
	}
	// The recorded hash covers the bytes consumed; when resuming, the
	// prefix already hashed is continued rather than read again.
	h, hashed := w.prefix, from.Offset
	if w.mode != modeResume || h == nil {
		h, hashed = sha256.New(), 0
	}
	if w.mode == modeReread && w.prefix != nil && parsed.Offset >= w.prev.Offset {
		h, hashed = w.prefix, w.prev.Offset
	}
	if err := jsonl.HashRange(u.Path, h, hashed, parsed.Offset); err != nil {
		w.err = err
		return w
	}
	w.sha = hex.EncodeToString(h.Sum(nil))
	if hashed == 0 {
		// The whole prefix was hashed just now.
		p.follow.markVerified(u.Path, jsonl.InodeOf(fi))
	}
	w.mark = markOf(u.Path, fi, h, parsed.Offset)
	w.bytes = w.size - from.Offset
	for _, x := range w.extra {
		w.bytes += x.Size
	}
	return w
}

// heldBy reports whether a file whose reader names the session id, at
// path, holds the session sess recorded for the path: sess has that ID,
// or the one an import derived from it for this path (disambiguate, on
// machine or before derived IDs had machines).
func heldBy(sess sessiondb.Session, id, machine, path string) bool {
	return sess.ID == id || sess.ID == disambiguate(id, machine, path) || sess.ID == disambiguate(id, "", path)
}

// importedElsewhere reports whether the session read returns exists,
// imported from another file of u's format.
func importedElsewhere(read func() (sessiondb.Session, error), u Unit, machine string) bool {
	s, err := read()
	return err == nil && fromOtherFile(s, u, machine)
}

// rewritesHeader reports whether f's tool rewrites the start of its files
// in place as it appends (jsonl.HeaderRewriter).
func rewritesHeader(f Format) bool {
	h, ok := f.(jsonl.HeaderRewriter)
	return ok && h.RewritesHeader()
}

// trimReread is jsonl.TrimReread after a check of the entries imported
// before against prevSt.Digest (the reader numbers a file's entries the
// same way whatever its length, so the first ones are those already in the
// store). It returns why the file cannot be continued ("" when it can).
func trimReread(pd *Parsed, prevSt importState) string {
	k := prevSt.Entries
	if h, ok := resumeDigest(prevSt); ok && len(pd.Entries) >= k {
		again := sha256.New()
		entryDigest(again, pd.Entries[:k])
		if !bytes.Equal(h.Sum(nil), again.Sum(nil)) {
			return fmt.Sprintf("its first %d entries no longer read as they were imported", k)
		}
	}
	return jsonl.TrimReread(pd, k)
}

// buildUnit builds the commits that write a parsed unit (the session's,
// then one per new branch fork: all or nothing), hands them to commit
// (which writes them, or queues them for a batch) and then saves the
// unit's checkpoints. It returns the number of entries appended (the
// forks' included).
func buildUnit(ctx context.Context, store sessiondb.Store, w *work, dryRun bool, commit func([]sessiondb.SessionCommit) error) (int, []Problem, error) {
	pd := w.parsed
	u := w.p.unit
	var problems []Problem
	st := importState{Extra: w.extra, Reader: pd.ResumeState}
	c := sessiondb.Commit{Append: pd.Entries, State: pd.State, Interrupt: pd.Interrupt, Now: pd.Session.UpdatedAt}
	meta := pd.Session
	meta.SourceFormat = u.Format
	meta.SourcePath = u.Path
	meta.Project = projectOf(meta)

	// The "already imported?" decision of prepare and this write must be
	// one transaction: the commit fails with ErrConflict (and writeUnit
	// prepares again) if another importer recorded the file since.
	expect := &sessiondb.SourceExpectation{Absent: true}
	switch {
	case w.replaced != nil:
		expect = &sessiondb.SourceExpectation{SHA256: w.replaced.SHA256, Offset: w.replaced.Offset}
	case w.mode != modeNew && w.movedFrom == "":
		expect = &sessiondb.SourceExpectation{SHA256: w.prev.SHA256, Offset: w.prev.Offset}
	}

	var id string
	switch w.mode {
	case modeNew:
		id = meta.ID
		if err := sessiondb.ValidateID(id); err != nil {
			return 0, nil, fmt.Errorf("session id from %s: %w", u.Path, err)
		}
		existing, err := store.Get(ctx, id)
		switch {
		case errors.Is(err, sessiondb.ErrNotFound):
		case err != nil:
			return 0, nil, err
		case ownsFile(existing, u, w.p.machine):
			// The session was imported from a file that now belongs to
			// this unit (a picoclaw meta-only session that got its
			// .jsonl, a migrated legacy session): continue it as a
			// replacement.
			w.mode = modeReplace
			w.sess = existing
		case w.freeID:
			// Another importer created it since the unit was prepared
			// (two copies of one archive imported at once): prepare
			// again, which asks whether this file is its copy.
			return 0, nil, fmt.Errorf("session %q created meanwhile: %w", id, sessiondb.ErrExists)
		default:
			// Another source already uses this ID (the same archive in
			// two places, or a native session): keep both.
			alt := disambiguate(id, w.p.machine, u.Path)
			from := fmt.Sprintf("%q", existing.SourcePath)
			if otherMachine(existing, w.p.machine) {
				from += fmt.Sprintf(" on machine %q", existing.Machine)
			}
			if twinFormats(existing.SourceFormat, u.Format) {
				// One conversation the agent keeps in two places: expected,
				// so a note, not a problem of the archive.
				pd.Notes = append(pd.Notes, Problem{Path: u.Path, Reason: fmt.Sprintf("session %q is also kept by %s (from %s), the same conversation as the agent stores it there; imported beside it as %q", id, existing.SourceFormat, from, alt)})
			} else {
				problems = append(problems, Problem{Path: u.Path, Reason: fmt.Sprintf("session %q already exists (from %s); imported as %q", id, from, alt)})
			}
			id = alt
			if _, err := store.Get(ctx, id); err == nil {
				return 0, problems, fmt.Errorf("session %q: %w", id, sessiondb.ErrExists)
			}
		}
	default:
		id = w.sess.ID
	}

	aliases, attrs, aprobs := freeAliases(id, meta.Aliases, meta.Attrs, u.Path)
	problems = append(problems, aprobs...)
	meta.Aliases, meta.Attrs = aliases, attrs

	switch w.mode {
	case modeNew:
		meta.ID = id
		meta.Machine = w.p.machine
		meta.Sequence, meta.LastSeq = 0, 0
		c.Create = &meta
		// The archive's sessions are created whatever aliases the ones
		// imported before list: picoclaw lets a session with a plain key
		// beat an alias (a routed session may list the opaque main key
		// sk_v1_…), and the store's Resolve does the same.
		c.ShadowAliases = true
		st.SeqBase = 0
		st.Entries = len(pd.Entries)
	case modeResume, modeReread:
		c.ExpectSequence = sessiondb.Expect(w.sess.Sequence)
		st = w.prevSt
		st.Extra, st.Reader = w.extra, pd.ResumeState
		if w.sess.LastSeq != st.seqOf(int64(st.Entries)) && len(pd.Entries) > 0 {
			// Another writer appended to the session since: the new
			// entries start a new segment of the mapping.
			st.Segments = append(st.Segments, [2]int64{int64(st.Entries) + 1, w.sess.LastSeq - int64(st.Entries)})
		}
		st.Entries += len(pd.Entries)
		c.Meta = metaPatch(meta)
		c.Meta.ForkSeq = movedForkSeq(ctx, store, w.sess, meta)
		if pd.Interrupt == nil {
			c.ClearInterrupt = true
		}
	case modeReplace:
		c.ExpectSequence = sessiondb.Expect(w.sess.Sequence)
		st.SeqBase = w.sess.LastSeq
		st.Entries = len(pd.Entries)
		c.Meta = metaPatch(meta)
		c.Meta.ForkSeq = movedForkSeq(ctx, store, w.sess, meta)
		if pd.Interrupt == nil {
			c.ClearInterrupt = true
		}
		// The file was rewritten: its entries replace the transcript.
		// The old rows stay in the log for audit.
		c.Compactions = append(c.Compactions, sessiondb.Compaction{
			KeepFromSeq: w.sess.LastSeq + 1,
			Details:     jsonl.MustJSON(map[string]any{"reason": "source file rewritten; transcript replaced", "source": u.Path}),
		})
	}

	// Compactions, checkpoints and usage rows count entries within the
	// file; map them to log positions.
	if w.mode != modeResume && w.mode != modeReread {
		st.Compactions, st.LastCompaction = 0, nil
	}
	if w.mode == modeReread && len(pd.Compactions) == 0 && st.LastCompaction != nil {
		// The whole file needs no compaction (its transcript is every
		// entry), but an earlier import of a prefix recorded one.
		pd.Compactions = []sessiondb.Compaction{{KeepFromSeq: 1,
			Details: jsonl.MustJSON(map[string]any{"reason": "the grown file's transcript is the whole file", "source": u.Path})}}
	}
	digest, ok := resumeDigest(w.prevSt)
	if w.mode == modeNew || w.mode == modeReplace {
		digest, ok = sha256.New(), true
	}
	if ok {
		entryDigest(digest, pd.Entries)
		st.Digest = digestState(digest)
	} else {
		st.Digest = nil
	}
	for _, cp := range c.Compactions { // the replacement compaction
		st.Compactions++
		st.LastCompaction = compactionID(cp)
	}
	total := int64(st.Entries)
	for _, cp := range pd.Compactions {
		cp.ID = 0
		cp.KeepFromSeq = st.keepFrom(cp.KeepFromSeq, total)
		if cp.AtSeq > 0 {
			cp.AtSeq = st.seqOf(min(cp.AtSeq, total))
		}
		cid := compactionID(cp)
		if st.LastCompaction != nil && *st.LastCompaction == *cid {
			continue // repeated by the reader; already recorded
		}
		c.Compactions = append(c.Compactions, cp)
		st.Compactions++
		st.LastCompaction = cid
	}
	for _, us := range pd.Usage {
		if us.Seq > 0 {
			us.Seq = st.seqOf(min(us.Seq, total))
		}
		c.Usage = append(c.Usage, us)
	}
	// A file rewritten in place replaces the session's ledger as it
	// replaces its transcript: its calls are the file's now.
	c.ReplaceUsage = w.mode == modeReplace
	st.prefixMark = w.mark
	st.Torn = tornProblems(pd, w.size)
	stJSON, err := json.Marshal(st)
	if err != nil {
		return 0, problems, err
	}
	c.Source = &sessiondb.SourceFile{
		Machine:   w.p.machine,
		Path:      u.Path,
		Format:    u.Format,
		SessionID: id,
		Size:      w.size,
		ModTime:   w.mtime,
		SHA256:    w.sha,
		Offset:    pd.Offset,
		State:     stJSON,
	}
	c.ExpectSource = expect
	commits := []sessiondb.SessionCommit{{ID: id, Commit: c}}
	forks, fprobs, err := branchForks(ctx, store, pd, id, u, st.seqOf, w.mode == modeReplace)
	if err != nil {
		return 0, problems, err
	}
	problems = append(problems, fprobs...)
	commits = append(commits, forks...)
	mapProjects(commits, w.p.maps)
	w.forks = 0
	for _, f := range forks {
		if f.Commit.Create != nil {
			w.forks++
		}
	}
	entries := len(pd.Entries)
	for _, f := range forks {
		entries += len(f.Commit.Append)
	}
	if dryRun {
		for _, sc := range commits {
			if err := sessiondb.ValidateCommit(sc.ID, sc.Commit); err != nil {
				return 0, problems, err
			}
		}
		return entries, problems, nil
	}
	if err := commit(commits); err != nil {
		return 0, problems, err
	}
	for _, cp := range pd.Checkpoints {
		if cp.ID != "" {
			if _, err := store.LoadCheckpoint(ctx, cp.ID); err == nil {
				continue
			}
		}
		cp.SessionID = id
		if cp.AtSeq > 0 {
			cp.AtSeq = st.seqOf(min(cp.AtSeq, total))
		}
		if _, err := store.SaveCheckpoint(ctx, cp); err != nil {
			problems = append(problems, Problem{Path: u.Path, Reason: fmt.Sprintf("checkpoint %q not saved: %v", cp.ID, err)})
		}
	}
	return entries, problems, nil
}

// branchForks returns the commits that create the forks of pd's branches
// which do not exist yet. A branch's path never changes while the file
// grows, so an existing fork of this session keeps its log (its metadata
// follows the file); when the file was rewritten (replace), its branch's
// path replaces the fork's transcript, as the file's does the session's. A
// session of that ID that is not this session's fork is reported and kept.
// A fork whose branch the grown file continues (pd.Continued: pi went back
// to its tip and went on) is deleted in the same commit, as one import of
// the file makes none; one written to since its import is kept, with a
// problem.
// seqOf maps a file entry number to the session's log position.
func branchForks(ctx context.Context, store sessiondb.Store, pd *Parsed, id string, u Unit, seqOf func(int64) int64, replace bool) ([]sessiondb.SessionCommit, []Problem, error) {
	var out []sessiondb.SessionCommit
	var problems []Problem
	for _, b := range pd.Branches {
		fid := BranchID(id, b.Tip)
		if err := sessiondb.ValidateID(fid); err != nil {
			problems = append(problems, Problem{Path: u.Path, Reason: fmt.Sprintf("branch %q not imported as a fork: %v", b.Tip, err)})
			continue
		}
		existing, err := store.Get(ctx, fid)
		switch {
		case errors.Is(err, sessiondb.ErrNotFound):
		case err != nil:
			return nil, problems, err
		case existing.ParentID == id:
			// The path is the fork's already; what the file says of the
			// path since (a title, labels on its entries, where it leaves
			// the resumed path) is carried.
			at := int64(0)
			if b.FromEntry > 0 {
				at = seqOf(b.FromEntry)
			}
			if replace {
				out = append(out, sessiondb.SessionCommit{ID: fid, Commit: replaceFork(existing, b, u, at)})
				continue
			}
			if patch := forkMetaPatch(existing, b.Session, at); patch != nil {
				out = append(out, sessiondb.SessionCommit{ID: fid, Commit: sessiondb.Commit{Meta: patch, Now: existing.UpdatedAt}})
			}
			continue
		default:
			problems = append(problems, Problem{Path: u.Path, Reason: fmt.Sprintf("branch %q not imported: session %q already exists and is not a fork of %q", b.Tip, fid, id)})
			continue
		}
		meta := b.Session
		meta.ID, meta.ParentID = fid, id
		meta.SourceFormat, meta.SourcePath = u.Format, u.Path
		if meta.Project = projectOf(meta); meta.Project == "" {
			meta.Project = projectOf(pd.Session) // the file's
		}
		meta.Sequence, meta.LastSeq, meta.ForkSeq = 0, 0, 0
		if b.FromEntry > 0 {
			meta.ForkSeq = seqOf(b.FromEntry)
		}
		c := sessiondb.Commit{Create: &meta, Append: b.Entries, Now: meta.UpdatedAt}
		for _, cp := range b.Compactions {
			cp.ID = 0
			c.Compactions = append(c.Compactions, cp)
		}
		out = append(out, sessiondb.SessionCommit{ID: fid, Commit: c})
	}
	if replace {
		return out, problems, nil // a rewritten file's forks stay (see the package doc)
	}
	for _, gone := range pd.Continued {
		fid := BranchID(id, gone.Tip)
		existing, err := store.Get(ctx, fid)
		switch {
		case errors.Is(err, sessiondb.ErrNotFound):
		case err != nil:
			return nil, problems, err
		case existing.ParentID != id || existing.SourcePath != u.Path || existing.SourceFormat != u.Format:
		case existing.LastSeq != gone.Entries:
			problems = append(problems, Problem{Path: u.Path, Reason: fmt.Sprintf("branch fork %q: the file continues its branch, but the fork holds %d entries where the import wrote %d; kept", fid, existing.LastSeq, gone.Entries)})
		default:
			// The branch goes on in the file: one import of it has no
			// fork for it. Its entries are the session's own lines.
			out = append(out, sessiondb.SessionCommit{ID: fid, Commit: sessiondb.Commit{ExpectSequence: sessiondb.Expect(existing.Sequence), Delete: true}})
		}
	}
	return out, problems, nil
}

// replaceFork returns the commit that gives the existing fork of branch b,
// whose file was rewritten, the branch's path as read now: its entries
// appended and made the transcript by a compaction (the old rows stay in
// the log, as for the session), its compactions after it, its metadata
// and its branch point forkSeq.
func replaceFork(existing sessiondb.Session, b jsonl.Branch, u Unit, forkSeq int64) sessiondb.Commit {
	base := existing.LastSeq
	c := sessiondb.Commit{ExpectSequence: sessiondb.Expect(existing.Sequence), Append: b.Entries, Now: b.Session.UpdatedAt}
	c.Compactions = append(c.Compactions, sessiondb.Compaction{KeepFromSeq: base + 1,
		Details: jsonl.MustJSON(map[string]any{"reason": "source file rewritten; branch transcript replaced", "source": u.Path})})
	for _, cp := range b.Compactions {
		cp.ID = 0
		cp.KeepFromSeq += base
		if cp.AtSeq > 0 {
			cp.AtSeq += base
		}
		c.Compactions = append(c.Compactions, cp)
	}
	attrs := b.Session.Attrs
	if attrs == nil {
		attrs = json.RawMessage("null")
	}
	c.Meta = &sessiondb.MetaPatch{Title: &b.Session.Title, Summary: &b.Session.Summary, Attrs: attrs, UpdatedAt: b.Session.UpdatedAt}
	if existing.ForkSeq != forkSeq {
		c.Meta.ForkSeq = &forkSeq
	}
	return c
}

// forkMetaPatch returns the patch that gives an existing branch fork the
// title, labels and branch point (ForkSeq forkSeq, attrs.branch) of its
// branch as read now (nil when they are the same). The branch point moves
// when the path pi resumes moves: a branch leaves the new path elsewhere.
func forkMetaPatch(existing, now sessiondb.Session, forkSeq int64) *sessiondb.MetaPatch {
	member := func(attrs json.RawMessage, name string) string {
		var a map[string]json.RawMessage
		_ = json.Unmarshal(attrs, &a)
		if len(a[name]) == 0 {
			return "null"
		}
		return string(a[name])
	}
	merge := map[string]json.RawMessage{}
	for _, name := range []string{"labels", "branch"} {
		if was, is := member(existing.Attrs, name), member(now.Attrs, name); was != is {
			merge[name] = json.RawMessage(is)
		}
	}
	if existing.Title == now.Title && len(merge) == 0 && existing.ForkSeq == forkSeq {
		return nil
	}
	p := &sessiondb.MetaPatch{Title: &now.Title, UpdatedAt: existing.UpdatedAt}
	if len(merge) > 0 {
		p.AttrsMerge = jsonl.MustJSON(merge)
	}
	if existing.ForkSeq != forkSeq {
		p.ForkSeq = &forkSeq
	}
	return p
}

// movedForkSeq returns the ForkSeq to patch the existing fork sess with
// when the file now places its branch point elsewhere (pi: a /fork file
// imported while pi was still copying the source's entries), or nil. A
// reader that finds no branch point (0: the source file cannot be read)
// leaves the stored one; so does one beyond its parent's log as stored
// (the parent's file grew and is not imported yet: a later import moves
// it).
func movedForkSeq(ctx context.Context, store sessiondb.Store, sess, now sessiondb.Session) *int64 {
	if sess.ParentID == "" || now.ParentID != sess.ParentID || now.ForkSeq <= 0 || now.ForkSeq == sess.ForkSeq {
		return nil
	}
	if parent, err := store.Get(ctx, sess.ParentID); err == nil && now.ForkSeq > parent.LastSeq || err != nil && !errors.Is(err, sessiondb.ErrNotFound) {
		return nil
	}
	return &now.ForkSeq
}

// metaPatch turns parsed metadata into a patch that sets every field the
// readers fill.
func metaPatch(s sessiondb.Session) *sessiondb.MetaPatch {
	p := &sessiondb.MetaPatch{
		Title:     &s.Title,
		Summary:   &s.Summary,
		Scope:     s.Scope,
		Attrs:     s.Attrs,
		Version:   &s.Version,
		Project:   &s.Project,
		UpdatedAt: s.UpdatedAt,
	}
	aliases := s.Aliases
	if aliases == nil {
		aliases = []string{}
	}
	p.Aliases = &aliases
	if p.Scope == nil {
		p.Scope = json.RawMessage("null")
	}
	if p.Attrs == nil {
		p.Attrs = json.RawMessage("null")
	}
	return p
}

// droppedAliasesKey is the Attrs member where the importer keeps a source
// session's full alias list when some of its aliases cannot be registered
// (an alias that is not a valid ID: empty, too long, a control character).
// Aliases other sessions also list are registered: aliases may be shared
// (picoclaw puts "agent:main:main" on every routed session).
const droppedAliasesKey = jsonl.DroppedAliasesKey

// freeAliases keeps the aliases that can be registered. When it drops
// some, the full list is recorded in attrs[droppedAliasesKey] so that
// nothing is lost and an export can write it back.
func freeAliases(id string, aliases []string, attrs json.RawMessage, path string) ([]string, json.RawMessage, []Problem) {
	var keep []string
	var problems []Problem
	seen := map[string]bool{id: true}
	dropped := false
	for _, a := range aliases {
		if seen[a] {
			continue
		}
		seen[a] = true
		if err := sessiondb.ValidateID(a); err != nil {
			problems = append(problems, Problem{Path: path, Reason: fmt.Sprintf("alias %q not registered (kept in attrs.%s): %v", a, droppedAliasesKey, err)})
			dropped = true
			continue
		}
		keep = append(keep, a)
	}
	if !dropped {
		return keep, attrs, problems
	}
	obj := map[string]json.RawMessage{}
	if len(attrs) > 0 && string(attrs) != "null" {
		if err := json.Unmarshal(attrs, &obj); err != nil {
			problems = append(problems, Problem{Path: path, Reason: fmt.Sprintf("attrs are not a JSON object; full alias list not recorded: %v", err)})
			return keep, attrs, problems
		}
	}
	obj[droppedAliasesKey] = jsonl.MustJSON(aliases)
	return keep, jsonl.MustJSON(obj), problems
}

// sourceAliases returns a session's aliases as the source had them
// (jsonl.SourceAliases).
func sourceAliases(s sessiondb.Session) []string { return jsonl.SourceAliases(s) }

// ownsFile reports whether session s, imported before in u's format, is
// the session u continues: s was imported from one of u's files, or from a
// file that no longer exists (picoclaw renames a legacy {key}.json to
// .json.migrated when it moves the session into {key}.jsonl). A session
// another machine created is never: its files are that machine's
// (machine is the importer's).
func ownsFile(s sessiondb.Session, u Unit, machine string) bool {
	if s.SourcePath == "" || s.SourceFormat != u.Format || otherMachine(s, machine) {
		return false
	}
	if s.SourcePath == u.Path {
		return true
	}
	for _, x := range u.Extra {
		if s.SourcePath == x {
			return true
		}
	}
	_, err := os.Stat(jsonl.FileOf(s.SourcePath))
	return errors.Is(err, os.ErrNotExist)
}

// disambiguate derives a distinct ID for a second source session that
// carries an ID already in use: the ID, "~" and 8 hex digits of the hash
// of the source path (of the machine, a newline and the path when the
// importer gave a machine: one path on three machines is three sessions).
// It is stable, so a re-import finds the same session.
func disambiguate(id, machine, path string) string {
	key := path
	if machine != "" {
		key = machine + "\n" + path
	}
	sum := sha256.Sum256([]byte(key))
	suffix := "~" + hex.EncodeToString(sum[:4])
	if len(id)+len(suffix) > sessiondb.MaxIDLen {
		id = id[:sessiondb.MaxIDLen-len(suffix)]
	}
	return id + suffix
}

// stampFiles fingerprints side files (missing ones get size -1).
func stampFiles(paths []string) []jsonl.FileStamp {
	var out []jsonl.FileStamp
	for _, p := range paths {
		s := jsonl.FileStamp{Path: p, Size: -1}
		if fi, err := os.Stat(p); err == nil {
			s = jsonl.StampOf(p, fi)
			s.ModTime = s.ModTime.UTC()
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func sameStamps(a, b []jsonl.FileStamp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Same(b[i]) {
			return false
		}
	}
	return true
}

// projectOf is the project of a session read from a source: what its
// reader found (Claude Code: the cwd, else the project folder), else the
// working directory its attributes hold (attrs.cwd: Codex's session_meta,
// pi's header, zot's meta).
func projectOf(s sessiondb.Session) string {
	if s.Project != "" {
		return s.Project
	}
	var a struct {
		CWD any `json:"cwd"`
	}
	if len(s.Attrs) > 0 && json.Unmarshal(s.Attrs, &a) == nil {
		if cwd, ok := a.CWD.(string); ok {
			return cwd
		}
	}
	return ""
}
