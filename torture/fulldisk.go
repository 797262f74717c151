package torture

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

const (
	envFSize = "TORTURE_FSIZE"
	envMode  = "TORTURE_MODE"
	envProbe = "TORTURE_PROBE"
	envDir   = "TORTURE_DIR"
)

// bigEntries returns n deterministic entries of about size bytes each.
func bigEntries(sid string, n, size int) []sessiondb.Entry {
	out := make([]sessiondb.Entry, n)
	for k := range out {
		pad := strings.Repeat(hash16(sid, fmt.Sprint(k)), size/16+1)[:size]
		out[k] = sessiondb.Entry{Body: []byte(fmt.Sprintf(`{"role":"user","content":"full %s %d","pad":%q}`, sid, k, pad))}
	}
	return out
}

// fillUntilFull writes 64 KiB commits (one new session each) until a
// write fails, reporting "ack" for each success and "write-fails" for the
// failure.
func fillUntilFull(ctx context.Context, store *sqlstore.Store, prefix string) {
	for i := 0; i < 2000; i++ {
		sid := fmt.Sprintf("%s-%d", prefix, i)
		_, err := store.SaveFull(ctx, sessiondb.Session{ID: sid}, bigEntries(sid, 4, 16<<10), json.RawMessage(`{"s":1}`))
		if err == nil {
			report(step{Name: "ack", OK: true, Sid: sid})
			continue
		}
		s := step{Name: "write-fails", Sid: sid, Err: err.Error(), Sentinel: sentinels(err)}
		report(s)
		return
	}
	report(step{Name: "write-fails", OK: true, Err: "2000 writes of 64 KiB all succeeded"})
}

// afterFull checks, in the child, that reads work and writes keep failing
// cleanly while the disk is full.
func afterFull(ctx context.Context, store *sqlstore.Store, prefix string) {
	sid := prefix + "-0"
	_, err := store.Append(ctx, sid, bigEntries(sid+"x", 1, 16<<10)...)
	reportErr("append-while-full", err)
	f, err := store.LoadFull(ctx, sid, sessiondb.LoadOptions{})
	if err == nil && len(f.Transcript) < 4 {
		err = fmt.Errorf("%s has %d entries, want at least 4", sid, len(f.Transcript))
	}
	reportErr("read-while-full", err)
}

// runFullWriter is a child process: it lowers RLIMIT_FSIZE (ignoring
// SIGXFSZ, so that write(2) fails with EFBIG instead of killing it),
// writes until a write fails, checks reads, and then either raises the
// limit and writes again (mode "raise") or exits without closing, like a
// crash (mode "exit").
func runFullWriter() int {
	signal.Ignore(syscall.SIGXFSZ)
	limit, _ := strconv.ParseUint(os.Getenv(envFSize), 10, 64)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		report(step{Name: "setup", Skip: err.Error()})
		return 0
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: old.Max}); err != nil {
		report(step{Name: "setup", Skip: err.Error()})
		return 0
	}
	ctx := context.Background()
	store, err := sqlstore.Open(os.Getenv(envDB), nil)
	reportErr("open", err)
	if err != nil {
		return 0
	}
	fillUntilFull(ctx, store, "full")
	afterFull(ctx, store, "full")
	if os.Getenv(envMode) == "raise" {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			reportErr("raise", err)
			return 0
		}
		_, err := store.SaveFull(ctx, sessiondb.Session{ID: "after-raise"}, bigEntries("after-raise", 4, 16<<10), nil)
		reportErr("write-after-raise", err)
		reportErr("close", store.Close())
	}
	return 0
}

// integrity returns PRAGMA integrity_check's verdict ("ok" when sound) or
// the error that prevented it.
func integrity(store *sqlstore.Store) string {
	rows, err := store.Query(context.Background(), "PRAGMA integrity_check")
	if err != nil {
		return "error: " + err.Error()
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return "error: " + err.Error()
		}
		lines = append(lines, s)
	}
	if err := rows.Err(); err != nil {
		return "error: " + err.Error()
	}
	return strings.Join(lines, "; ")
}
