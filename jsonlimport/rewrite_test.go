package jsonlimport

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

// TestImportRewriteUsage: a file rewritten in place replaces the
// session's transcript. When the rewrite leaves the usage as it was (an
// earlier message edited), the ledger must stay as one import of the new
// file leaves it: no correction row (which counted as one more call, on no
// model, because the sums of the same costs in another order differ in
// their last bits).
func TestImportRewriteUsage(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ name, src, old, new string }{
		{"pi", "../testdata/pi/sessions/linear.jsonl", "Add a retry to the uploader.", "Add two retries to the uploader."},
		{"swink", "../testdata/swink/sessions/20260312_160744_21fee71e81d14816b55bfd9862e4e959.jsonl", "Let me read the parser first.", "Let me read the lexer first."},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, err := os.ReadFile(c.src)
			if err != nil {
				t.Fatal(err)
			}
			edited := bytes.Replace(src, []byte(c.old), []byte(c.new), 1)
			if bytes.Equal(edited, src) {
				t.Fatal("nothing edited")
			}
			path := filepath.Join(t.TempDir(), "sessions", filepath.Base(c.src))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			since := time.Now().Add(-time.Second)
			twice := openStore(t)
			for _, b := range [][]byte{src, edited} {
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := Import(ctx, twice, []string{path}, Options{Jobs: 1}); err != nil {
					t.Fatal(err)
				}
			}
			once := openStore(t)
			if _, err := Import(ctx, once, []string{path}, Options{Jobs: 1}); err != nil {
				t.Fatal(err)
			}
			want, got := jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, twice, since)
			if len(want) != 1 || len(got) != 1 {
				t.Fatalf("sessions: %d imported once, %d twice", len(want), len(got))
			}
			for _, m := range []map[string]jsonltest.GrowthSession{want, got} {
				for id, s := range m {
					s.Log = nil // the old rows stay for audit
					m[id] = s
				}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("(-one import +rewritten):\n%s", d)
			}
		})
	}
}

// TestImportRewriteBranchFork: a pi file rewritten in place (an entry on
// the path its branches share edited) replaces the transcript of its
// branch forks too: each fork then resumes what pi resumes at its tip in
// the new file, as one import of it gives, not the path of the old file.
func TestImportRewriteBranchFork(t *testing.T) {
	ctx := context.Background()
	src, err := os.ReadFile("../testdata/pi/sessions/branched.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(src, []byte(`"content":"Make the uploader robust."`), []byte(`"content":"Make the uploader ROBUST."`), 1)
	if bytes.Equal(edited, src) {
		t.Fatal("nothing edited")
	}
	path := filepath.Join(t.TempDir(), "branched.jsonl")
	since := time.Now().Add(-time.Second)
	twice := openStore(t)
	for _, b := range [][]byte{src, edited} {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Import(ctx, twice, []string{path}, Options{Jobs: 1}); err != nil {
			t.Fatal(err)
		}
	}
	once := openStore(t)
	if _, err := Import(ctx, once, []string{path}, Options{Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	want, got := jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, twice, since)
	if len(want) != 2 {
		t.Fatalf("one import gives %d sessions, want the session and its fork", len(want))
	}
	for _, m := range []map[string]jsonltest.GrowthSession{want, got} {
		for id, s := range m {
			s.Log = nil   // the old rows stay for audit
			s.ForkSeq = 0 // a log position: the rewritten parent's log is longer
			m[id] = s
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-one import +rewritten):\n%s", d)
	}
}

// TestImportShorterThenWhole: an archive imported whole, then with every
// file rewritten shorter in place (cut to a prefix of its lines: a tool
// that rewrites its file, a restore from backup), then grown back, ends as
// one import of the whole archive, usage included: the replacement
// replaces the ledger, so that the calls the grown file brings back count
// once, under their models and days (the old ledger stayed, offset by one
// "import-correction" row, and the calls written again replaced their old
// rows: the totals stayed those of the shorter file).
func TestImportShorterThenWhole(t *testing.T) {
	ctx := context.Background()
	for _, root := range growthRoots {
		for _, stages := range [][]int{{3, 1, 3}, {3, 2, 3}, {3, 1, 2, 3}} {
			t.Run(fmt.Sprintf("%s/%v", filepath.Base(filepath.Dir(root))+"/"+filepath.Base(root), stages), func(t *testing.T) {
				tmp := t.TempDir()
				since := time.Now().Add(-time.Second)
				once := openStore(t)
				whole := filepath.Join(tmp, "whole")
				stageTree(t, root, whole, 3, 3)
				if _, err := Import(ctx, once, []string{whole}, Options{Jobs: 1}); err != nil {
					t.Fatal(err)
				}
				s := openStore(t)
				dir := filepath.Join(tmp, "archive")
				for _, k := range stages {
					stageTree(t, root, dir, k, 3)
					if _, err := Import(ctx, s, []string{dir}, Options{Jobs: 1}); err != nil {
						t.Fatal(err)
					}
				}
				want, got := jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, s, since)
				// The replaced rows stay in the log for audit, so log
				// positions differ: a fork's ForkSeq is compared as the
				// parent's entry it names.
				forkAt := func(m map[string]jsonltest.GrowthSession) map[string]jsonltest.GrowthEntry {
					at := map[string]jsonltest.GrowthEntry{}
					for id, s := range m {
						if p, ok := m[s.ParentID]; ok && s.ForkSeq > 0 && s.ForkSeq <= int64(len(p.Log)) {
							at[id] = p.Log[s.ForkSeq-1]
						}
					}
					for id, s := range m {
						s.Log, s.ForkSeq = nil, 0
						m[id] = s
					}
					return at
				}
				if diff := cmp.Diff(forkAt(want), forkAt(got)); diff != "" {
					t.Errorf("forks made at other entries (-once +stages):\n%s", diff)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("differs from one import of the whole archive (-once +stages):\n%s", diff)
				}
			})
		}
	}
}
