package torture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// makeDB creates a database at path holding session "ro" (3 entries).
func makeDB(path string) error {
	store, err := sqlstore.Open(path, nil)
	if err != nil {
		return err
	}
	if _, err := store.SaveFull(context.Background(), sessiondb.Session{ID: "ro"}, bigEntries("ro", 3, 100), json.RawMessage(`{"ro":1}`)); err != nil {
		store.Close()
		return err
	}
	return store.Close()
}

// probeStore opens path and reports "<name>-open", then (if it opened) a
// read ("<name>-read") and a write ("<name>-write").
func probeStore(name, path string) {
	store, err := sqlstore.Open(path, nil)
	reportErr(name+"-open", err)
	if err != nil {
		return
	}
	defer store.Close()
	ctx := context.Background()
	es, err := store.Load(ctx, "ro", sessiondb.LoadOptions{})
	if err == nil && len(es) != 3 {
		err = fmt.Errorf("session ro has %d entries, want 3", len(es))
	}
	reportErr(name+"-read", err)
	_, err = store.Append(ctx, "ro", bigEntries("ro-more", 1, 100)...)
	reportErr(name+"-write", err)
}

// probeReader opens path with Options.ReadOnly, as the read commands do,
// and reports "<name>-ro-open" and "<name>-ro-read" (issue 23 item 6: a
// database on storage that cannot be written must still be readable).
func probeReader(name, path string) {
	store, err := sqlstore.Open(path, &sqlstore.Options{ReadOnly: true})
	reportErr(name+"-ro-open", err)
	if err != nil {
		return
	}
	defer store.Close()
	es, err := store.Load(context.Background(), "ro", sessiondb.LoadOptions{})
	if err == nil && len(es) != 3 {
		err = fmt.Errorf("session ro has %d entries, want 3", len(es))
	}
	reportErr(name+"-ro-read", err)
}

// runFSProbe is a child process that provokes file-system failures. The
// mount probes run in a private mount namespace (the parent starts it with
// CLONE_NEWNS), so their tmpfs and bind mounts vanish with it.
func runFSProbe() int {
	dir := os.Getenv(envDir)
	ctx := context.Background()
	mountTmpfs := func(opts string) bool {
		if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, opts); err != nil {
			report(step{Name: "setup", Skip: fmt.Sprintf("mount tmpfs: %v", err)})
			return false
		}
		return true
	}
	switch os.Getenv(envProbe) {
	case "tmpfs-full":
		// 2 MiB: a new database, its WAL, and its search index file with its
		// WAL take about 1.1 MB before the first write.
		if !mountTmpfs("size=2m,mode=0700") {
			return 0
		}
		store, err := sqlstore.Open(filepath.Join(dir, "full.db"), nil)
		reportErr("open", err)
		if err != nil {
			return 0
		}
		fillUntilFull(ctx, store, "full")
		afterFull(ctx, store, "full")
		// Free space appears (the disk grows): writing works again.
		if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT, "size=64m"); err != nil {
			reportErr("grow", err)
			return 0
		}
		_, err = store.SaveFull(ctx, sessiondb.Session{ID: "after-grow"}, bigEntries("after-grow", 4, 16<<10), nil)
		reportErr("write-after-grow", err)
		verdict := integrity(store)
		report(step{Name: "integrity", OK: verdict == "ok", Err: verdict})
		reportErr("close", store.Close())
		// A fresh open sees every acknowledged commit.
		store, err = sqlstore.Open(filepath.Join(dir, "full.db"), nil)
		reportErr("reopen", err)
		if err != nil {
			return 0
		}
		infos, _, err := store.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
		for _, in := range infos {
			es, lerr := store.Load(ctx, in.ID, sessiondb.LoadOptions{})
			if lerr == nil && len(es) < 4 {
				lerr = fmt.Errorf("%s has %d entries", in.ID, len(es))
			}
			err = errors.Join(err, lerr)
		}
		report(step{Name: "sessions", OK: err == nil, N: int64(len(infos)), Err: fmt.Sprint(err)})
		store.Close()
	case "ro-dir":
		if !mountTmpfs("size=16m,mode=0700") {
			return 0
		}
		db := filepath.Join(dir, "ro.db")
		if err := makeDB(db); err != nil {
			reportErr("makedb", err)
			return 0
		}
		if err := syscall.Mount("tmpfs", dir, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
			report(step{Name: "setup", Skip: fmt.Sprintf("remount read-only: %v", err)})
			return 0
		}
		probeStore("existing", db)
		probeReader("existing", db)
		_, err := sqlstore.Open(filepath.Join(dir, "new.db"), nil)
		reportErr("new-open", err)
		_, err = sqlstore.Open(filepath.Join(dir, "sub", "new.db"), nil)
		reportErr("newdir-open", err)
	case "ro-file":
		if !mountTmpfs("size=16m,mode=0700") {
			return 0
		}
		db := filepath.Join(dir, "ro.db")
		if err := makeDB(db); err != nil {
			reportErr("makedb", err)
			return 0
		}
		if err := syscall.Mount(db, db, "", syscall.MS_BIND, ""); err != nil {
			report(step{Name: "setup", Skip: fmt.Sprintf("bind mount: %v", err)})
			return 0
		}
		if err := syscall.Mount("", db, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
			report(step{Name: "setup", Skip: fmt.Sprintf("remount read-only: %v", err)})
			return 0
		}
		probeStore("file", db)
		probeReader("file", db)
	case "perm":
		// Run as an unprivileged user: permission bits apply.
		probeStore("dir", filepath.Join(dir, "rodir", "ro.db"))
		probeReader("dir", filepath.Join(dir, "rodir", "ro.db"))
		_, err := sqlstore.Open(filepath.Join(dir, "rodir", "new.db"), nil)
		reportErr("new-open", err)
		probeStore("file", filepath.Join(dir, "rofile", "ro.db"))
		probeReader("file", filepath.Join(dir, "rofile", "ro.db"))
	default:
		report(step{Name: "setup", Skip: "unknown probe"})
	}
	return 0
}
