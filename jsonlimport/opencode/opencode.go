package opencode

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Name names the opencode format.
const Name = "opencode"

// Format reads opencode's session stores (its SQLite database, its legacy
// storage/ tree, the JSON of `opencode export`) and writes sessions as
// opencode's export JSON (export.go).
type Format struct{}

var (
	_ jsonl.Format        = Format{}
	_ jsonl.StoreFormat   = Format{}
	_ jsonl.Exporter      = Format{}
	_ jsonl.MessageReader = Format{}
	_ jsonl.Skipper       = Format{}
	_ jsonl.DirSkipper    = Format{}
)

// Name returns Name.
func (Format) Name() string { return Name }

// sqliteMagic starts every SQLite database.
var sqliteMagic = []byte("SQLite format 3\x00")

// IsStoreName reports whether name is a name opencode gives its database:
// opencode.db, or opencode-<channel>.db for a channel other than latest,
// beta and prod.
func IsStoreName(name string) bool {
	return name == "opencode.db" || strings.HasPrefix(name, "opencode-") && strings.HasSuffix(name, ".db") && len(name) > len("opencode-.db")
}

// sniffStore reports whether a .db file that opencode did not name is an
// opencode database: SQLite's header, and opencode's table definitions
// in its first pages (where SQLite keeps its schema).
func sniffStore(path string) bool {
	f, err := jsonl.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	return bytes.HasPrefix(buf, sqliteMagic) && bytes.Contains(buf, []byte("CREATE TABLE `part`")) &&
		bytes.Contains(buf, []byte("CREATE TABLE `message`")) && bytes.Contains(buf, []byte("CREATE TABLE `session`"))
}

// Claim takes, in one directory: opencode's database (opencode.db,
// opencode-<channel>.db, or another .db holding opencode's tables) with
// its -wal and -shm; the session files of a legacy storage/ tree
// (storage/session/<project>/<id>.json), with their message and part
// files as side files, and the tree's message, part and project files
// (read with their sessions); and `opencode export` files (.json). Each
// is a store (jsonl.StoreFormat) whose sessions the importer lists.
func (Format) Claim(files []string) (units []jsonl.Unit, rest []string) {
	in := map[string]bool{}
	for _, f := range files {
		in[f] = true
	}
	taken := map[string]bool{}
	for _, f := range files {
		base := filepath.Base(f)
		if !strings.HasSuffix(base, ".db") || taken[f] {
			continue
		}
		if !IsStoreName(base) && !sniffStore(f) {
			continue
		}
		u := jsonl.Unit{Format: Name, Path: f}
		for _, s := range []string{"-wal", "-shm"} {
			if in[f+s] {
				u.Extra = append(u.Extra, f+s)
			} else if fi, err := os.Stat(f + s); err == nil && fi.Mode().IsRegular() {
				u.Extra = append(u.Extra, f+s)
			}
		}
		taken[f], taken[f+"-wal"], taken[f+"-shm"], taken[f+"-journal"] = true, true, true, true
		units = append(units, u)
	}
	for _, f := range files {
		if taken[f] {
			continue
		}
		switch root, kind := inStorage(f); {
		case root != "" && kind == "session" && strings.HasSuffix(f, ".json"):
			units = append(units, jsonl.Unit{Format: Name, Path: f, Extra: legacyExtra(f)})
		case root != "" && (kind == "message" || kind == "part" || kind == "project") && strings.HasSuffix(f, ".json"):
			// Read with its session (project: for its worktree).
		case strings.HasSuffix(f, ".json") && sniffExport(f):
			units = append(units, jsonl.Unit{Format: Name, Path: f})
		default:
			rest = append(rest, f)
		}
	}
	return units, rest
}

// SkipReason implements jsonl.Skipper: the files of opencode's legacy
// storage/ tree that hold no session (session_diff, todo, share, …).
func (Format) SkipReason(path string) string {
	if root, kind := inStorage(path); root != "" {
		return fmt.Sprintf("opencode storage file (%s), not a session; skipped", kind)
	}
	if filepath.Base(path) == "migration" && filepath.Base(filepath.Dir(path)) == "storage" {
		return "opencode storage's migration counter; skipped"
	}
	return ""
}

// notSessionDirs are the folders beside opencode's database that hold no
// session: file snapshots (git objects), logs, downloaded binaries,
// cloned repositories, tool output kept for the model.
var notSessionDirs = map[string]bool{"snapshot": true, "log": true, "bin": true, "repos": true, "tool-output": true, "worktree": true, "plugins": true}

// SkipDir implements jsonl.DirSkipper: in opencode's data folder (the one
// holding opencode.db or storage/), its folders of snapshots, logs and
// binaries.
func (Format) SkipDir(dir string) string {
	if !notSessionDirs[filepath.Base(dir)] {
		return ""
	}
	parent := filepath.Dir(dir)
	for _, marker := range []string{"opencode.db", "storage"} {
		if _, err := os.Stat(filepath.Join(parent, marker)); err == nil {
			return fmt.Sprintf("opencode's %s folder holds no session; skipped", filepath.Base(dir))
		}
	}
	return ""
}

// Sessions implements jsonl.StoreFormat: the sessions of a database
// (db.go), or the one session of a legacy session file or an export.
func (Format) Sessions(ctx context.Context, store jsonl.Unit, c *jsonl.Cache) ([]jsonl.StoreSession, []jsonl.Problem, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	switch {
	case storageRoot(store.Path) != "":
		extra := legacyExtra(store.Path)
		stamp, n := fileStamp("opencode-storage/1", append([]string{store.Path}, extra...))
		fi, err := os.Stat(store.Path)
		if err != nil {
			return nil, nil, err
		}
		return []jsonl.StoreSession{{Unit: jsonl.Unit{Format: Name, Path: store.Path, Extra: extra}, Stamp: stamp,
			Rows: int64(len(extra)), Updated: fi.ModTime(), Bytes: n}}, nil, nil
	case strings.HasSuffix(store.Path, ".json"):
		b, err := jsonl.ReadFile(store.Path, jsonl.MaxWholeFile)
		if err != nil {
			return nil, nil, err
		}
		sum := sha256.Sum256(b)
		fi, err := os.Stat(store.Path)
		if err != nil {
			return nil, nil, err
		}
		return []jsonl.StoreSession{{Unit: jsonl.Unit{Format: Name, Path: store.Path}, Stamp: hex.EncodeToString(sum[:]),
			Updated: fi.ModTime(), Bytes: int64(len(b))}}, nil, nil
	}
	return dbSessions(ctx, store, c)
}

// Parse reads one session (a unit Sessions listed); see the package doc.
func (Format) Parse(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (parsed *jsonl.Parsed, err error) {
	defer func() {
		if r := recover(); r != nil {
			parsed, err = nil, fmt.Errorf("parse opencode %s: internal error: %v", u.Path, r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse opencode %s: %w", u.Path, err)
	}
	if fi, err := os.Stat(u.Path); err == nil && fi.Mode().IsRegular() {
		if storageRoot(u.Path) != "" {
			return legacyParse(u, from)
		}
		if !strings.HasSuffix(u.Path, ".db") {
			return exportParse(u, from)
		}
	}
	store, id, err := splitDB(u.Path)
	if err != nil {
		return nil, fmt.Errorf("parse opencode %s: %w: %w", u.Path, err, sessiondb.ErrInvalid)
	}
	pd, err := dbParse(ctx, u, store, id, from)
	if err != nil && !errors.Is(err, jsonl.ErrNotIncremental) {
		return nil, fmt.Errorf("parse opencode %s: %w", u.Path, err)
	}
	return pd, err
}
