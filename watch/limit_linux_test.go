package watch

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sessiondb/sessiondb/sqlstore"
)

// limitedWatcherMain runs in a new user namespace whose inotify watch
// limit it lowers to WATCH_TEST_LIMIT, then follows WATCH_TEST_ROOT into
// WATCH_TEST_DB until SIGTERM, printing its events as JSON lines.
func limitedWatcherMain() int {
	if err := os.WriteFile("/proc/sys/user/max_inotify_watches", []byte(os.Getenv("WATCH_TEST_LIMIT")), 0o644); err != nil {
		fmt.Println(`{"Kind":"setup-failed"}`)
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	st, err := sqlstore.Open(os.Getenv("WATCH_TEST_DB"), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	enc := json.NewEncoder(os.Stdout)
	err = Run(ctx, st, Options{Paths: []string{os.Getenv("WATCH_TEST_ROOT")}, PollInterval: 100e6, Events: func(e Event) { _ = enc.Encode(e) }})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestWatchLimitInUserNamespace reaches the real inotify watch limit: a
// child in its own user namespace lowers it (/proc/sys/user/
// max_inotify_watches, which counts per user namespace, so nothing else on
// the machine is affected) to 3 and follows a tree of 8 directories. The
// limit must be said once, and a file appended in a polled directory and
// one created in a new folder must still be imported.
func TestWatchLimitInUserNamespace(t *testing.T) {
	root := t.TempDir()
	for i := range 7 {
		if err := os.MkdirAll(filepath.Join(root, fmt.Sprintf("d%d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(t.TempDir(), "sessions.db")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envRole+"=limited", "WATCH_TEST_ROOT="+root, "WATCH_TEST_DB="+db, "WATCH_TEST_LIMIT=3")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start a process in a new user namespace here: %v", err)
	}
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	events := make(chan Event, 100)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var e Event
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				events <- e
			}
		}
		close(events)
	}()
	var fallbacks []string
	var watching Event
	for e := range events {
		if e.Kind == "setup-failed" {
			t.Skip("cannot lower the watch limit in a user namespace here")
		}
		if e.Kind == EventFallback {
			fallbacks = append(fallbacks, e.Message)
		}
		if e.Kind == EventWatching {
			watching = e
		}
		if e.Kind == EventCatchUp {
			break
		}
	}
	if watching.Dirs != 8 || watching.Polled != 5 || len(fallbacks) != 1 || !strings.Contains(fallbacks[0], "watch limit") {
		t.Fatalf("watching %+v, fallbacks %q: want 8 directories, 5 polled (limit 3), the limit said once", watching, fallbacks)
	}
	f := filepath.Join(root, "d6", "polled.jsonl")
	g := filepath.Join(root, "d6", "new", "folder.jsonl")
	runWriter(t, []step{{Op: "append", File: f, Data: []byte(`{"role":"user","content":"in a polled directory"}` + "\n")},
		{Op: "append", File: g, Data: []byte(`{"role":"user","content":"in a new folder below it"}` + "\n")}})
	reader, err := sqlstore.Open(db, &sqlstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	waitFor(t, "the files in polled directories", func() bool { return caughtUp(reader, f, g) })
	_ = cmd.Process.Signal(syscall.SIGTERM)
	for e := range events {
		if e.Kind == EventFallback {
			t.Errorf("fallback said again: %s", e.Message)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the watcher did not stop cleanly on SIGTERM: %v", err)
	}
}
