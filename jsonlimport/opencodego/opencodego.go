package opencodego

import (
	"context"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/crush"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Name names the Go opencode's format.
const Name = "opencode-go"

// Store is the Go opencode's store, read by crush's reader.
var Store = crush.Store{Format: Name, File: "opencode.db", Agent: "opencode"}

// Format reads the Go opencode's session store (.opencode/opencode.db).
// Export refuses, as crush's does.
type Format struct{}

var (
	_ jsonl.Format        = Format{}
	_ jsonl.StoreFormat   = Format{}
	_ jsonl.MessageReader = Format{}
)

// Name returns Name.
func (Format) Name() string { return Name }

// Claim implements jsonl.Format: a database named opencode.db whose
// schema is the Go opencode's (crush.Sniff), with its -wal and -shm.
func (Format) Claim(files []string) ([]jsonl.Unit, []string) { return Store.Claim(files) }

// Sessions implements jsonl.StoreFormat.
func (Format) Sessions(ctx context.Context, store jsonl.Unit, c *jsonl.Cache) ([]jsonl.StoreSession, []jsonl.Problem, error) {
	return Store.Sessions(ctx, store, c)
}

// Parse implements jsonl.Format.
func (Format) Parse(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (*jsonl.Parsed, error) {
	return Store.Parse(ctx, u, from)
}

// Export implements jsonl.Format: it refuses (crush.ErrNoExport).
func (Format) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	return Store.Export(ctx, s, id, dir)
}

// Understand implements jsonl.MessageReader.
func (Format) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	return Store.Understand(e, obj)
}
