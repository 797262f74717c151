package jsonl

import (
	"context"
	"os"
	"strings"
	"time"
)

// StoreFormat is implemented by a Format whose files are stores holding
// many sessions, or whose sessions are no file of their own: an SQLite
// database (opencode's opencode.db, crush's crush.db, goose's
// sessions.db, Cursor's state.vscdb) or a tree of small files that make
// one session (opencode's legacy storage/ folder). Its Claim returns one
// unit per store (Path: the store's main file; Extra: the files read with
// it, such as a database's -wal and -shm, so that a watcher that sees
// them change imports the store again). The importer does not parse that
// unit: it asks Sessions for the sessions the store holds now and imports
// each as a unit of its own, whose source record is keyed by the
// session's unit path. Format.Parse is then called with a session's unit
// (StoreSession.Unit), never with the store's.
//
// Incremental import: a session whose Stamp is the one recorded at its
// last import is unchanged and not parsed. Otherwise Parse gets, in
// Resume, the Offset its previous Parsed returned (the reader's own
// cursor: rows consumed, say) with Entries and State, and returns only
// the entries after those, or ErrNotIncremental, after which the
// importer reads the session whole (Offset 0, State kept) and appends
// only the entries after the ones imported, as for a file that grew; a
// session whose first entries no longer read as imported replaces its
// transcript (old rows stay in the log). Resume.Cache is always set for
// a store's sessions (an import that runs without a Follow gets one for
// the import, closed at its end): Sessions keeps there what its sessions'
// Parse calls read (a snapshot of the database), so that every session
// of one import is read from the state Sessions listed.
type StoreFormat interface {
	Format
	// Sessions lists the sessions of store, as the store holds them now,
	// with their stamps. Problems are what it could not read of the store
	// while listing the rest; an error means nothing could be listed
	// (the store is damaged, or not one of the format's).
	Sessions(ctx context.Context, store Unit, c *Cache) ([]StoreSession, []Problem, error)
}

// StoreSession is one session of a store, as StoreFormat.Sessions lists
// it.
type StoreSession struct {
	// Unit is the session's unit, given to Parse: Path names the session
	// (SessionPath(store, key) for a row of a database; a file's own path
	// when the session is kept in a file of its own), Format is the
	// format's name, Extra as for any unit.
	Unit Unit
	// Stamp changes whenever what the session is read from changes: any
	// string (a hash of its rows' update times and counts, an event
	// sequence number). The importer records it with the session's
	// import (SourceFile.SHA256) and does not parse the session again
	// while it is the same.
	Stamp string
	// Rows counts what the session is read from (its messages) and
	// Updated is its last change; both are recorded with the import
	// (SourceFile.Size and ModTime) for people reading the record.
	Rows    int64
	Updated time.Time
	// Bytes is about how much is read to parse the session (progress).
	Bytes int64
}

// sessionSep separates a store's path from a session's key in the path
// of a session unit (SessionPath).
const sessionSep = "#"

// SessionPath returns the path that names session key of the store at
// path: path, "#" and the key, with any "%" and "#" in the key escaped
// as %25 and %23 so that SplitSessionPath splits it back at the last
// "#" (a store's own file name may hold "#"). It is the key of the
// session's source record and what reports name; it is no file.
func SessionPath(store, key string) string {
	key = strings.ReplaceAll(key, "%", "%25")
	key = strings.ReplaceAll(key, "#", "%23")
	return store + sessionSep + key
}

// SplitSessionPath splits a path SessionPath made into the store's path
// and the session's key; ok is false for any other path (a file's).
func SplitSessionPath(p string) (store, key string, ok bool) {
	i := strings.LastIndex(p, sessionSep)
	if i <= 0 {
		return "", "", false
	}
	store, key = p[:i], p[i+1:]
	if key == "" || strings.ContainsAny(store, "\x00") {
		return "", "", false
	}
	key = strings.ReplaceAll(key, "%23", "#")
	key = strings.ReplaceAll(key, "%25", "%")
	return store, key, true
}

// FileOf returns the file a unit path lies in: p when it is a file (or
// nothing is there), the store's file when p is a session path
// (SessionPath) whose store is a file. A watcher asks whether a unit's
// file still exists, and whether it lies under the paths it follows, by
// this file.
func FileOf(p string) string {
	if _, err := os.Lstat(p); err == nil {
		return p
	}
	if store, _, ok := SplitSessionPath(p); ok {
		if fi, err := os.Stat(store); err == nil && fi.Mode().IsRegular() {
			return store
		}
	}
	return p
}

// DirSkipper is implemented by a format that knows folders holding no
// sessions inside a tree it reads (opencode keeps git snapshots, logs
// and binaries beside its database): SkipDir returns why the walk skips
// the folder at path, and everything in it ("" to walk it). The import
// reports one note for the folder instead of one per file.
type DirSkipper interface {
	SkipDir(path string) string
}

// UnfinishedMarker begins the problem a store's reader reports for a
// session whose last turn is still being written (or was cut off): its
// messages are left for a later import, as a torn last line of a JSONL
// file is. A watcher holds such a problem back while the store is being
// written.
const UnfinishedMarker = "unfinished"
