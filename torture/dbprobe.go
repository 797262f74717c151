package torture

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// hostileOutcome is how the store dealt with one damaged file.
type hostileOutcome struct {
	Name         string   `json:"name"`
	OpenErr      string   `json:"open_err,omitempty"`
	OpenSentinel string   `json:"open_sentinel,omitempty"`
	Integrity    string   `json:"integrity,omitempty"` // PRAGMA integrity_check verdict ("" when Open failed)
	Errs         []string `json:"errs,omitempty"`      // errors of reads and writes after a successful Open
	Unmatched    []string `json:"unmatched,omitempty"` // those of them that match no sentinel
}

// probeHostile opens a damaged database and exercises it: integrity
// check, every read path on every session, a search, a write.
func probeHostile(path string) hostileOutcome {
	out := hostileOutcome{Name: strings.TrimSuffix(filepath.Base(path), ".db")}
	store, err := sqlstore.Open(path, &sqlstore.Options{BusyTimeout: 2 * time.Second, NoBackup: true})
	if err != nil {
		out.OpenErr, out.OpenSentinel = err.Error(), sentinels(err)
		return out
	}
	defer store.Close()
	ctx := context.Background()
	out.Integrity = integrity(store)
	keep := func(err error) {
		if err != nil {
			out.Errs = append(out.Errs, err.Error())
			if sentinels(err) == "" {
				out.Unmatched = append(out.Unmatched, err.Error())
			}
		}
	}
	infos, _, err := store.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	keep(err)
	for _, in := range infos {
		_, err := store.LoadFull(ctx, in.ID, sessiondb.LoadOptions{})
		keep(err)
		_, err = store.Entries(ctx, in.ID, 0, 0)
		keep(err)
		_, err = store.Compactions(ctx, in.ID)
		keep(err)
	}
	_, err = store.Search(ctx, "alpha", sessiondb.SearchOptions{Limit: 10})
	keep(err)
	_, err = store.SaveFull(ctx, sessiondb.Session{ID: "after-damage"}, []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"x"}`)}, nil)
	keep(err)
	return out
}

// runDBProbe is a child process: it probes every *.db file of TORTURE_DIR
// in name order, reporting "start" before each (so that a crash names its
// file) and the outcome after.
func runDBProbe() int {
	paths, _ := filepath.Glob(filepath.Join(os.Getenv(envDir), "*.db"))
	sort.Strings(paths)
	for _, p := range paths {
		report(step{Name: "start", Sid: filepath.Base(p)})
		out := probeHostile(p)
		data, _ := json.Marshal(out)
		report(step{Name: "probe", OK: true, Err: string(data)})
	}
	return 0
}
