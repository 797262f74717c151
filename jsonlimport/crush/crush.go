package crush

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Name names the crush format.
const Name = "crush"

// Store describes one program that keeps its sessions in this schema:
// crush, or the Go opencode crush was forked from (package opencodego).
// Its methods implement jsonl.Format, jsonl.StoreFormat and
// jsonl.MessageReader for that program; Format is crush's.
type Store struct {
	// Format is the format's name.
	Format string
	// File is the name the program gives its database (crush.db).
	File string
	// Agent names the program in messages ("crush").
	Agent string
}

// Crush is crush's Store.
var Crush = Store{Format: Name, File: "crush.db", Agent: "crush"}

// Format reads crush's session store (.crush/crush.db). Export refuses:
// crush has no import of its own to write for (export.go).
type Format struct{}

var (
	_ jsonl.Format        = Format{}
	_ jsonl.StoreFormat   = Format{}
	_ jsonl.MessageReader = Format{}
)

// Name returns Name.
func (Format) Name() string { return Name }

// Claim implements jsonl.Format (Store.Claim).
func (Format) Claim(files []string) ([]jsonl.Unit, []string) { return Crush.Claim(files) }

// Sessions implements jsonl.StoreFormat (Store.Sessions).
func (Format) Sessions(ctx context.Context, store jsonl.Unit, c *jsonl.Cache) ([]jsonl.StoreSession, []jsonl.Problem, error) {
	return Crush.Sessions(ctx, store, c)
}

// Parse implements jsonl.Format (Store.Parse).
func (Format) Parse(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (*jsonl.Parsed, error) {
	return Crush.Parse(ctx, u, from)
}

// Export implements jsonl.Format (Store.Export).
func (Format) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	return Crush.Export(ctx, s, id, dir)
}

// Understand implements jsonl.MessageReader (Store.Understand).
func (Format) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	return Crush.Understand(e, obj)
}

// sqliteMagic starts every SQLite database.
var sqliteMagic = []byte("SQLite format 3\x00")

// Sniff reports whether the file at path is an SQLite database holding
// this schema's tables (sessions, and messages with a parts column), as
// its first pages (where SQLite keeps its schema) show. The -wal is not
// looked at: a database whose tables exist only in its log is taken by
// its name.
func Sniff(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	return bytes.HasPrefix(buf, sqliteMagic) && bytes.Contains(buf, []byte("CREATE TABLE sessions")) &&
		bytes.Contains(buf, []byte("CREATE TABLE messages")) && bytes.Contains(buf, []byte("parts TEXT"))
}

// Claim takes, in one directory, the program's database (by its name, or
// another .db whose schema is this one) with its -wal and -shm: a store
// whose sessions the importer lists (jsonl.StoreFormat). A database of
// the program's name whose first pages hold another schema (opencode's
// own opencode.db, for the Go opencode) is left to the formats after.
func (st Store) Claim(files []string) (units []jsonl.Unit, rest []string) {
	in := map[string]bool{}
	for _, f := range files {
		in[f] = true
	}
	taken := map[string]bool{}
	for _, f := range files {
		base := filepath.Base(f)
		if filepath.Ext(base) != ".db" || taken[f] {
			continue
		}
		switch {
		case base == st.File && Sniff(f):
		case base == st.File && st.Format == Name && emptyOrLogOnly(f):
			// crush.db before its first checkpoint: its tables are
			// still only in its -wal.
		case st.Format == Name && Sniff(f):
			// Only crush takes a database of this schema by its
			// contents alone; the Go opencode's is known by its name
			// and goes first in the registry.
		default:
			continue
		}
		u := jsonl.Unit{Format: st.Format, Path: f}
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
		if !taken[f] {
			rest = append(rest, f)
		}
	}
	return units, rest
}

// emptyOrLogOnly reports whether a database's main file holds no schema
// yet: empty, or a header whose tables are all still in its -wal.
func emptyOrLogOnly(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	if fi.Size() == 0 {
		return true
	}
	wal, err := os.Stat(path + "-wal")
	if err != nil || wal.Size() == 0 {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	n, _ := io.ReadFull(f, buf)
	return bytes.HasPrefix(buf[:n], sqliteMagic) && !bytes.Contains(buf[:n], []byte("CREATE TABLE"))
}

// Name returns the format's name.
func (st Store) Name() string { return st.Format }

// Parse reads one session of a store (a unit Sessions listed); see the
// package doc.
func (st Store) Parse(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (parsed *jsonl.Parsed, err error) {
	defer func() {
		if r := recover(); r != nil {
			parsed, err = nil, fmt.Errorf("parse %s %s: internal error: %v", st.Format, u.Path, r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", st.Format, u.Path, err)
	}
	store, id, ok := jsonl.SplitSessionPath(u.Path)
	if !ok {
		return nil, fmt.Errorf("parse %s %s: not a session of a store: %w", st.Format, u.Path, sessiondb.ErrInvalid)
	}
	pd, err := st.parse(ctx, u, store, id, from)
	if err != nil && !errors.Is(err, jsonl.ErrNotIncremental) {
		return nil, fmt.Errorf("parse %s %s: %w", st.Format, u.Path, err)
	}
	return pd, err
}
