package cursor

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

// Name names the Cursor format.
const Name = "cursor"

// Format reads the Cursor IDE's state.vscdb stores (see the package doc).
// Export refuses (export.go).
type Format struct{}

var (
	_ jsonl.Format        = Format{}
	_ jsonl.StoreFormat   = Format{}
	_ jsonl.MessageReader = Format{}
)

// Name returns Name.
func (Format) Name() string { return Name }

// sqliteMagic starts every SQLite database.
var sqliteMagic = []byte("SQLite format 3\x00")

// Sniff reports whether the file at path is an SQLite database whose
// schema (its first pages) holds Cursor's key-value table cursorDiskKV, or
// the ItemTable of a VS Code state database (Cursor's, before it kept
// composers in cursorDiskKV).
func Sniff(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	return bytes.HasPrefix(buf, sqliteMagic) &&
		(bytes.Contains(buf, []byte("CREATE TABLE cursorDiskKV")) || bytes.Contains(buf, []byte("CREATE TABLE ItemTable")))
}

// Claim takes every .vscdb file that Sniff accepts, with its -wal,
// -journal and -shm: a store whose sessions (composers) the importer
// lists (jsonl.StoreFormat). A state.vscdb.backup (Cursor's copy of the
// previous state) is not taken: it would show every composer twice.
func (Format) Claim(files []string) (units []jsonl.Unit, rest []string) {
	in := map[string]bool{}
	for _, f := range files {
		in[f] = true
	}
	taken := map[string]bool{}
	for _, f := range files {
		if filepath.Ext(f) != ".vscdb" || taken[f] || !Sniff(f) {
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
		if !taken[f] {
			rest = append(rest, f)
		}
	}
	return units, rest
}

// Parse reads one composer of a store (a unit Sessions listed); see the
// package doc.
func (Format) Parse(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (parsed *jsonl.Parsed, err error) {
	defer func() {
		if r := recover(); r != nil {
			parsed, err = nil, fmt.Errorf("parse %s %s: internal error: %v", Name, u.Path, r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	store, id, ok := jsonl.SplitSessionPath(u.Path)
	if !ok {
		return nil, fmt.Errorf("parse %s %s: not a session of a store: %w", Name, u.Path, sessiondb.ErrInvalid)
	}
	pd, err := parse(ctx, u, store, id, from)
	if err != nil && !errors.Is(err, jsonl.ErrNotIncremental) {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	return pd, err
}
