package jsonlimport

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
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
	for r, root := range growthRoots {
		for k, stages := range [][]int{{3, 1, 3}, {3, 2, 3}, {3, 1, 2, 3}} {
			if !longtest.Every(r+k, 3) { // every format and every order in the quick run too
				continue
			}
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
				if diff := cmp.Diff(forksAt(want), forksAt(got)); diff != "" {
					t.Errorf("forks made at other entries (-once +stages):\n%s", diff)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("differs from one import of the whole archive (-once +stages):\n%s", diff)
				}
			})
		}
	}
}

// forksAt drops the logs of the sessions of m, where the rows a
// replacement replaced stay for audit, so that log positions differ
// between two stores: it returns the parent's entry each fork's ForkSeq
// names, to compare instead, and zeroes the ForkSeq.
func forksAt(m map[string]jsonltest.GrowthSession) map[string]jsonltest.GrowthEntry {
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

// TestImportFileNowHoldsAnotherSession: a session file renamed over
// another followed file of its format (Codex rollouts are named by time
// and ID, and a tool or a user can move one onto another), then grown.
// The path's file now holds another session: importing it again must not
// make the path's old session's transcript the other session's lines.
// The result equals one import of the final files for every session they
// hold; the session whose file is gone stays as its file left it.
func TestImportFileNowHoldsAnotherSession(t *testing.T) {
	ctx := context.Background()
	for _, root := range growthRoots {
		a, b := twoSessionFiles(t, root)
		t.Run(filepath.Base(filepath.Dir(root))+"/"+filepath.Base(root), func(t *testing.T) {
			tmp := t.TempDir()
			since := time.Now().Add(-time.Second)
			dir := filepath.Join(tmp, "archive")
			copyTree(t, root, dir)
			// As in stageTree: a pi /fork file cannot be older than the
			// entries it copied from its parent's file.
			for _, name := range []string{"damaged.jsonl", "fork-of-branched.jsonl"} {
				if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			ra, err := filepath.Rel(root, a)
			if err != nil {
				t.Fatal(err)
			}
			rb, _ := filepath.Rel(root, b)
			pa, pb := filepath.Join(dir, ra), filepath.Join(dir, rb)
			whole, err := os.ReadFile(pa)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.SplitAfter(whole, []byte("\n"))
			head := bytes.Join(lines[:(len(lines)+1)/2], nil)
			if err := os.WriteFile(pa, head, 0o644); err != nil {
				t.Fatal(err)
			}
			s := openStore(t)
			if _, err := Import(ctx, s, []string{dir}, Options{Jobs: 1}); err != nil {
				t.Fatal(err)
			}
			before := jsonltest.GrowthSnapshot(t, s, since)
			atB, err := s.SourceFile(ctx, pb)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(pa, pb); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(pb, whole, 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := Import(ctx, s, []string{dir}, Options{Jobs: 1})
			if err != nil {
				t.Fatal(err)
			}
			once := openStore(t)
			if _, err := Import(ctx, once, []string{dir}, Options{Jobs: 1}); err != nil {
				t.Fatal(err)
			}
			want, got := jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, s, since)
			wantAt, gotAt := forksAt(want), forksAt(got)
			for id, at := range wantAt {
				if diff := cmp.Diff(at, gotAt[id]); diff != "" {
					t.Errorf("fork %s made at another entry (-once +twice):\n%s", id, diff)
				}
			}
			forksAt(before)
			for id, g := range got {
				w, ok := want[id]
				if ok && id == atB.SessionID {
					// The file of the path's session was replaced (its
					// format names sessions by file name): a session's
					// CreatedAt is not patched (doc.go).
					g.CreatedAt = w.CreatedAt
				}
				if !ok {
					w, ok = before[id] // its file is gone: as it was
				}
				if !ok {
					t.Errorf("session %s is in neither one import of the final files nor the first import", id)
					continue
				}
				if diff := cmp.Diff(w, g); diff != "" {
					if b, ok := before[id]; ok && cmp.Diff(b, g) == "" && keptWhole(rep, id) {
						// picoclaw: the .jsonl is gone and its .meta.json
						// stays; a file that holds less of the session
						// does not replace it (vanished.go).
						continue
					}
					t.Errorf("session %s (-want +got):\n%s", id, diff)
				}
			}
			for id := range want {
				if _, ok := got[id]; !ok {
					t.Errorf("session %s missing", id)
				}
			}
			if t.Failed() {
				t.Logf("second import: %+v", rep)
			}
		})
	}
}

// keptWhole reports whether rep says session id was kept whole because
// the file that would replace it holds less of it.
func keptWhole(rep Report, id string) bool {
	for _, n := range rep.Notes {
		if r := fmt.Sprint(n); strings.Contains(r, `session "`+id+`"`) && strings.Contains(r, "the session is kept whole") {
			return true
		}
	}
	return false
}

// twoSessionFiles returns two session files of one folder of the archive
// root, in name order.
func twoSessionFiles(t *testing.T, root string) (string, string) {
	t.Helper()
	byDir := map[string][]string{}
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		switch filepath.Base(path) {
		case "damaged.jsonl", "fork-of-branched.jsonl":
			return nil
		}
		dir := filepath.Dir(path)
		if byDir[dir] == nil {
			dirs = append(dirs, dir)
		}
		byDir[dir] = append(byDir[dir], path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if fs := byDir[d]; len(fs) >= 2 {
			return fs[0], fs[1]
		}
	}
	t.Fatalf("%s has no folder with two session files", root)
	return "", ""
}

// TestImportMetaLaterThenRewritten: a picoclaw .jsonl imported before its
// meta existed is named by its file (the reader's stand-in for the key);
// once the meta names the key and the file is rewritten, the import is
// still a replacement of that one session: a name no session has yet is
// not another session's file, and must not leave the old one beside a
// new one.
func TestImportMetaLaterThenRewritten(t *testing.T) {
	ctx := context.Background()
	const base = "agent_main_cli_direct_alice"
	data, err := os.ReadFile(filepath.Join("../testdata/picoclaw", base+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	meta, err := os.ReadFile(filepath.Join("../testdata/picoclaw", base+".meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	s := openStore(t)
	for _, step := range []func(){
		func() { write(base+".jsonl", data) },
		func() { write(base+".meta.json", meta); write(base+".jsonl", bytes.Join(lines[:2], nil)) },
		func() { write(base+".jsonl", data) },
	} {
		step()
		if _, err := Import(ctx, s, []string{dir}, Options{Jobs: 1}); err != nil {
			t.Fatal(err)
		}
	}
	list, _, err := s.List(ctx, sessiondb.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		var ids []string
		for _, x := range list {
			ids = append(ids, x.Session.ID)
		}
		t.Fatalf("sessions %q; want the one session of the file", ids)
	}
	full, err := s.LoadFull(ctx, list[0].Session.ID, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Transcript) != len(lines)-1 {
		t.Errorf("transcript of %d entries, want the file's %d lines", len(full.Transcript), len(lines)-1)
	}
}
