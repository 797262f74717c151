package sessiondb_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLibraryImportGraph keeps the command-line tool's dependencies
// (cobra, pflag, progressbar, x/term) out of the packages a program
// embedding sessiondb imports.
func TestLibraryImportGraph(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".", "./sqlstore", "./migrations", "./jsonlimport", "./compactor").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, cli := range []string{"github.com/spf13/", "github.com/schollz/", "golang.org/x/term"} {
			if strings.HasPrefix(pkg, cli) {
				t.Errorf("library packages import %s (a dependency of the CLI only)", pkg)
			}
		}
	}
}
