package torture

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/sqlstore"
)

const envFormat = "TORTURE_FORMAT"

// importResult is what the importer child reports.
type importResult struct {
	Err           string   `json:"err,omitempty"`
	Sessions      int      `json:"sessions"`
	Forks         int      `json:"forks"` // branch forks, not in Sessions
	Entries       int      `json:"entries"`
	NProblems     int      `json:"nproblems"`
	Problems      []string `json:"problems,omitempty"`
	VmHWMKiB      int64    `json:"vmhwm_kib"`
	StoreSessions int      `json:"store_sessions"`
	StoreEntries  int64    `json:"store_entries"`
	Integrity     string   `json:"integrity"`
	Unbooked      []string `json:"unbooked,omitempty"` // sessions without a source record
}

// vmHWM returns the process's peak resident set size in KiB.
func vmHWM() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return -1
}

// runHostileImporter is a child process: it imports TORTURE_DIR into a
// new database and reports the outcome, the database's contents and its
// own peak memory.
func runHostileImporter() int {
	ctx := context.Background()
	store, err := sqlstore.Open(os.Getenv(envDB), nil)
	if err != nil {
		reportErr("open", err)
		return 0
	}
	defer store.Close()
	rep, err := jsonlimport.Import(ctx, store, []string{os.Getenv(envDir)}, jsonlimport.Options{Format: os.Getenv(envFormat), Jobs: 1})
	res := importResult{Sessions: rep.Sessions, Forks: rep.Forks, Entries: rep.Entries, NProblems: len(rep.Problems), VmHWMKiB: vmHWM()}
	if err != nil {
		res.Err = err.Error()
	}
	for i, p := range rep.Problems {
		if i == 8 {
			break
		}
		r := p.Reason
		if len(r) > 200 {
			r = r[:200] + "…"
		}
		res.Problems = append(res.Problems, fmt.Sprintf("line %d: %s", p.Line, r))
	}
	infos, _, lerr := store.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if lerr != nil {
		res.Err += " list: " + lerr.Error()
	}
	res.StoreSessions = len(infos)
	for _, in := range infos {
		res.StoreEntries += in.EntryCount
		if _, err := store.SourceFile(ctx, in.SourcePath); err != nil {
			res.Unbooked = append(res.Unbooked, in.ID)
		}
	}
	res.Integrity = integrity(store)
	data, _ := json.Marshal(res)
	report(step{Name: "import", OK: err == nil, Err: string(data)})
	return 0
}
