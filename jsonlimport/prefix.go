package jsonlimport

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"hash"
	"os"
	"sync"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Deciding that a source file only grew, without reading what was
// imported of it again.
//
// The source record's SHA256 is the sha256 of the first Offset bytes of
// the file (the bytes consumed), and the store checks it as the
// expectation of every incremental commit. Computing it again over the
// whole prefix on every append made an append cost work proportional to
// the file (88 % of an append to a 64 MiB file). So the import state also
// keeps (prefixMark):
//
//   - Prefix: crypto/sha256's marshalled state after those Offset bytes.
//     The new SHA256 of a grown file continues it over the new bytes only,
//     and still equals sha256 of the whole new prefix.
//   - Dev, Ino: the file's device and inode (unix; 0 elsewhere).
//   - Tail: the sha256 of the tailWindow bytes just before Offset.
//
// When the importer runs with Options.Follow (package watch does, one per
// run), a file whose prefix was hashed whole once under that Follow is
// then checked cheaply: same device and inode as recorded in the state and
// as verified, size not below Offset, the Prefix state hashing to the
// recorded SHA256, and the tailWindow bytes before Offset hashing to Tail.
// That reads at most tailWindow bytes of the old part, whatever the size.
//
// What the cheap check cannot see: a rewrite in place (same inode) that
// leaves the file at least Offset bytes long and changes only bytes
// before the last tailWindow bytes of the prefix. The agents do not do
// that: they append, and those that rewrite (swink, pi's migrations, an
// editor, a restore) either write a new file and rename it (new inode:
// detected), truncate it (a size below Offset at the time it is looked at,
// or a different tail: detected) or rewrite it whole with different bytes
// near the end (detected). Formats that re-read their file whole (swink,
// Claude Code's fallback) compare the entries again with Digest, which
// catches such an edit anyway. And the full verification is kept where it
// matters: every Import (sessionctl import) and the first import of a file
// in each watch run hash the whole prefix, and a Follow trusts a file only
// by the inode it verified, so an edit that escapes a watch run is seen by
// the next import or the next run, and re-imported by the rules for a
// rewritten file.

// A file whose device, inode, size and modification time are those
// recorded (and whose side files' stamps are too) is unchanged without
// being read: a no-op re-import of an archive is a stat per file (issue
// 42: hashing every file again made it 6.5 CPU s for 461 MB). Changing
// bytes sets the modification time; a tool that writes the same number of
// bytes in place and then sets the old time back is not seen, by this or
// by make or rsync. Under a Follow the file then counts as verified, as
// after a whole hash.
func statUnchanged(fi os.FileInfo, prev sessiondb.SourceFile, st importState, extra []jsonl.FileStamp) bool {
	id := jsonl.InodeOf(fi)
	return id.Known() && id.Dev == st.Dev && id.Ino == st.Ino &&
		fi.Size() == prev.Size && prev.Offset <= prev.Size && fi.ModTime().Equal(prev.ModTime) && sameStamps(st.Extra, extra)
}

// prefixMark is the part of the import state that lets the next import
// continue the prefix hash (see above).
type prefixMark struct {
	Prefix []byte `json:"prefix,omitempty"`
	Tail   string `json:"tail,omitempty"`
	Dev    uint64 `json:"dev,omitempty"`
	Ino    uint64 `json:"ino,omitempty"`
}

// Follow is the memory a long-running importer keeps across its imports
// (package watch keeps one per run): the files whose imported prefix was
// hashed whole once, by device and inode, so that later imports of them
// check it cheaply, and readers' parse states kept between imports (Claude
// Code's, see ccCache), in a jsonl.Cache. A nil *Follow is valid: every import then hashes
// every consumed prefix whole, as Import does. It is safe for concurrent
// use.
type Follow struct {
	mu       sync.Mutex
	verified map[string]jsonl.Inode
	cache    jsonl.Cache // readers' parse states (Resume.Cache)
	stats    FollowStats
}

// readerCache returns where readers keep their parse states under f (nil
// for a nil f: none).
func (f *Follow) readerCache() *jsonl.Cache {
	if f == nil {
		return nil
	}
	return &f.cache
}

// FollowStats counts what a Follow saved and what it could not.
type FollowStats struct {
	// FullHashes counts the prefixes hashed whole (first sight, a file
	// replaced or changed).
	FullHashes int64
	// CheapChecks counts the prefixes accepted by the cheap check.
	CheapChecks int64
	// Resumes counts the grown files a reader continued from its offset.
	Resumes int64
	// Rereads counts the grown files read whole again (the reader could
	// not continue; see the formats' notes for when).
	Rereads int64
	// Replays counts the grown large files whose reader's state was
	// rebuilt a chunk at a time before they were continued (chunk.go).
	Replays int64
}

// NewFollow returns an empty Follow.
func NewFollow() *Follow {
	return &Follow{verified: map[string]jsonl.Inode{}}
}

// NewFollowIn returns an empty Follow that keeps readers' parse states
// across runs in directory dir: Close writes those it keeps there, and a
// Follow of a later run in the same dir continues a grown file from the
// state saved for it instead of reading the file again (Claude Code's,
// see jsonlimport/claudecode's snapshot.go). The prefix a state covers is
// still checked as a run's first import of a file checks it (hashed
// whole). dir is created when a state is written.
func NewFollowIn(dir string) *Follow {
	f := NewFollow()
	f.cache.Dir = dir
	return f
}

// Close releases what readers keep under f that holds resources (the
// copies of SQLite stores a watcher refreshes between imports, which it
// removes). The Follow stays usable; what it keeps is taken again.
func (f *Follow) Close() error {
	if f == nil {
		return nil
	}
	return f.cache.Close()
}

// Stats returns the counts so far.
func (f *Follow) Stats() FollowStats {
	if f == nil {
		return FollowStats{}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stats
}

func (f *Follow) count(c func(*FollowStats)) {
	if f == nil {
		return
	}
	f.mu.Lock()
	c(&f.stats)
	f.mu.Unlock()
}

// markVerified records that path, the file id, had its prefix hashed whole.
func (f *Follow) markVerified(path string, id jsonl.Inode) {
	if f == nil || !id.Known() {
		return
	}
	f.mu.Lock()
	f.verified[path] = id
	f.mu.Unlock()
}

func (f *Follow) isVerified(path string, id jsonl.Inode) bool {
	if f == nil || !id.Known() {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.verified[path] == id
}

// checkPrefix decides whether the first prev.Offset bytes of the file at
// path are those recorded (SHA256 prev.SHA256, import state st) and
// returns the sha256 state after them (nil when they differ). With the
// cheap check allowed (see above) it reads only the tail window; else it
// hashes the whole prefix and, when it matches, remembers the file in
// follow.
func checkPrefix(follow *Follow, path string, fi os.FileInfo, prevSHA string, offset int64, st prefixMark) (hash.Hash, error) {
	id := jsonl.InodeOf(fi)
	if h := cheapPrefix(follow, path, id, fi, prevSHA, offset, st); h != nil {
		follow.count(func(s *FollowStats) { s.CheapChecks++ })
		return h, nil
	}
	follow.count(func(s *FollowStats) { s.FullHashes++ })
	h := sha256.New()
	if err := jsonl.HashRange(path, h, 0, offset); err != nil {
		return nil, err
	}
	if hex.EncodeToString(h.Sum(nil)) != prevSHA {
		return nil, nil
	}
	follow.markVerified(path, id)
	return h, nil
}

// cheapPrefix returns the restored prefix state when the cheap check
// accepts the file, else nil.
func cheapPrefix(follow *Follow, path string, id jsonl.Inode, fi os.FileInfo, prevSHA string, offset int64, st prefixMark) hash.Hash {
	if !follow.isVerified(path, id) || st.Dev != id.Dev || st.Ino != id.Ino || fi.Size() < offset || len(st.Prefix) == 0 || st.Tail == "" {
		return nil
	}
	h := sha256.New()
	if h.(encoding.BinaryUnmarshaler).UnmarshalBinary(st.Prefix) != nil {
		return nil
	}
	if hex.EncodeToString(h.Sum(nil)) != prevSHA {
		return nil
	}
	tail, err := jsonl.TailHash(path, offset)
	if err != nil || tail != st.Tail {
		return nil
	}
	return h
}

// markOf returns the prefix mark of a file whose first offset bytes
// hash to state h.
func markOf(path string, fi os.FileInfo, h hash.Hash, offset int64) prefixMark {
	id := jsonl.InodeOf(fi)
	m := prefixMark{Prefix: digestState(h), Dev: id.Dev, Ino: id.Ino}
	if tail, err := jsonl.TailHash(path, offset); err == nil {
		m.Tail = tail
	}
	if m.Tail == "" {
		m.Prefix = nil
	}
	return m
}
