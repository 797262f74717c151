package torture

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// runOpener is a child process: it waits for TORTURE_DIR/go to appear (so
// that all openers start together), opens the database TORTURE_DB — new,
// shared with the other openers — writes one session and reports.
func runOpener() int {
	dir := os.Getenv(envDir)
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("ready-%d", os.Getpid())), nil, 0o644); err != nil {
		reportErr("ready", err)
		return 0
	}
	for {
		if _, err := os.Stat(filepath.Join(os.Getenv(envDir), "go")); err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	// Staggered starts land in every phase of the first opener's Open:
	// file creation, the switch to WAL, the migrations.
	if d, err := time.ParseDuration(os.Getenv("TORTURE_DELAY")); err == nil {
		time.Sleep(d)
	}
	store, err := sqlstore.Open(os.Getenv(envDB), nil)
	reportErr("open", err)
	if err != nil {
		return 0
	}
	defer store.Close()
	_, err = store.SaveFull(context.Background(), sessiondb.Session{ID: sessiondb.NewID()},
		[]sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"hello"}`)}, json.RawMessage(`{}`))
	reportErr("write", err)
	return 0
}
