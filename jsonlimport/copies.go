package jsonlimport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"hash"
	"io"
	"os"
	"path/filepath"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// A file found at a new path whose session ID an earlier import already
// gave to a session of another file is, as a rule, another session (two
// machines' picoclaw "agent:main:cli:direct:alice"): it is imported beside
// it under a derived ID (disambiguate). But when its bytes are those of
// that other file, or their start (the same archive copied to a second
// place, a backup taken before the session went on), it is a copy: it
// holds nothing the session lacks, and importing it would show the
// session twice and count its usage twice, which ccusage, deduplicating
// API responses across files, does not. Such a file is skipped with a
// note (modeCopy).
//
// The other way round, a file that starts with the bytes an import of the
// session's own file consumed (that file moved, or its backup imported
// before the live file) continues the session: it is read whole, and when
// its first entries read as those imported (the import state's digest),
// only the entries after them are appended, as for a file that grew in
// place (modeReread). The new path gets its own import record; the old
// path's stays. Anything else is imported beside it, as before.

// The side files of a copy (picoclaw's meta, Codex's session index, Claude
// Code's tool results) must be copies too, found at the same place
// relative to the session file. An archive that itself holds two files of
// one session ID (the second imported under a derived ID) is compared with
// the first only.

// A session another machine created (Session.Machine) was imported from
// that machine's file, even at the same path as u's: another file, which
// this machine cannot read. u continues it, or is its copy, only when its
// bytes start with those the session's import record says were consumed
// (the same file synced to both machines); the record's hash is what is
// compared, never the file at that path here (continuation), or when its
// entries are those the session's log holds, or their start (the file
// synced here as far as it got: storeCopyOf), which makes it a copy.
// Anything else is another session under a taken ID, imported beside it
// under an ID derived from this machine and path, and reported.

// otherMachine reports whether session s was created by another machine
// than machine (neither unrecorded).
func otherMachine(s sessiondb.Session, machine string) bool {
	return machine != "" && s.Machine != "" && s.Machine != machine
}

// fromOtherFile reports whether the session existing was imported from
// another file of u's format (one at another path, or another machine's):
// the only one u can be a copy or the continuation of. machine is the
// importer's.
func fromOtherFile(existing sessiondb.Session, u Unit, machine string) bool {
	return existing.SourcePath != "" && existing.SourceFormat == u.Format &&
		(existing.SourcePath != u.Path || otherMachine(existing, machine))
}

// copyOf reports whether the unit u is a copy of the file the session
// existing was imported from (see above; fromOtherFile holds). Another
// machine's file cannot be compared here: never.
func copyOf(existing sessiondb.Session, u Unit, machine string) bool {
	if otherMachine(existing, machine) || ownsFile(existing, u, machine) || !sideFilesOf(u, existing.SourcePath, false) {
		return false
	}
	ok, err := isPrefixOf(u.Path, existing.SourcePath, len(u.Extra) > 0)
	return err == nil && ok
}

// continuation returns, when the file of u (stat fi, read whole into pd)
// continues the session sess imported from another file (see above;
// fromOtherFile holds), that file's import record and state, and the hash
// state after the bytes that record consumed; ok is false otherwise. On
// success pd holds only the entries after those imported. The record is
// the one of the machine that created sess when it is not machine (the
// importer's), else machine's own.
func continuation(ctx context.Context, store sessiondb.Store, follow *Follow, machine string, sess sessiondb.Session, u Unit, fi os.FileInfo, pd *Parsed) (prev sessiondb.SourceFile, st importState, h hash.Hash, ok bool) {
	of := machine
	if otherMachine(sess, machine) {
		of = sess.Machine
	}
	prev, err := sessiondb.SourceFileOn(ctx, store, of, sess.SourcePath)
	if err != nil || prev.SessionID != sess.ID || prev.Offset < 0 || fi.Size() < prev.Offset {
		return
	}
	if prev.Offset == 0 && (len(u.Extra) == 0 || !sideFilesOf(u, sess.SourcePath, true)) {
		// Nothing consumed says nothing: only side files that are the
		// other file's (a copy cut before its first complete line) tie
		// this file to that session.
		return
	}
	if json.Unmarshal(prev.State, &st) != nil {
		return
	}
	if _, digest := resumeDigest(st); !digest {
		return // nothing to check the entries against
	}
	h, err = checkPrefix(follow, u.Path, fi, prev.SHA256, prev.Offset, prefixMark{})
	if err != nil || h == nil {
		return
	}
	if trimReread(pd, st) != "" {
		return
	}
	return prev, st, h, true
}

// sideFilesOf reports whether each side file of u holds the bytes of the
// one at the same place relative to the file at of, or (unless exact)
// their start.
func sideFilesOf(u Unit, of string, exact bool) bool {
	for _, x := range u.Extra {
		rel, err := filepath.Rel(filepath.Dir(u.Path), x)
		if err != nil {
			return false
		}
		y := filepath.Join(filepath.Dir(of), rel)
		if ok, err := isPrefixOf(x, y, true); err != nil || !ok {
			return false
		}
		if ok, err := isPrefixOf(y, x, true); exact && (err != nil || !ok) {
			return false
		}
	}
	return true
}

// isPrefixOf reports whether the bytes of the file at path are those of
// the file at of, or their start. An empty file is a prefix only when
// empty is true (it says nothing of its own otherwise).
func isPrefixOf(path, of string, empty bool) (bool, error) {
	a, err := jsonl.Open(path)
	if err != nil {
		return false, err
	}
	defer a.Close()
	b, err := jsonl.Open(of)
	if err != nil {
		return false, err
	}
	defer b.Close()
	ai, err := a.Stat()
	if err != nil {
		return false, err
	}
	bi, err := b.Stat()
	if err != nil {
		return false, err
	}
	if !ai.Mode().IsRegular() || !bi.Mode().IsRegular() || ai.Size() == 0 && !empty || ai.Size() > bi.Size() {
		return false, nil
	}
	bufA, bufB := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		n, errA := io.ReadFull(a, bufA)
		if n > 0 {
			if _, err := io.ReadFull(b, bufB[:n]); err != nil {
				return false, nil // of is shorter than it was
			}
			if !bytes.Equal(bufA[:n], bufB[:n]) {
				return false, nil
			}
		}
		switch {
		case errA == nil:
		case errors.Is(errA, io.EOF), errors.Is(errA, io.ErrUnexpectedEOF):
			return true, nil
		default:
			return false, errA
		}
	}
}

// Two files of one session that both keep growing (a backup synced now
// and then, and the live directory; see above) each keep their own import
// record. When one of them continued the session, the other's record
// still ends where its own last import did: the session's log then holds,
// after that point, entries this file now reads again. skipLogged drops
// them: the longest run of pd's new entries that the log already holds
// right after the entries imported from this file (st) is counted as
// imported from it (st and the entry digest advance over them; their
// usage and compactions are dropped, as jsonl.TrimReread does for entries
// imported before). A log that goes on with other entries (another writer
// of the session) is left to the segment mapping of buildUnit.
func skipLogged(ctx context.Context, store sessiondb.Store, sess sessiondb.Session, pd *Parsed, st *importState) error {
	n := int64(st.Entries)
	from := st.seqOf(n) + 1
	if len(pd.Entries) == 0 || sess.LastSeq < from {
		return nil
	}
	to := min(sess.LastSeq, from+int64(len(pd.Entries))-1)
	logged, err := store.Entries(ctx, sess.ID, from, to)
	if err != nil {
		return err
	}
	k := 0
	for k < len(logged) && logged[k].Seq == from+int64(k) && sameEntry(logged[k], pd.Entries[k]) {
		k++
	}
	if k == 0 {
		return nil
	}
	if h, ok := resumeDigest(*st); ok {
		entryDigest(h, pd.Entries[:k])
		st.Digest = digestState(h)
	}
	st.Entries += k
	pd.Entries = pd.Entries[k:]
	last := n + int64(k)
	usage := pd.Usage[:0]
	for _, u := range pd.Usage {
		if u.Seq > last || (u.Seq == 0 && u.CallID != "") {
			usage = append(usage, u)
		}
	}
	pd.Usage = usage
	var comps []sessiondb.Compaction
	for i, c := range pd.Compactions {
		if len(comps) > 0 || c.KeepFromSeq > last || c.AtSeq > last || i == len(pd.Compactions)-1 {
			comps = append(comps, c)
		}
	}
	pd.Compactions = comps
	return nil
}

// sameEntry reports whether the logged entry a is the parsed entry b.
func sameEntry(a, b sessiondb.Entry) bool {
	return bytes.Equal(a.Body, b.Body) && (b.Kind == "" || a.Kind == b.Kind) && (b.Role == "" || a.Role == b.Role)
}
