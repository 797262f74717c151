package cline_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/cline"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

// TestClineDefaultPlaces: the CLI's data folder (CLINE_DATA_DIR first) and
// every VS Code family editor's globalStorage of Cline and of Roo Code are
// default places, and a copy of the CLI's folder under such a place is
// found and imported by an import of the default places.
func TestClineDefaultPlaces(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("the Linux user data folders")
	}
	env := map[string]string{"CLINE_DATA_DIR": "/data/cline", "CLINE_SESSION_DATA_DIR": "/data/sdk-sessions"}
	var got []string
	for _, l := range jsonlimport.WellKnownLocations("/home/u", func(k string) string { return env[k] }) {
		if l.Format == cline.Name {
			got = append(got, l.Path)
		}
	}
	for _, want := range []string{
		"/data/cline/tasks",
		"/data/cline/sessions",
		"/data/sdk-sessions",
		"/home/u/.cline/data/tasks",
		"/home/u/.cline/data/sessions",
		"/home/u/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks",
		"/home/u/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks",
		"/home/u/.config/Cursor/User/globalStorage/saoudrizwan.claude-dev/tasks",
		"/home/u/.config/Windsurf/User/globalStorage/rooveterinaryinc.roo-cline/tasks",
		"/home/u/.config/VSCodium/User/globalStorage/saoudrizwan.claude-dev/tasks",
		"/home/u/.config/Code - Insiders/User/globalStorage/saoudrizwan.claude-dev/tasks",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("%s is not a default place: %v", want, got)
		}
	}
	// A Cursor globalStorage holding the CLI's task: the default
	// places find it, and it imports as its own session.
	home := t.TempDir()
	storage := filepath.Join(home, ".config", "Cursor", "User", "globalStorage", "saoudrizwan.claude-dev")
	if err := os.MkdirAll(storage, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(storage, os.DirFS(filepath.Join(cliData, "data"))); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, l := range jsonlimport.WellKnownLocations(home, func(string) string { return "" }) {
		if l.Format == cline.Name {
			if _, err := os.Stat(l.Path); err == nil {
				paths = append(paths, l.Path)
			}
		}
	}
	if len(paths) != 1 {
		t.Fatalf("default places that exist: %v", paths)
	}
	det, _, err := jsonlimport.Detect(context.Background(), paths, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(det) != 1 || det[0].Format != cline.Name || det[0].Sessions != 1 || det[0].Files != 4 {
		t.Errorf("detected %+v, want one cline session of 4 files (its 3 and the index)", det)
	}
	s := jsonltest.OpenStore(t)
	rep, err := jsonlimport.Import(context.Background(), s, paths, jsonlimport.Options{})
	if err != nil || rep.Sessions != 1 {
		t.Fatalf("import: %v, %d sessions", err, rep.Sessions)
	}
}

// TestClineSDKDefaultPlace: the CLI 3's sessions in ~/.cline/data/sessions
// are found by an import of the default places (and its session database
// beside them is not in that folder).
func TestClineSDKDefaultPlace(t *testing.T) {
	home := t.TempDir()
	if err := os.CopyFS(home, os.DirFS(sdkHome)); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, l := range jsonlimport.WellKnownLocations(home, func(string) string { return "" }) {
		if l.Format == cline.Name {
			if _, err := os.Stat(l.Path); err == nil {
				paths = append(paths, l.Path)
			}
		}
	}
	if want := []string{filepath.Join(home, ".cline", "data", "sessions")}; !slices.Equal(paths, want) {
		t.Fatalf("default places that exist: %v, want %v", paths, want)
	}
	s := jsonltest.OpenStore(t)
	rep, err := jsonlimport.Import(context.Background(), s, paths, jsonlimport.Options{})
	if err != nil || rep.Sessions != 3 || len(rep.Problems) != 0 {
		t.Fatalf("import: %v, %d sessions, problems %v", err, rep.Sessions, rep.Problems)
	}
}
