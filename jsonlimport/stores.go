package jsonlimport

// Stores: formats whose files hold many sessions (jsonl.StoreFormat, an
// SQLite database such as opencode's opencode.db). Discovery finds the
// store (one unit: the database and its -wal and -shm); importPlanned
// asks the format for the sessions the store holds now, and each is then
// prepared, parsed and written as a unit of its own, keyed by its session
// path (jsonl.SessionPath), with the session's stamp in place of a file's
// size, time and prefix hash.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// expandStores replaces each store's unit by units for the sessions it
// holds. A store that cannot be listed is a problem, and the others are
// imported.
func expandStores(ctx context.Context, units []planned, cache *jsonl.Cache) (out []planned, problems, notes []Problem, listed []listedStore) {
	for _, p := range units {
		sf, ok := p.format.(jsonl.StoreFormat)
		if !ok || p.session != nil {
			out = append(out, p)
			continue
		}
		if ctx.Err() != nil {
			return out, problems, notes, listed
		}
		list, probs, err := sf.Sessions(ctx, p.unit, cache)
		problems = append(problems, probs...)
		if err != nil {
			problems = append(problems, Problem{Path: p.unit.Path, Reason: fmt.Sprintf("cannot read: %v", err)})
			continue
		}
		if len(list) == 0 && len(probs) == 0 {
			notes = append(notes, Problem{Path: p.unit.Path, Reason: "holds no session yet; skipped"})
		}
		var ls *listedStore
		if len(probs) == 0 {
			// Listed whole: a session recorded under it that the list
			// lacks is gone (vanished.go).
			ls = &listedStore{path: p.unit.Path, sessions: map[string]bool{}}
		}
		for i := range list {
			ss := list[i]
			u := ss.Unit
			if u.Format == "" {
				u.Format = p.unit.Format
			}
			ss.Unit = u
			if ls != nil {
				ls.sessions[u.Path] = true
			}
			out = append(out, planned{unit: u, format: p.format, files: 1, size: ss.Bytes,
				pricer: p.pricer, follow: p.follow, session: &ss, cache: cache})
		}
		if ls != nil {
			listed = append(listed, *ls)
		}
	}
	return out, problems, notes, listed
}

// prepareSession is prepare for a session of a store: it is unchanged
// when its stamp is the one recorded; otherwise its reader continues from
// the cursor it recorded (Parsed.Offset, ResumeState), or, when it cannot
// (ErrNotIncremental), reads the session whole and only the entries after
// those imported are appended, as for a file that grew.
func prepareSession(ctx context.Context, store sessiondb.Store, p planned) *work {
	w := &work{p: p}
	u, ss := p.unit, p.session
	w.size, w.mtime, w.sha, w.bytes = ss.Rows, ss.Updated, ss.Stamp, ss.Bytes
	prev, err := sessiondb.SourceFileOn(ctx, store, p.machine, u.Path)
	switch {
	case errors.Is(err, sessiondb.ErrNotFound):
		w.mode = modeNew
	case err != nil:
		w.err = err
		return w
	default:
		w.prev = prev
		if len(prev.State) > 0 {
			if err := json.Unmarshal(prev.State, &w.prevSt); err != nil {
				w.problem = append(w.problem, Problem{Path: u.Path, Reason: fmt.Sprintf("previous import state unreadable (%v); importing again as a replacement", err)})
				w.prevSt = importState{}
			}
		}
		sess, err := store.Get(ctx, prev.SessionID)
		if err != nil {
			w.err = err
			return w
		}
		w.sess = sess
		if prev.SHA256 == ss.Stamp {
			w.mode = modeUnchanged
			return w
		}
		w.mode = modeResume
	}
	from := jsonl.Resume{Cache: p.cache}
	if w.mode == modeResume {
		from = jsonl.Resume{Offset: prev.Offset, Entries: w.prevSt.Entries, State: w.prevSt.Reader, Cache: p.cache}
	}
	parsed, err := p.format.Parse(ctx, u, from)
	if w.mode == modeResume && err == nil {
		p.follow.count(func(s *FollowStats) { s.Resumes++ })
	}
	if w.mode == modeResume && errors.Is(err, ErrNotIncremental) {
		p.follow.count(func(s *FollowStats) { s.Rereads++ })
		parsed, err = p.format.Parse(ctx, u, jsonl.Resume{State: w.prevSt.Reader, Cache: p.cache})
		w.mode = modeReread
		if err == nil && parsed != nil {
			if reason := trimReread(parsed, w.prevSt); reason != "" {
				w.problem = append(w.problem, Problem{Path: u.Path, Reason: "the session changed in its store: " + reason + "; imported again as a replacement"})
				w.mode = modeReplace
			}
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
	if w.mode == modeNew && sessiondb.ValidateID(parsed.Session.ID) == nil {
		existing, err := store.Get(ctx, parsed.Session.ID)
		switch {
		case errors.Is(err, sessiondb.ErrNotFound):
			w.freeID = true
		case err != nil:
		case fromOtherFile(existing, u, p.machine) && storeCopyOf(ctx, store, existing, parsed):
			// The same session read from another of the format's places
			// (opencode's database, and an `opencode export` of it):
			// shown and counted once.
			w.mode, w.copyOf = modeCopy, existing.SourcePath
			return w
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
	return w
}

// storeCopyOf reports whether the entries parsed from a store's session
// are those the session existing holds from its own source, or their
// start (compared as JSON values, so that one source's key order or
// spacing is not a difference); a session with no entry yet is the start
// of any.
func storeCopyOf(ctx context.Context, store sessiondb.Store, existing sessiondb.Session, pd *Parsed) bool {
	log, err := jsonl.ImportedLog(ctx, store, existing.ID)
	if err != nil || len(pd.Entries) > len(log) {
		return false
	}
	for i, e := range pd.Entries {
		if e.Kind != log[i].Kind || !sameJSON(e.Body, log[i].Body) {
			return false
		}
	}
	return true
}

// sameJSON reports whether two bodies hold the same JSON value.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	ca, erra := canonicalJSON(a)
	cb, errb := canonicalJSON(b)
	return erra == nil && errb == nil && bytes.Equal(ca, cb)
}

func canonicalJSON(b []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
