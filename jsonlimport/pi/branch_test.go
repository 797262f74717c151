package pi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
	"github.com/sessiondb/sessiondb/jsonlimport/pi"
)

// piBranchesExpected reads expected/<name>.branches.json: for every branch
// tip other than the leaf, what pi 0.73.1 resumes once /tree has moved the
// leaf there (gen.mjs branches). A file without branches has none.
func piBranchesExpected(t *testing.T, name string) map[string]piExpected {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(piTestdata, "expected", name+".branches.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var exp map[string]piExpected
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatal(err)
	}
	return exp
}

// piImportFixtures copies the pi fixtures into a temporary directory and
// imports them.
func piImportFixtures(t *testing.T, s sessiondb.Store) (string, jsonlimport.Report) {
	t.Helper()
	dir := t.TempDir()
	for _, f := range piFixtures(t) {
		jsonltest.CopyFile(t, f, filepath.Join(dir, filepath.Base(f)))
	}
	rep, err := jsonlimport.Import(context.Background(), s, []string{dir}, jsonlimport.Options{Format: pi.Name})
	if err != nil {
		t.Fatal(err)
	}
	return dir, rep
}

// piTranscript renders a session's effective transcript, filtered to Kind
// "message", as pi renders the entries it comes from.
func piTranscript(t *testing.T, s sessiondb.Store, id string) []any {
	t.Helper()
	tr, err := s.Load(context.Background(), id, sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage}})
	if err != nil {
		t.Fatal(err)
	}
	var got []any
	for _, e := range tr {
		got = append(got, piMessage(t, e))
	}
	return got
}

// TestPiBranchForks imports the fixtures pi's SessionManager wrote and
// checks every abandoned branch against pi itself: it is a fork session of
// the file's session, forked at the log position of the entry where the
// branch leaves the resumed path, and its transcript is, message for
// message, what pi's buildSessionContext returns after branch(tip).
func TestPiBranchForks(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	dir, rep := piImportFixtures(t, s)
	total := 0
	for _, f := range piFixtures(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		exp := piBranchesExpected(t, name)
		total += len(exp)
		t.Run(name, func(t *testing.T) {
			src, err := s.SourceFile(ctx, filepath.Join(dir, filepath.Base(f)))
			if err != nil {
				t.Fatal(err)
			}
			main := src.SessionID
			mainLog, err := s.Entries(ctx, main, 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			for tip, want := range exp {
				fork, err := s.Get(ctx, jsonl.BranchID(main, tip))
				if err != nil {
					t.Fatalf("branch %s: %v", tip, err)
				}
				if fork.ParentID != main || fork.SourceFormat != pi.Name {
					t.Fatalf("branch %s: parent %q format %q, want %q pi", tip, fork.ParentID, fork.SourceFormat, main)
				}
				var attrs struct {
					Branch struct{ Tip, From string } `json:"branch"`
					Model  any                        `json:"model"`
				}
				if err := json.Unmarshal(fork.Attrs, &attrs); err != nil {
					t.Fatal(err)
				}
				if attrs.Branch.Tip != tip {
					t.Fatalf("branch %s: attrs %s", tip, fork.Attrs)
				}
				if attrs.Branch.From != "" {
					if fork.ForkSeq < 1 || fork.ForkSeq > int64(len(mainLog)) {
						t.Fatalf("branch %s: ForkSeq %d outside the log (%d)", tip, fork.ForkSeq, len(mainLog))
					}
					var at struct {
						ID string `json:"id"`
					}
					_ = json.Unmarshal(mainLog[fork.ForkSeq-1].Body, &at)
					if at.ID != attrs.Branch.From {
						t.Fatalf("branch %s: ForkSeq %d is entry %q, want the branch point %q", tip, fork.ForkSeq, at.ID, attrs.Branch.From)
					}
				}
				if d := cmp.Diff(want.Messages, piTranscript(t, s, fork.ID)); d != "" {
					t.Fatalf("branch %s differs from pi's context at that tip (-pi +sessiondb):\n%s", tip, d)
				}
				if d := cmp.Diff(want.Model, attrs.Model); d != "" {
					t.Errorf("branch %s model (-pi +sessiondb):\n%s", tip, d)
				}
				// The fork's last log entry is the tip's line, so that an
				// export of it is a file pi resumes at the tip.
				flog, err := s.Entries(ctx, fork.ID, 1, 0)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Contains(flog[len(flog)-1].Body, []byte(`"id":"`+tip+`"`)) || !bytes.Equal(flog[0].Body, mainLog[0].Body) {
					t.Fatalf("branch %s: log does not run from the header to the tip", tip)
				}
				u, err := s.UsageTotals(ctx, fork.ID)
				if err != nil || u.Calls != 0 {
					t.Fatalf("branch %s: usage %+v %v; the calls are counted once, in the session", tip, u, err)
				}
			}
		})
	}
	if total == 0 {
		t.Fatal("no branches in the expected files; run testdata/gen/pi/gen.mjs branches")
	}
	if rep.Forks != total {
		t.Fatalf("report counts %d forks, pi has %d branch tips", rep.Forks, total)
	}
	all, _, err := s.List(ctx, sessiondb.ListOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, si := range all {
		if strings.Contains(si.ID, "@") {
			n++
		}
	}
	if n != total {
		t.Fatalf("%d fork sessions stored, want %d", n, total)
	}
}

// TestPiBranchForksReimport: importing again creates nothing; after pi
// continues an abandoned branch (the old leaf becomes a branch tip), a
// re-import adds exactly the fork of the old leaf and deletes the fork of
// the tip pi went on from (issue 38: one import of the grown file has no
// fork for it; its lines are the session's).
func TestPiBranchForksReimport(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	jsonltest.CopyFile(t, filepath.Join(piTestdata, "sessions", "branched.jsonl"), path)
	rep, err := jsonlimport.Import(ctx, s, []string{dir}, jsonlimport.Options{})
	if err != nil || rep.Forks != 1 {
		t.Fatalf("first import: %d forks, %v %+v", rep.Forks, err, rep.Problems)
	}
	rep, err = jsonlimport.Import(ctx, s, []string{dir}, jsonlimport.Options{})
	if err != nil || rep.Forks != 0 || rep.Unchanged != 1 {
		t.Fatalf("second import: %+v %v", rep, err)
	}
	src, err := s.SourceFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	main := src.SessionID
	exp := piBranchesExpected(t, "branched")
	var tip string
	for k := range exp {
		tip = k
	}
	if _, err := s.Get(ctx, jsonl.BranchID(main, tip)); err != nil {
		t.Fatal(err)
	}
	oldLeaf := readPiExpected(t, "branched").LeafID
	// pi appends under the abandoned tip: that line is the new leaf.
	line := fmt.Sprintf(`{"type":"message","id":"c0ffee01","parentId":%q,"timestamp":"2026-01-10T10:00:00.000Z","message":{"role":"user","content":"Back to the retry after all.","timestamp":1768039200000}}`, tip)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err = jsonlimport.Import(ctx, s, []string{dir}, jsonlimport.Options{})
	if err != nil || rep.Forks != 1 {
		t.Fatalf("import after the branch grew: %d forks, %v %+v", rep.Forks, err, rep.Problems)
	}
	if _, err := s.Get(ctx, jsonl.BranchID(main, tip)); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Fatalf("the fork of the tip pi continued is still there (%v)", err)
	}
	old, err := s.Get(ctx, jsonl.BranchID(main, oldLeaf))
	if err != nil || old.ParentID != main {
		t.Fatalf("no fork for the old leaf %s: %+v %v", oldLeaf, old, err)
	}
	// The old leaf's fork resumes what pi resumed before the branch grew.
	if d := cmp.Diff(readPiExpected(t, "branched").Messages, piTranscript(t, s, old.ID)); d != "" {
		t.Fatalf("old leaf's fork (-pi before +sessiondb):\n%s", d)
	}
	// And the session resumes the continued branch.
	got := piTranscript(t, s, main)
	want := append(append([]any{}, exp[tip].Messages...), map[string]any{"role": "user", "content": "Back to the retry after all.", "timestamp": float64(1768039200000)})
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("session after the branch grew (-want +got):\n%s", d)
	}
}

// TestPiContinuedForkWrittenToIsKept: the fork of a tip pi went on from is
// deleted only when it holds what the import gave it; one an application
// wrote to since is kept, with a problem.
func TestPiContinuedForkWrittenToIsKept(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	jsonltest.CopyFile(t, filepath.Join(piTestdata, "sessions", "branched.jsonl"), path)
	if _, err := jsonlimport.Import(ctx, s, []string{dir}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	src, err := s.SourceFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var tip string
	for k := range piBranchesExpected(t, "branched") {
		tip = k
	}
	fork := jsonl.BranchID(src.SessionID, tip)
	if _, err := s.Commit(ctx, fork, sessiondb.Commit{Append: []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"continued here"}`)}}); err != nil {
		t.Fatal(err)
	}
	jsonltest.Append(t, path, fmt.Sprintf(`{"type":"message","id":"c0ffee02","parentId":%q,"timestamp":"2026-01-10T10:00:00.000Z","message":{"role":"user","content":"Back to it.","timestamp":1768039200000}}`+"\n", tip))
	rep, err := jsonlimport.Import(ctx, s, []string{dir}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, fork); err != nil {
		t.Fatalf("a fork written to since its import was deleted: %v", err)
	}
	if !jsonltest.HasProblem(rep.Problems, "s.jsonl", 0, "kept") {
		t.Errorf("no problem says the fork was kept: %v", rep.Problems)
	}
}

// TestPiBranchForkIDTaken: a session that already holds a fork's ID and is
// not that fork is reported and kept; the session itself is imported.
func TestPiBranchForkIDTaken(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	jsonltest.CopyFile(t, filepath.Join(piTestdata, "sessions", "branched.jsonl"), path)
	main := piHeaderID(t, path)
	var tips []string
	for k := range piBranchesExpected(t, "branched") {
		tips = append(tips, k)
	}
	sort.Strings(tips)
	squatter := jsonl.BranchID(main, tips[0])
	if _, err := s.Create(ctx, sessiondb.Session{ID: squatter, Title: "mine"}); err != nil {
		t.Fatal(err)
	}
	rep, err := jsonlimport.Import(ctx, s, []string{dir}, jsonlimport.Options{})
	if err != nil || rep.Sessions != 1 || rep.Forks != len(tips)-1 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	found := false
	for _, p := range rep.Problems {
		found = found || strings.Contains(p.Reason, "is not a fork of")
	}
	if !found {
		t.Fatalf("taken fork ID not reported: %+v", rep.Problems)
	}
	got, err := s.Get(ctx, squatter)
	if err != nil || got.Title != "mine" || got.ParentID != "" {
		t.Fatalf("the existing session was changed: %+v %v", got, err)
	}
}

// TestPiBranchForkExport: a fork exported as a pi file is the header and
// the branch's lines, so that pi resumes the branch from it (checked by
// hand with gen.mjs check, like the other exports); here, importing the
// export gives a session whose transcript is pi's context at the tip.
func TestPiBranchForkExport(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	dir, _ := piImportFixtures(t, s)
	main := piHeaderID(t, filepath.Join(dir, "compaction-branch.jsonl"))
	exp := piBranchesExpected(t, "compaction-branch")
	var ids []string
	for tip := range exp {
		ids = append(ids, jsonl.BranchID(main, tip))
	}
	sort.Strings(ids)
	ids = append(ids, main)
	out := t.TempDir()
	files, err := jsonlimport.Export(ctx, s, ids, pi.Name, out)
	if err != nil || len(files) != len(ids) {
		t.Fatalf("export: %v %v", files, err)
	}
	for i, f := range files[:len(exp)] {
		tip := strings.TrimPrefix(ids[i], main+"@")
		if !strings.HasSuffix(f, "_"+tip+".jsonl") {
			t.Fatalf("fork %s exported as %s", ids[i], f)
		}
		s2 := jsonltest.OpenStore(t)
		rep, err := jsonlimport.Import(ctx, s2, []string{f}, jsonlimport.Options{})
		if err != nil || rep.Sessions != 1 || rep.Forks != 0 {
			t.Fatalf("re-import %s: %+v %v", f, rep, err)
		}
		if d := cmp.Diff(exp[tip].Messages, piTranscript(t, s2, main)); d != "" {
			t.Fatalf("export of branch %s resumes (-pi +sessiondb):\n%s", tip, d)
		}
	}
}

// TestPiBranchForksBounded: a hostile file with thousands of tips on long
// paths (each fork copies its path) gets a bounded number of forks and
// copies, a note naming the rest, and every line in the session's log.
func TestPiBranchForksBounded(t *testing.T) {
	const depth = 3000
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"b0b0b0b0-0000-4000-8000-000000000001","timestamp":"2026-01-10T09:00:00.000Z","cwd":"/p"}` + "\n")
	line := func(id, parent string) {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-01-10T09:00:01.000Z","message":{"role":"user","content":"x","timestamp":1768035601000}}`+"\n", id, p)
	}
	// A chain c0…c(depth-1) with a side leaf s(i) under each c(i); the
	// last line continues the chain, so the side leaves are the tips.
	for i := range depth {
		parent := ""
		if i > 0 {
			parent = fmt.Sprintf("c%d", i-1)
		}
		line(fmt.Sprintf("c%d", i), parent)
		line(fmt.Sprintf("s%d", i), fmt.Sprintf("c%d", i))
	}
	line("end", fmt.Sprintf("c%d", depth-1))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hostile.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := jsonltest.OpenStore(t)
	rep, err := jsonlimport.Import(context.Background(), s, []string{dir}, jsonlimport.Options{})
	if err != nil || rep.Sessions != 1 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	if rep.Forks == 0 || rep.Forks >= depth {
		t.Fatalf("%d forks of %d tips: want some, bounded", rep.Forks, depth)
	}
	noted := false
	for _, n := range rep.Notes {
		noted = noted || strings.Contains(n.Reason, fmt.Sprintf("%d of %d branch tips made fork sessions", rep.Forks, depth))
	}
	if !noted {
		t.Fatalf("bound not noted: %+v", rep.Notes)
	}
	id := "b0b0b0b0-0000-4000-8000-000000000001"
	sess, err := s.Get(context.Background(), id)
	if err != nil || sess.LastSeq != 2*depth+2 {
		t.Fatalf("session log %d entries, want %d (%v)", sess.LastSeq, 2*depth+2, err)
	}
	var attrs struct {
		Branches    []map[string]string `json:"branches"`
		BranchCount int                 `json:"branchCount"`
	}
	if err := json.Unmarshal(sess.Attrs, &attrs); err != nil {
		t.Fatal(err)
	}
	if len(attrs.Branches) != pi.MaxBranches || attrs.BranchCount != depth {
		t.Fatalf("attrs list %d tips, count %d; want %d and %d", len(attrs.Branches), attrs.BranchCount, pi.MaxBranches, depth)
	}
	copies := 0
	all, _, err := s.List(context.Background(), sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	for _, si := range all {
		if si.ID != id {
			full, err := s.Get(context.Background(), si.ID)
			if err != nil {
				t.Fatal(err)
			}
			copies += int(full.LastSeq)
		}
	}
	if copies > pi.MaxForkCopies {
		t.Fatalf("forks copied %d entries, bound %d", copies, pi.MaxForkCopies)
	}
	// The forks made are those of the first tips, each its own path.
	f, err := s.Get(context.Background(), jsonl.BranchID(id, "s0"))
	if err != nil || f.LastSeq != 3 {
		t.Fatalf("fork of s0: %+v %v", f, err)
	}
}
