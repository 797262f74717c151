package goose

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Name names the goose format.
const Name = "goose"

// DBFile is the name goose gives its session store, in its data
// folder's sessions/ (session_manager.rs: DB_NAME).
const DBFile = "sessions.db"

// Format reads goose's session store (sessions/sessions.db) and the
// legacy one-file-per-session JSONL files older goose kept in the same
// folder. Export refuses (export.go).
type Format struct{}

var (
	_ jsonl.Format        = Format{}
	_ jsonl.StoreFormat   = Format{}
	_ jsonl.MessageReader = Format{}
	_ jsonl.Skipper       = Format{}
	_ jsonl.Reserver      = Format{}
)

// Name returns Name.
func (Format) Name() string { return Name }

// sqliteMagic starts every SQLite database.
var sqliteMagic = []byte("SQLite format 3\x00")

// Sniff reports whether the file at path is an SQLite database holding
// goose's tables (sessions, and messages with a content_json column), as
// its first pages (where SQLite keeps its schema) show.
func Sniff(path string) bool {
	buf := head(path, 256<<10)
	return bytes.HasPrefix(buf, sqliteMagic) && bytes.Contains(buf, []byte("CREATE TABLE sessions")) &&
		bytes.Contains(buf, []byte("CREATE TABLE messages")) && bytes.Contains(buf, []byte("content_json TEXT"))
}

func head(path string, n int) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, n)
	k, _ := io.ReadFull(f, buf)
	return buf[:k]
}

// logOnly reports whether a database named sessions.db in a folder named
// sessions holds no schema in its main file yet (empty, or a header whose
// tables are all still in its -wal): goose's store before its first
// checkpoint.
func logOnly(path string) bool {
	if filepath.Base(path) != DBFile || filepath.Base(filepath.Dir(path)) != "sessions" {
		return false
	}
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
	buf := head(path, 256<<10)
	return bytes.HasPrefix(buf, sqliteMagic) && !bytes.Contains(buf, []byte("CREATE TABLE"))
}

// Claim takes, in one directory, goose's database (any .db whose schema
// is goose's, or sessions.db in a sessions/ folder before its first
// checkpoint) with its -wal and -shm: a store whose sessions the importer
// lists; and every .jsonl file whose first line is a legacy goose session
// (LegacyFirstLine), unless a goose database lies beside it (SkipReason).
func (Format) Claim(files []string) (units []jsonl.Unit, rest []string) {
	in := map[string]bool{}
	for _, f := range files {
		in[f] = true
	}
	taken := map[string]bool{}
	stores := map[string]bool{} // directories holding a goose database
	for _, f := range files {
		if filepath.Ext(f) != ".db" || taken[f] || !(Sniff(f) || logOnly(f)) {
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
		stores[filepath.Dir(f)] = true
		units = append(units, u)
	}
	for _, f := range files {
		if taken[f] || filepath.Ext(f) != ".jsonl" || stores[filepath.Dir(f)] || besideStore(f) {
			continue
		}
		if LegacyFirstLine(firstLine(f)) {
			taken[f] = true
			units = append(units, jsonl.Unit{Format: Name, Path: f})
		}
	}
	for _, f := range files {
		if !taken[f] {
			rest = append(rest, f)
		}
	}
	return units, rest
}

// besideStore reports whether goose's database lies in the folder of
// path.
func besideStore(path string) bool {
	db := filepath.Join(filepath.Dir(path), DBFile)
	return Sniff(db) || logOnly(db)
}

// SkipReason implements jsonl.Skipper: a legacy session file beside
// goose's database was copied into it by goose itself when goose created
// the database (session_manager.rs: import_legacy), so it is skipped with
// a note rather than imported twice.
func (Format) SkipReason(path string) string {
	if filepath.Ext(path) != ".jsonl" || !besideStore(path) || !LegacyFirstLine(firstLine(path)) {
		return ""
	}
	return "a legacy goose session file beside goose's " + DBFile + ": goose copied it into the database when it created it; the database's copy is imported"
}

// firstLine returns the first line of the file at path (at most 1 MiB).
func firstLine(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	// A first look at the file's start: every other format's .jsonl
	// (picoclaw asks Reserves of each) is left after 4 KiB.
	r := bufio.NewReaderSize(io.LimitReader(f, 1<<20), 64<<10)
	start, _ := r.Peek(4 << 10)
	if !bytes.Contains(start, []byte(`"message_count"`)) && !bytes.Contains(start, []byte(`"created"`)) {
		return nil
	}
	line, _ := r.ReadSlice('\n')
	return bytes.TrimSpace(line)
}

// LegacyFirstLine reports whether line is the first line of a legacy
// goose session file: its metadata (an object with a string description
// and a numeric message_count, the two members goose's SessionMetadata
// requires) or, in a file goose wrote without one, a message (role user
// or assistant, a numeric created, a content list of typed items).
func LegacyFirstLine(line []byte) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(line, &obj) != nil {
		return false
	}
	if d, ok := obj["description"]; ok && len(d) > 0 && d[0] == '"' {
		if n, ok := obj["message_count"]; ok && len(n) > 0 && (n[0] >= '0' && n[0] <= '9') {
			_, typed := obj["type"]
			return !typed
		}
		return false
	}
	return messageLine(obj)
}

// messageLine reports whether obj is a goose message.
func messageLine(obj map[string]json.RawMessage) bool {
	var role string
	if json.Unmarshal(obj["role"], &role) != nil || (role != "user" && role != "assistant") {
		return false
	}
	var created json.Number
	if json.Unmarshal(obj["created"], &created) != nil {
		return false
	}
	if _, err := created.Int64(); err != nil {
		return false
	}
	var content []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(obj["content"], &content) != nil {
		return false
	}
	for _, c := range content {
		if !contentTypes[c.Type] {
			return false
		}
	}
	for k := range obj {
		if !messageKeys[k] {
			return false
		}
	}
	return true
}

// messageKeys are the members of goose's Message (message.rs).
var messageKeys = map[string]bool{"id": true, "role": true, "created": true, "content": true, "metadata": true}

// contentTypes are the tags of goose's MessageContent, past and present
// (message.rs, content_types.rs; reasoning and conversationCompacted are
// the older names goose still reads).
var contentTypes = map[string]bool{
	"text": true, "image": true, "toolRequest": true, "toolResponse": true,
	"toolConfirmationRequest": true, "actionRequired": true, "frontendToolRequest": true,
	"thinking": true, "redactedThinking": true, "systemNotification": true,
	"reasoning": true, "conversationCompacted": true, "contextLengthExceeded": true,
	"summarizationRequested": true, "enableExtensionRequest": true,
}

// Parse reads one unit: a session of a store (a unit Sessions listed) or
// a legacy session file; see the package doc.
func (f Format) Parse(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (parsed *jsonl.Parsed, err error) {
	defer func() {
		if r := recover(); r != nil {
			parsed, err = nil, fmt.Errorf("parse %s %s: internal error: %v", Name, u.Path, r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	var pd *jsonl.Parsed
	if fi, serr := os.Stat(u.Path); serr == nil && fi.Mode().IsRegular() && strings.HasSuffix(u.Path, ".jsonl") {
		pd, err = parseLegacy(ctx, u, from)
	} else if store, id, ok := jsonl.SplitSessionPath(u.Path); ok {
		pd, err = parseStored(ctx, u, store, id, from)
	} else {
		return nil, fmt.Errorf("parse %s %s: neither a session of a store nor a session file: %w", Name, u.Path, sessiondb.ErrInvalid)
	}
	if err != nil && !errors.Is(err, jsonl.ErrNotIncremental) {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	return pd, err
}

// Reserves implements jsonl.Reserver: a .jsonl file whose first line is
// a legacy goose session's is goose's, although a goose message as its
// first line (a file without metadata) would also read as a picoclaw
// message to picoclaw, which claims before goose.
func (Format) Reserves(path string) bool {
	return filepath.Ext(path) == ".jsonl" && LegacyFirstLine(firstLine(path))
}
