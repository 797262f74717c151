// Package pinode finds pi's own SessionManager (npm
// @mariozechner/pi-coding-agent, pinned in testdata/gen/pi/package.json and
// installed there by `npm install`) for the tests that check our files with
// pi's code: the scripts of testdata/gen/pi run with node where node finds
// pi's modules. SESSIONDB_PI_NODE may name another directory whose
// node_modules holds pi. Without node or pi the test is skipped, unless CI
// is set (CI installs pi), which makes it fail.
package pinode

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Script returns the node binary and the path of the script name of
// testdata/gen/pi, placed where node resolves pi's modules from it: the
// script itself, or with SESSIONDB_PI_NODE a copy of it in that directory.
// Run it with its directory as the working directory.
func Script(tb testing.TB, name string) (node, script string) {
	tb.Helper()
	gen, err := genDir()
	if err != nil {
		tb.Fatalf("testdata/gen/pi: %v", err)
	}
	dir := gen
	if env := os.Getenv("SESSIONDB_PI_NODE"); env != "" {
		dir = env
	}
	node, err = exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "@mariozechner", "pi-coding-agent", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("pi is not installed (cd testdata/gen/pi && npm install): %v", err)
		}
		tb.Skipf("pi is not installed (cd testdata/gen/pi && npm install, or set SESSIONDB_PI_NODE): %v", err)
	}
	script = filepath.Join(gen, name)
	if dir != gen {
		data, err := os.ReadFile(script)
		if err != nil {
			tb.Fatal(err)
		}
		script = filepath.Join(dir, name)
		if err := os.WriteFile(script, data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return node, script
}

// genDir is testdata/gen/pi of the module the test runs in, found from
// the working directory (a package directory) upwards.
func genDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata", "gen", "pi"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
