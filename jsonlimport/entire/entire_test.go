package entire_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/entire"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

// importPaths imports paths into s (every format) and fails on an error.
func importPaths(t testing.TB, s sessiondb.Store, paths ...string) jsonlimport.Report {
	t.Helper()
	rep, err := jsonlimport.Import(context.Background(), s, paths, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// entireOf returns the "entire" member of a session's attrs.
func entireOf(t testing.TB, sess sessiondb.Session) map[string]any {
	t.Helper()
	var attrs map[string]any
	if err := json.Unmarshal(sess.Attrs, &attrs); err != nil {
		t.Fatalf("%s: attrs %s: %v", sess.ID, sess.Attrs, err)
	}
	e, _ := attrs["entire"].(map[string]any)
	return e
}

func TestEntireSmoke(t *testing.T) {
	dir := buildRepo(t, 3)
	s := jsonltest.OpenStore(t)
	rep := importPaths(t, s, dir)
	t.Logf("report: %+v", rep)
	list, _, err := s.List(context.Background(), sessiondb.ListOptions{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range list {
		t.Logf("%s %s %s %s", l.ID, l.SourceFormat, l.SourcePath, l.Attrs)
	}
}

var _ = []any{errors.Is, os.Stat, filepath.Join, reflect.DeepEqual, sort.Strings, strings.Cut, time.Now, cmp.Diff, entire.Name}
