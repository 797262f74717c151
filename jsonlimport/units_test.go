package jsonlimport

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

// TestImportUnitsEqualsImport checks that Discover followed by
// ImportUnits is Import: the same units, the same report, the same
// database.
func TestImportUnitsEqualsImport(t *testing.T) {
	ctx := context.Background()
	samples := filepath.Join("..", "testdata", "samples")
	d, err := Discover([]string{samples}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Units) == 0 {
		t.Fatal("no units discovered in the samples")
	}
	det, _, err := Detect(ctx, []string{samples}, "")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, x := range det {
		n += x.Sessions
	}
	if n != len(d.Units) {
		t.Errorf("Discover found %d units, Detect %d", len(d.Units), n)
	}
	a, b := openStore(t), openStore(t)
	ra, err := Import(ctx, a, []string{samples}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := ImportUnits(ctx, b, d.Units, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Import also reports the files no format claims; ImportUnits leaves
	// them to its caller (they are in the Discovery).
	rb.Problems = append(append([]Problem{}, d.Problems...), rb.Problems...)
	rb.Notes = append(append([]Problem{}, d.Skipped...), rb.Notes...)
	rb.Skipped = len(d.Skipped)
	if d := cmp.Diff(ra, rb, cmpopts.EquateEmpty(), cmpopts.IgnoreUnexported(Report{})); d != "" {
		t.Errorf("reports differ (-Import +ImportUnits):\n%s", d)
	}
	la, _, _ := a.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	lb, _, _ := b.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if len(la) != len(lb) || len(la) == 0 {
		t.Fatalf("%d sessions against %d", len(la), len(lb))
	}
	for i := range la {
		fa, err := a.LoadFull(ctx, la[i].ID, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fb, err := b.LoadFull(ctx, la[i].ID, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatalf("session %s: %v", la[i].ID, err)
		}
		if !reflect.DeepEqual(bodies(fa.Transcript), bodies(fb.Transcript)) {
			t.Errorf("session %s: transcripts differ", la[i].ID)
		}
	}
	// Again: every unit is unchanged.
	rc, err := ImportUnits(ctx, b, d.Units, Options{})
	if err != nil || rc.Unchanged != len(d.Units) || rc.Sessions != 0 {
		t.Errorf("second ImportUnits: %+v, %v", rc, err)
	}
}

func bodies(es []sessiondb.Entry) []string { return jsonltest.Bodies(es) }

func TestImportUnitsRefusesUnknownFormat(t *testing.T) {
	st := openStore(t)
	_, err := ImportUnits(context.Background(), st, []Unit{{Format: "nope", Path: "/x.jsonl"}}, Options{})
	if !errors.Is(err, sessiondb.ErrInvalid) {
		t.Fatalf("err %v, want ErrInvalid", err)
	}
	if _, err := Discover(nil, "nope"); err == nil {
		t.Error("Discover with an unknown format: no error")
	}
}

// TestClaimScope checks where the owners of side files kept in other
// directories are looked for, and that each named directory, claimed
// again, gives a unit that lists the file.
func TestClaimScope(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ccData, err := os.ReadFile(filepath.Join(ccTestdata, "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000001.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	cc := write("proj/s1.jsonl", string(ccData))
	tool := write("proj/s1/tool-results/t.txt", "output")
	swHeader := `{"id":"a","title":"t","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","version":1,"sequence":1}` + "\n"
	sw := write("sw/sessions/a.jsonl", swHeader)
	cp := write("sw/checkpoints/a-turn-1.json", "{}")
	idx := write("codex/session_index.jsonl", `{"id":"x","thread_name":"t","updated_at":"2026-01-01T00:00:00Z"}`+"\n")
	write("codex/sessions/2026/01/01/r.jsonl", "")
	plain := write("pi/x.jsonl", "")

	for _, c := range []struct {
		path  string
		dirs  []string
		trees []string
		owner string // a unit of one of dirs must list path
	}{
		{tool, []string{filepath.Dir(tool), filepath.Dir(cc)}, nil, cc},
		{cp, []string{filepath.Dir(cp), filepath.Dir(sw)}, nil, sw},
		{idx, []string{filepath.Dir(idx)}, []string{filepath.Join(root, "codex", "sessions")}, ""},
		{plain, []string{filepath.Dir(plain)}, nil, ""},
	} {
		sc := ClaimScope(c.path)
		if !reflect.DeepEqual(sc.Dirs, c.dirs) || !reflect.DeepEqual(sc.Trees, c.trees) {
			t.Errorf("ClaimScope(%s) = %+v, want dirs %v trees %v", c.path, sc, c.dirs, c.trees)
		}
		if c.owner == "" {
			continue
		}
		d, err := Discover(sc.Dirs[1:], "")
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, u := range d.Units {
			for _, x := range u.Extra {
				found = found || (u.Path == c.owner && x == c.path)
			}
		}
		if !found {
			t.Errorf("claiming %v again gives no unit of %s listing %s: %+v", sc.Dirs[1:], c.owner, c.path, d.Units)
		}
	}
}
