package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMachineIdentity checks how the machine identity is chosen: created
// once in the config dir (host label and random hex) and then stable,
// $SESSIONDB_MACHINE over it, --machine over both, bad names refused.
func TestMachineIdentity(t *testing.T) {
	cfg := t.TempDir()
	env := map[string]string{"XDG_CONFIG_HOME": cfg}
	a := &app{getenv: func(k string) string { return env[k] }}
	first, err := a.machineID()
	if err != nil {
		t.Fatal(err)
	}
	if err := checkMachine(first); err != nil || !strings.Contains(first, "-") {
		t.Fatalf("new machine name %q: %v", first, err)
	}
	data, err := os.ReadFile(filepath.Join(cfg, "sessiondb", "machine"))
	if err != nil || strings.TrimSpace(string(data)) != first {
		t.Fatalf("config file holds %q (%v), want %q", data, err, first)
	}
	again, err := (&app{getenv: a.getenv}).machineID()
	if err != nil || again != first {
		t.Fatalf("second run: %q, %v; want the kept %q", again, err, first)
	}
	if err := os.WriteFile(filepath.Join(cfg, "sessiondb", "machine"), []byte("workstation\n# set by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err := a.machineID(); err != nil || m != "workstation" {
		t.Fatalf("edited file: %q, %v", m, err)
	}
	env["SESSIONDB_MACHINE"] = "ci-runner"
	if m, err := a.machineID(); err != nil || m != "ci-runner" {
		t.Fatalf("$SESSIONDB_MACHINE: %q, %v", m, err)
	}
	a.machineFlag = "laptop"
	if m, err := a.machineID(); err != nil || m != "laptop" {
		t.Fatalf("--machine: %q, %v", m, err)
	}
	for _, bad := range []string{"two words", strings.Repeat("x", 65), "tab\there"} {
		a.machineFlag = bad
		if _, err := a.machineID(); err == nil {
			t.Errorf("--machine %q accepted", bad)
		}
	}
	a.machineFlag = ""
	env["SESSIONDB_MACHINE"] = ""
	if err := os.WriteFile(filepath.Join(cfg, "sessiondb", "machine"), []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := a.machineID(); err == nil || !strings.Contains(err.Error(), "machine") {
		t.Errorf("an empty config file: %v, want an error naming the file", err)
	}
}

// TestMachineIdentityFirstRunsAtOnce: processes that start together on a
// fresh config dir (a watcher and an import, several watchers) all take
// one name, and none reads the file before its name is in it.
func TestMachineIdentityFirstRunsAtOnce(t *testing.T) {
	for round := 0; round < 20; round++ {
		cfg := t.TempDir()
		getenv := func(k string) string {
			if k == "XDG_CONFIG_HOME" {
				return cfg
			}
			return ""
		}
		const n = 8
		names := make(chan string, n)
		errs := make(chan error, n)
		start := make(chan struct{})
		for i := 0; i < n; i++ {
			go func() {
				<-start
				m, err := (&app{getenv: getenv}).machineID()
				names <- m
				errs <- err
			}()
		}
		close(start)
		seen := map[string]bool{}
		for i := 0; i < n; i++ {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			seen[<-names] = true
		}
		if len(seen) != 1 {
			t.Fatalf("round %d: %d names for one machine: %v", round, len(seen), seen)
		}
		left, _ := filepath.Glob(filepath.Join(cfg, "sessiondb", ".machine-*"))
		if len(left) > 0 {
			t.Fatalf("round %d: temporary files left: %v", round, left)
		}
	}
}
