package torture

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	exeOnce sync.Once
	exePath string
	exeDir  string
	exeNote string
)

// childExe returns the program child processes run. Normally that is the
// test binary itself (TestMain dispatches on TORTURE_ROLE). Under -race it
// is tortureworker built without the race detector: instrumented SQLite
// is an order of magnitude slower (a crash workload would do a few hundred
// operations instead of thousands) and several times larger in memory
// (peak-memory bounds would measure the detector). If that build fails,
// the test binary is used and the reason logged.
func childExe(t testing.TB) string {
	if !raceEnabled {
		return os.Args[0]
	}
	exeOnce.Do(func() {
		exePath = os.Args[0]
		dir, err := os.MkdirTemp("", "torture-exe-")
		if err != nil {
			exeNote = err.Error()
			return
		}
		exeDir = dir
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		out := filepath.Join(dir, "tortureworker")
		cmd := exec.Command(goTool, "build", "-o", out, "github.com/sessiondb/sessiondb/torture/internal/cmd/tortureworker")
		if b, err := cmd.CombinedOutput(); err != nil {
			exeNote = err.Error() + ": " + string(b)
			return
		}
		exePath = out
	})
	if exeNote != "" {
		t.Logf("using the race-instrumented test binary for child processes: building tortureworker failed: %s", exeNote)
	}
	return exePath
}

// removeChildExe deletes the built worker binary (TestMain calls it).
func removeChildExe() {
	if exeDir != "" {
		os.RemoveAll(exeDir)
	}
}
