package main

import (
	"path/filepath"
	"testing"
)

// TestImportCrushCorpusExitsZero imports the real crush and Go opencode
// stores of the corpus (testdata/corpus/crush and opencode-go, their -wal
// holding commits their main files do not): exit 0, every session, no
// problem; a second import changes nothing.
func TestImportCrushCorpusExitsZero(t *testing.T) {
	root := filepath.Join(testdata, "corpus")
	db := tempDB(t)
	for i, want := range []int{39, 0} {
		var rep importReport
		r := sessionctl(t, db, "import", "--json", filepath.Join(root, "crush"), filepath.Join(root, "opencode-go"))
		r.decode(t, &rep)
		t.Logf("import %d: exit %d, %d files, %d sessions, %d entries, %d problems, %d notes", i+1, r.code, rep.Files, rep.Sessions, rep.Entries, len(rep.Problems), len(rep.Notes))
		for _, p := range rep.Problems {
			t.Errorf("problem: %s: %s", p.Path, p.Reason)
		}
		if r.code != 0 || rep.Sessions != want {
			t.Fatalf("import %d: exit %d, %d sessions; want exit 0, %d sessions (stderr %q)", i+1, r.code, rep.Sessions, want, r.stderr)
		}
	}
	var rep importReport
	r := sessionctl(t, db, "import", "--json", "--format", "crush", filepath.Join(root, "crush"))
	r.decode(t, &rep)
	if r.code != 0 {
		t.Fatalf("--format crush: exit %d (stderr %q)", r.code, r.stderr)
	}
}
