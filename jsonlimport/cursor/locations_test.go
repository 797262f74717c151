package cursor_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/cursor"
)

// TestCursorDefaultPlaces: Cursor's globalStorage and workspaceStorage
// under its User folder of the platform are default places.
func TestCursorDefaultPlaces(t *testing.T) {
	env := map[string]string{"XDG_CONFIG_HOME": "/cfg", "APPDATA": `C:\Users\u\AppData\Roaming`}
	var got []string
	for _, l := range jsonlimport.WellKnownLocations("/home/u", func(k string) string { return env[k] }) {
		if l.Format == cursor.Name {
			got = append(got, l.Path)
		}
	}
	var users []string
	switch runtime.GOOS {
	case "windows":
		users = []string{filepath.Join(env["APPDATA"], "Cursor", "User")}
	case "darwin":
		users = []string{filepath.Join("/home/u", "Library", "Application Support", "Cursor", "User")}
	default:
		users = []string{filepath.Join("/cfg", "Cursor", "User"), filepath.Join("/home/u", ".config", "Cursor", "User")}
	}
	var want []string
	for _, u := range users {
		want = append(want, filepath.Join(u, "globalStorage"), filepath.Join(u, "workspaceStorage"))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("default places (-want +got):\n%s", d)
	}
}
