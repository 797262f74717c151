package torture

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/sessiondb/sessiondb"
)

// step is one line a child process reports on stdout ("STEP {json}").
type step struct {
	Name     string `json:"name"`
	OK       bool   `json:"ok"`
	Err      string `json:"err,omitempty"`
	Sentinel string `json:"sentinel,omitempty"` // the sessiondb sentinels the error matches
	Sid      string `json:"sid,omitempty"`
	N        int64  `json:"n,omitempty"`
	Skip     string `json:"skip,omitempty"` // why the child could not do it
}

func report(s step) {
	b, _ := json.Marshal(s)
	fmt.Printf("STEP %s\n", b)
}

func reportErr(name string, err error) {
	s := step{Name: name, OK: err == nil}
	if err != nil {
		s.Err, s.Sentinel = err.Error(), sentinels(err)
	}
	report(s)
}

// sentinels names the root sentinel errors err matches.
func sentinels(err error) string {
	var out []string
	for _, s := range []struct {
		name string
		err  error
	}{
		{"ErrNotFound", sessiondb.ErrNotFound}, {"ErrExists", sessiondb.ErrExists},
		{"ErrConflict", sessiondb.ErrConflict}, {"ErrInvalid", sessiondb.ErrInvalid},
		{"ErrSchemaTooNew", sessiondb.ErrSchemaTooNew}, {"ErrClosed", sessiondb.ErrClosed},
		{"ErrCorrupt", sessiondb.ErrCorrupt}, {"ErrReadOnly", sessiondb.ErrReadOnly},
		{"ErrFull", sessiondb.ErrFull}, {"ErrBusy", sessiondb.ErrBusy},
	} {
		if errors.Is(err, s.err) {
			out = append(out, s.name)
		}
	}
	return strings.Join(out, ",")
}

// EnvRole selects what a torture child process does: "worker" (crash
// workload), "fullwriter", "fsprobe" or "importer".
const EnvRole = "TORTURE_ROLE"

// ChildMain runs the child process role and returns its exit code. The
// test binary calls it from TestMain when EnvRole is set, and so does the
// race-free worker binary built from internal/cmd/tortureworker.
func ChildMain(role string) int {
	switch role {
	case "worker":
		return runWorker()
	case "fullwriter":
		return runFullWriter()
	case "fsprobe":
		return runFSProbe()
	case "importer":
		return runHostileImporter()
	case "dbprobe":
		return runDBProbe()
	case "opener":
		return runOpener()
	}
	fmt.Fprintf(os.Stderr, "unknown %s %q\n", EnvRole, role)
	return 2
}
