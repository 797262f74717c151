package swink_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
	"github.com/sessiondb/sessiondb/jsonlimport/swink"
)

// The swink samples (copied from samples/swink) and what swink's own read
// paths return for them.
var (
	swinkDir         = filepath.Join("..", "..", "testdata", "swink")
	swinkSessionsDir = filepath.Join(swinkDir, "sessions")
)

type swinkExpectedLoad struct {
	OK                   bool     `json:"ok"`
	ErrorMessageContains string   `json:"error_message_contains"`
	Messages             []string `json:"messages"`
	MetaVersion          int      `json:"meta_version"`
	MetaSequence         int64    `json:"meta_sequence"`
}

type swinkExpectedSession struct {
	ListMeta struct {
		ID        string `json:"id"`
		Title     string `json:"title"`
		CreatedAt string `json:"created_at"`
		UpdatedAt string `json:"updated_at"`
		Version   int    `json:"version"`
		Sequence  int64  `json:"sequence"`
	} `json:"list_meta"`
	Skipped      []string          `json:"lines_skipped_while_reading"`
	LoadNoReg    swinkExpectedLoad `json:"load_no_registry"`
	LoadApproval swinkExpectedLoad `json:"load_registry_approval_request_only"`
	LoadEntries  struct {
		OK         bool     `json:"ok"`
		EntryTypes []string `json:"entry_types"`
	} `json:"load_entries"`
	IdentityMigrator *swinkExpectedLoad `json:"load_with_identity_migrator_0_to_1"`
	LoadState        json.RawMessage    `json:"load_state"`
	LoadInterrupt    *struct {
		InterruptedAt        int64    `json:"interrupted_at"`
		PendingToolCallIDs   []string `json:"pending_tool_call_ids"`
		ContextSnapshotRoles []string `json:"context_snapshot_roles"`
	} `json:"load_interrupt"`
}

type swinkExpected struct {
	ListOrder []string                        `json:"list_order_newest_first"`
	Sessions  map[string]swinkExpectedSession `json:"sessions"`
}

func loadSwinkExpected(t *testing.T) swinkExpected {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(swinkDir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp swinkExpected
	if err := json.Unmarshal(b, &exp); err != nil {
		t.Fatal(err)
	}
	if len(exp.Sessions) != 10 {
		t.Fatalf("expected.json lists %d sessions, want the 10 samples", len(exp.Sessions))
	}
	return exp
}

// swinkFiles returns the sorted absolute paths of the files in dir.
func swinkFiles(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		if de.Type().IsRegular() {
			p, err := filepath.Abs(filepath.Join(dir, de.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// swinkUnits claims the sample sessions directory and returns the units by
// session ID.
func swinkUnits(t *testing.T, dir string) map[string]jsonl.Unit {
	t.Helper()
	units, rest := swink.Format{}.Claim(swinkFiles(t, dir))
	if len(rest) != 0 {
		t.Fatalf("Claim left %v unclaimed", rest)
	}
	out := map[string]jsonl.Unit{}
	for _, u := range units {
		out[strings.TrimSuffix(filepath.Base(u.Path), ".jsonl")] = u
	}
	return out
}

// swinkSourceLines are the 1-based lines of each sample that swink's load
// path turns into transcript records (messages, rich entries, custom
// messages), in order: worked out by hand from README.md, independently of
// the reader.
var swinkSourceLines = map[string][]int{
	"20250315_120000": {2, 3},
	"20250902_075959_f4d06e394e5745529753da322fa6aa18": {2, 3},
	"20260311_091502_34ef2e9836034a47aec954e72d724bf1": {2, 3, 4, 5},
	// S2: lines 4 and 8 are _append markers, 7 and 13 _meta commits.
	"20260312_160744_21fee71e81d14816b55bfd9862e4e959": {2, 3, 5, 6, 9, 10, 11, 12},
	// S3: 3 and 5 are _custom messages, 6 the state.
	"20260313_101930_34223518c14c47f0b8b418558e887f3c": {2, 3, 4, 5},
	// S4: 8–10 are the uncommitted block.
	"20260314_220105_2034dee4572f40c1848c4afb1cf228d1": {2, 3, 5, 6},
	"20260315_083317_52c4d9d4beff4d88af6bbfa1dd98c055": {2, 3, 5, 6},
	// S6: 4 torn JSON, 5 invalid UTF-8, 7 torn tail.
	"20260316_121212_ee1027bc05024a3ca5f4e9a32ed4a813": {2, 3, 6},
	// S7: 9 is the _append marker, 12 the commit.
	"20260317_174501_c91b44d890a644e38d8112176828e8cc": {2, 3, 4, 5, 6, 7, 8, 10, 11},
	"20260318_070000_04f969d8510a49cf944e50fe80fb768d": nil,
}

// swinkFileLines splits a file into its lines as swink does.
func swinkFileLines(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

// swinkKindName is the kind/role name expected.json uses for an entry as
// swink's load() would return it: the role for a message, "custom:<type>"
// for a custom message.
func swinkKindName(t *testing.T, e sessiondb.Entry) string {
	t.Helper()
	var v struct {
		Role string `json:"role"`
		Type string `json:"type"`
	}
	if err := json.Unmarshal(e.Body, &v); err != nil {
		t.Fatalf("body %s: %v", e.Body, err)
	}
	if e.Kind == sessiondb.KindCustom {
		return "custom:" + v.Type
	}
	return v.Role
}

// swinkLoadView returns what swink's load(id, registry) returns for parsed
// entries: messages, plus the custom messages whose type the registry knows.
func swinkLoadView(t *testing.T, entries []sessiondb.Entry, registry ...string) []string {
	t.Helper()
	var out []string
	for _, e := range entries {
		switch e.Kind {
		case sessiondb.KindMessage:
			out = append(out, swinkKindName(t, e))
		case sessiondb.KindCustom:
			if n := swinkKindName(t, e); slices.Contains(registry, strings.TrimPrefix(n, "custom:")) {
				out = append(out, n)
			}
		}
	}
	return out
}

// swinkEntryTypes returns what swink's load_entries() reports: every entry
// but the custom messages, by entry type.
func swinkEntryTypes(entries []sessiondb.Entry) []string {
	var out []string
	for _, e := range entries {
		switch e.Kind {
		case sessiondb.KindCustom:
		case swink.KindCustomEntry:
			out = append(out, "custom")
		default:
			out = append(out, e.Kind)
		}
	}
	return out
}

func swinkTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func swinkJSONEqual(t *testing.T, got, want []byte) bool {
	t.Helper()
	return swink.JSONEqual(got, want)
}

// TestSwinkParseGolden checks the reader against expected.json for every
// sample, including the two that swink refuses to load.
func TestSwinkParseGolden(t *testing.T) {
	exp := loadSwinkExpected(t)
	units := swinkUnits(t, swinkSessionsDir)
	if len(units) != len(exp.Sessions) {
		t.Fatalf("Claim found %d sessions, expected.json has %d", len(units), len(exp.Sessions))
	}
	matched := 0
	for id, want := range exp.Sessions {
		t.Run(id, func(t *testing.T) {
			u, ok := units[id]
			if !ok {
				t.Fatalf("no unit for %s", id)
			}
			p, err := swink.Format{}.Parse(context.Background(), u, jsonl.Resume{})

			// S10: a newer schema version is refused, never guessed.
			if !want.LoadNoReg.OK && strings.Contains(want.LoadNoReg.ErrorMessageContains, "unsupported session version") {
				if err == nil {
					t.Fatalf("Parse succeeded, swink fails with %q", want.LoadNoReg.ErrorMessageContains)
				}
				if !errors.Is(err, swink.ErrVersion) || !errors.Is(err, sessiondb.ErrInvalid) {
					t.Errorf("error %v does not wrap ErrSwinkVersion and ErrInvalid", err)
				}
				if !strings.Contains(err.Error(), want.LoadNoReg.ErrorMessageContains) {
					t.Errorf("error %q does not contain swink's %q", err, want.LoadNoReg.ErrorMessageContains)
				}
				if p != nil && len(p.Entries) != 0 {
					t.Errorf("refused unit still carries %d entries", len(p.Entries))
				}
				if !t.Failed() {
					matched++
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}

			// Metadata: list_meta is the last committed meta.
			lm := want.ListMeta
			s := p.Session
			if s.ID != lm.ID || s.Title != lm.Title || !s.CreatedAt.Equal(swinkTime(t, lm.CreatedAt)) ||
				!s.UpdatedAt.Equal(swinkTime(t, lm.UpdatedAt)) || s.Version != lm.Version {
				t.Errorf("session = %+v, want list_meta %+v", s, lm)
			}
			var attrs struct {
				Seq int64 `json:"swink_sequence"`
			}
			if err := json.Unmarshal(s.Attrs, &attrs); err != nil || attrs.Seq != lm.Sequence {
				t.Errorf("attrs %s: swink_sequence want %d (%v)", s.Attrs, lm.Sequence, err)
			}

			// Transcript.
			load := want.LoadNoReg
			approval := want.LoadApproval
			if !load.OK {
				// S9: version 0 without a migrator. Decision: imported
				// unmigrated (Version 0) with a Problem; the transcript
				// is the identity-migrator one.
				if want.IdentityMigrator == nil || !strings.Contains(load.ErrorMessageContains, "no migrator found for version 0 -> 1") {
					t.Fatalf("unexpected failure kind in expected.json: %+v", load)
				}
				if !swinkHasProblem(p.Problems, 0, "SessionMigrator") {
					t.Errorf("no Problem about the missing migrator: %v", p.Problems)
				}
				if s.Version != 0 {
					t.Errorf("version %d, want 0 kept", s.Version)
				}
				if want.IdentityMigrator.MetaSequence != attrs.Seq {
					t.Errorf("sequence %d, want %d", attrs.Seq, want.IdentityMigrator.MetaSequence)
				}
				load = *want.IdentityMigrator
				approval = *want.IdentityMigrator
			}
			if got := swinkLoadView(t, p.Entries); !cmp.Equal(got, load.Messages, swinkCmpEmpty) {
				t.Errorf("load(no registry) = %v, want %v", got, load.Messages)
			}
			if got := swinkLoadView(t, p.Entries, "approval_request"); !cmp.Equal(got, approval.Messages, swinkCmpEmpty) {
				t.Errorf("load(registry approval_request) = %v, want %v", got, approval.Messages)
			}
			if want.LoadEntries.OK {
				if got := swinkEntryTypes(p.Entries); !cmp.Equal(got, want.LoadEntries.EntryTypes, swinkCmpEmpty) {
					t.Errorf("load_entries = %v, want %v", got, want.LoadEntries.EntryTypes)
				}
			}

			// Bodies: the exact bytes of their source lines (the "data" of a
			// tagged message line).
			lines := swinkFileLines(t, u.Path)
			src := swinkSourceLines[id]
			if len(p.Entries) != len(src) {
				t.Fatalf("%d entries, want %d from lines %v", len(p.Entries), len(src), src)
			}
			for i, e := range p.Entries {
				line := lines[src[i]-1]
				wantBody := line
				var env struct {
					EntryType string          `json:"entry_type"`
					Data      json.RawMessage `json:"data"`
				}
				if json.Unmarshal(line, &env) == nil && env.EntryType == "message" {
					wantBody = env.Data
				}
				if !bytes.Equal(e.Body, wantBody) {
					t.Errorf("entry %d body:\n got %s\nwant %s (line %d)", i+1, e.Body, wantBody, src[i])
				}
				if !swinkJSONEqual(t, e.Body, wantBody) {
					t.Errorf("entry %d: body differs as a JSON value", i+1)
				}
				if err := sessiondb.ValidateEntry(e); err != nil {
					t.Errorf("entry %d: %v", i+1, err)
				}
				if e.CreatedAt.IsZero() {
					t.Errorf("entry %d has no time", i+1)
				}
			}

			// State and interrupt.
			if string(want.LoadState) == "null" {
				if p.State != nil {
					t.Errorf("state %s, want none", p.State)
				}
			} else if p.State == nil || !swinkJSONEqual(t, p.State, want.LoadState) {
				t.Errorf("state %s, want %s", p.State, want.LoadState)
			}
			if want.LoadInterrupt == nil {
				if p.Interrupt != nil {
					t.Errorf("interrupt %s, want none", p.Interrupt)
				}
			} else {
				raw, err := os.ReadFile(strings.TrimSuffix(u.Path, ".jsonl") + ".interrupt.json")
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(p.Interrupt, raw) {
					t.Errorf("interrupt is not the file's exact bytes")
				}
				var in struct {
					InterruptedAt    int64 `json:"interrupted_at"`
					PendingToolCalls []struct {
						ID string `json:"tool_call_id"`
					} `json:"pending_tool_calls"`
					ContextSnapshot []struct {
						Role string `json:"role"`
					} `json:"context_snapshot"`
				}
				if err := json.Unmarshal(p.Interrupt, &in); err != nil {
					t.Fatal(err)
				}
				var ids, roles []string
				for _, c := range in.PendingToolCalls {
					ids = append(ids, c.ID)
				}
				for _, m := range in.ContextSnapshot {
					roles = append(roles, m.Role)
				}
				wi := want.LoadInterrupt
				if in.InterruptedAt != wi.InterruptedAt || !cmp.Equal(ids, wi.PendingToolCallIDs) || !cmp.Equal(roles, wi.ContextSnapshotRoles) {
					t.Errorf("interrupt = %d %v %v, want %+v", in.InterruptedAt, ids, roles, *wi)
				}
			}

			// Problems: every line swink skips, and nothing else.
			checkSwinkSkipped(t, p, want.Skipped, lines, !load.OK || want.IdentityMigrator != nil)
			if !t.Failed() {
				matched++
			}
		})
	}
	if matched != len(exp.Sessions) {
		t.Errorf("%d of %d samples match expected.json", matched, len(exp.Sessions))
	}
	t.Logf("%d of %d swink samples match expected.json", matched, len(exp.Sessions))
}

var swinkCmpEmpty = cmp.Transformer("nilToEmpty", func(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
})

func swinkHasProblem(ps []jsonl.Problem, line int, substr string) bool {
	for _, p := range ps {
		if p.Line == line && strings.Contains(p.Reason, substr) {
			return true
		}
	}
	return false
}

// checkSwinkSkipped matches the Problems against expected.json's
// lines_skipped_while_reading.
func checkSwinkSkipped(t *testing.T, p *jsonl.Parsed, skipped []string, lines [][]byte, versionProblem bool) {
	t.Helper()
	want := len(skipped)
	if versionProblem {
		want++
	}
	if len(p.Problems) != want {
		t.Errorf("%d problems %v, want %d for %v", len(p.Problems), p.Problems, want, skipped)
	}
	for _, pr := range p.Problems {
		if pr.Path != p.Unit.Path {
			t.Errorf("problem %v: path %q, want %q", pr, pr.Path, p.Unit.Path)
		}
	}
	for _, s := range skipped {
		switch {
		case strings.HasPrefix(s, "line "):
			var n int
			rest := strings.TrimPrefix(s, "line ")
			i := strings.IndexByte(rest, ':')
			if _, err := swinkAtoi(rest[:i], &n); err != nil {
				t.Fatalf("bad expected entry %q", s)
			}
			if !swinkHasProblem(p.Problems, n, "invalid UTF-8") {
				t.Errorf("no invalid UTF-8 problem at line %d: %v", n, p.Problems)
			}
		case strings.HasPrefix(s, "uncommitted append discarded"):
			found := false
			for _, pr := range p.Problems {
				if strings.Contains(pr.Reason, s) && pr.Line > 0 && bytes.Contains(lines[pr.Line-1], []byte(`"_append":true`)) {
					found = true
				}
			}
			if !found {
				t.Errorf("no problem %q at its _append marker: %v", s, p.Problems)
			}
		case strings.HasPrefix(s, "unparseable line skipped: "):
			prefix := strings.TrimSuffix(strings.TrimPrefix(s, "unparseable line skipped: "), "...")
			n := 0
			for i, l := range lines {
				if bytes.HasPrefix(l, []byte(prefix)) && !json.Valid(l) {
					n = i + 1
				}
			}
			if n == 0 || !swinkHasProblem(p.Problems, n, "not JSON") {
				t.Errorf("no not-JSON problem for %q (line %d): %v", s, n, p.Problems)
			}
		default:
			t.Fatalf("unknown expected skip %q", s)
		}
	}
}

func swinkAtoi(s string, n *int) (int, error) {
	v := 0
	if s == "" {
		return 0, errors.New("empty")
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, errors.New("not a number")
		}
		v = v*10 + int(c-'0')
	}
	*n = v
	return 1, nil
}

// TestSwinkCheckpoint checks the sample checkpoint C1.
func TestSwinkCheckpoint(t *testing.T) {
	const sid = "20260313_101930_34223518c14c47f0b8b418558e887f3c"
	units := swinkUnits(t, swinkSessionsDir)
	u := units[sid]
	cpPath, _ := filepath.Abs(filepath.Join(swinkDir, "checkpoints", sid+"-turn-1.json"))
	intPath, _ := filepath.Abs(filepath.Join(swinkSessionsDir, sid+".interrupt.json"))
	if !cmp.Equal(u.Extra, []string{intPath, cpPath}) {
		t.Fatalf("Extra = %v, want interrupt and checkpoint", u.Extra)
	}
	for id, o := range units {
		if id != sid && len(o.Extra) != 0 {
			t.Errorf("%s got side files %v", id, o.Extra)
		}
	}
	p, err := swink.Format{}.Parse(context.Background(), u, jsonl.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Checkpoints) != 1 {
		t.Fatalf("%d checkpoints, want 1 (problems %v)", len(p.Checkpoints), p.Problems)
	}
	raw, err := os.ReadFile(cpPath)
	if err != nil {
		t.Fatal(err)
	}
	cp := p.Checkpoints[0]
	if cp.ID != sid+"-turn-1" || cp.SessionID != sid || cp.Label != "turn-1" {
		t.Errorf("checkpoint id/session/label = %q %q %q", cp.ID, cp.SessionID, cp.Label)
	}
	if !cp.CreatedAt.Equal(time.Unix(1773397291, 0)) {
		t.Errorf("created %v", cp.CreatedAt)
	}
	if !bytes.Equal(cp.Metadata, raw) {
		t.Errorf("metadata is not the whole original file")
	}
	var doc struct {
		State json.RawMessage `json:"state"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(cp.State, doc.State) || !swinkJSONEqual(t, cp.State, p.State) {
		t.Errorf("checkpoint state %s, want %s", cp.State, doc.State)
	}
	// The checkpoint's 4 messages (user, ui_notice, assistant,
	// approval_request in message_order) are the session's 4 entries.
	if cp.AtSeq != 4 {
		t.Errorf("AtSeq %d, want 4", cp.AtSeq)
	}
	if len(p.Problems) != 0 {
		t.Errorf("problems: %v", p.Problems)
	}
}

// TestSwinkClaim checks what Claim takes and what it leaves.
func TestSwinkClaim(t *testing.T) {
	root := t.TempDir()
	sess := filepath.Join(root, "sessions")
	cps := filepath.Join(root, "checkpoints")
	for _, d := range []string{sess, cps, filepath.Join(sess, ".search_index")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	header := `{"id":"a","title":"t","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","version":1,"sequence":1}` + strings.Repeat(" ", 64) + "\n"
	write := func(p, s string) string {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write(filepath.Join(sess, "a.jsonl"), header)
	ab := write(filepath.Join(sess, "a-b.jsonl"), strings.Replace(header, `"id":"a"`, `"id":"a-b"`, 1))
	aInt := write(filepath.Join(sess, "a.interrupt.json"), "{}")
	orphan := write(filepath.Join(sess, "zz.interrupt.json"), "{}")
	tmp := write(filepath.Join(sess, ".tmpAbC123"), header)
	badHeader := write(filepath.Join(sess, "bad.jsonl"), `{"id":"bad","title":"t"}`+"\n")
	empty := write(filepath.Join(sess, "empty.jsonl"), "")
	notSwink := write(filepath.Join(sess, "other.jsonl"), `{"role":"user","content":"hi"}`+"\n")
	badID := write(filepath.Join(sess, "x..y.jsonl"), header)
	idx := write(filepath.Join(sess, ".search_index", "meta.json"), "{}")
	cpA := write(filepath.Join(cps, "a-turn-1.json"), "{}")
	cpAB := write(filepath.Join(cps, "a-b-rolling.json"), "{}")
	cpNone := write(filepath.Join(cps, "rolling.json"), "{}")
	cpOther := write(filepath.Join(cps, "q-turn-1.json"), "{}")

	units, rest := swink.Format{}.Claim([]string{ab, aInt, a, badHeader, empty, notSwink, tmp, badID, orphan})
	want := []jsonl.Unit{
		{Format: swink.Name, Path: ab, Extra: []string{cpAB}},
		{Format: swink.Name, Path: a, Extra: []string{aInt, cpA}},
	}
	if diff := cmp.Diff(want, units); diff != "" {
		t.Errorf("units (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{badHeader, empty, notSwink, tmp, badID, orphan}, rest); diff != "" {
		t.Errorf("rest (-want +got):\n%s", diff)
	}

	// The checkpoints directory on its own: the files of known sessions are
	// taken (they travel with their session's unit), the others are left.
	units, rest = swink.Format{}.Claim([]string{cpAB, cpA, cpNone, cpOther})
	if len(units) != 0 || !cmp.Equal(rest, []string{cpNone, cpOther}) {
		t.Errorf("checkpoints dir: units %v rest %v", units, rest)
	}
	// swink's search index is opaque.
	units, rest = swink.Format{}.Claim([]string{idx})
	if len(units) != 0 || len(rest) != 0 {
		t.Errorf("search index: units %v rest %v", units, rest)
	}
}

// TestSwinkResumeNotIncremental: swink rewrites its header in place.
func TestSwinkResumeNotIncremental(t *testing.T) {
	for _, u := range swinkUnits(t, swinkSessionsDir) {
		if _, err := (swink.Format{}).Parse(context.Background(), u, jsonl.Resume{Offset: 10, Entries: 1}); !errors.Is(err, jsonl.ErrNotIncremental) {
			t.Errorf("%s: Parse with offset: %v, want ErrNotIncremental", u.Path, err)
		}
	}
}

// TestSwinkOffset: Offset is the end of the last complete line; a torn last
// line is not consumed.
func TestSwinkOffset(t *testing.T) {
	units := swinkUnits(t, swinkSessionsDir)
	for id, u := range units {
		b, err := os.ReadFile(u.Path)
		if err != nil {
			t.Fatal(err)
		}
		want := int64(bytes.LastIndexByte(b, '\n') + 1)
		p, err := swink.Format{}.Parse(context.Background(), u, jsonl.Resume{})
		if p == nil {
			continue // the refused newer version
		}
		if p.Offset != want {
			t.Errorf("%s: offset %d, want %d (size %d, err %v)", id, p.Offset, want, len(b), err)
		}
	}
}

const swinkTestHeader = `{"id":"ignored","title":"T","created_at":"2026-03-01T10:00:00.5Z","updated_at":"2026-03-01T10:05:00Z","version":1,"sequence":1}`

const (
	swUser = `{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1773000000}`
	swAsst = `{"role":"assistant","content":[{"type":"text","text":"yo"}],"provider":"p","model_id":"m","usage":{"input":3,"output":4,"cache_read":1,"cache_write":2,"total":10},"cost":{"input":0.1,"output":0.2,"cache_read":0.0,"cache_write":0.0,"total":0.3},"stop_reason":"stop","error_message":null,"timestamp":1773000001}`
)

func swMetaLine(seq int, updated string) string {
	return `{"_meta":true,"data":{"created_at":"2026-03-01T10:00:00.5Z","id":"x","sequence":` + swinkItoa(seq) + `,"title":"T2","updated_at":"` + updated + `","version":1}}`
}

func swinkItoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// parseSwinkString writes content as <dir>/sessions/s.jsonl and parses it.
func parseSwinkString(t *testing.T, content string) (*jsonl.Parsed, error) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return swink.Format{}.Parse(context.Background(), jsonl.Unit{Format: swink.Name, Path: path}, jsonl.Resume{})
}

// TestSwinkRecovery covers swink's read rules on synthetic files.
func TestSwinkRecovery(t *testing.T) {
	type want struct {
		bodies   []string // entry bodies
		kinds    []string // entry kinds, when checked
		state    string   // "" for none
		title    string
		seq      int64
		problems []int // lines with a problem (0: whole file)
		reasons  []string
	}
	h := swinkTestHeader + "\n"
	tests := []struct {
		name    string
		content string
		want    want
	}{
		{"plain", h + swUser + "\n" + swAsst + "\n",
			want{bodies: []string{swUser, swAsst}, title: "T", seq: 1}},
		{"crlf and torn final complete record", h + swUser + "\r\n" + swAsst,
			want{bodies: []string{swUser, swAsst}, title: "T", seq: 1}},
		{"committed append", h + swUser + "\n" + `{"_append":true,"phase":"begin"}` + "\n" + swAsst + "\n" + swMetaLine(2, "2026-03-01T10:06:00Z") + "\n",
			want{bodies: []string{swUser, swAsst}, title: "T2", seq: 2}},
		{"uncommitted append", h + swUser + "\n" + `{"_append":true,"phase":"begin"}` + "\n" + swAsst + "\n",
			want{bodies: []string{swUser}, title: "T", seq: 1, problems: []int{3}, reasons: []string{"uncommitted append discarded (1 lines)"}}},
		{"nested append", h + `{"_append":true}` + "\n" + swUser + "\n" + `{"_append":true,"phase":"begin"}` + "\n" + swAsst + "\n" + swMetaLine(2, "2026-03-01T10:06:00Z") + "\n",
			want{bodies: []string{swAsst}, title: "T2", seq: 2, problems: []int{2}, reasons: []string{"nested append marker at line 4"}}},
		{"commit without begin", h + swUser + "\n" + swMetaLine(5, "2026-03-01T10:06:00Z") + "\n",
			want{bodies: []string{swUser}, title: "T2", seq: 5}},
		{"last commit wins", h + swMetaLine(7, "2026-03-01T10:06:00Z") + "\n" + swMetaLine(3, "2026-03-01T10:07:00Z") + "\n",
			want{title: "T2", seq: 3}},
		{"meta with bad data is skipped", h + `{"_meta":true,"data":{"id":"x"}}` + "\n",
			want{title: "T", seq: 1, problems: []int{2}, reasons: []string{"not a SessionMeta"}}},
		{"state first wins", h + `{"_state":true,"data":{"a":1}}` + "\n" + `{"_state":true,"data":{"a":2}}` + "\n",
			want{state: `{"a":1}`, title: "T", seq: 1, problems: []int{3}, reasons: []string{"additional state line"}}},
		{"corrupt state line", h + `{"_state":true,"data":` + "\n" + `{"_state":true,"data":{"a":2}}` + "\n",
			want{title: "T", seq: 1, problems: []int{2, 2, 3}, reasons: []string{"corrupted state line", "not JSON", "additional state line"}}},
		{"state marker not true", h + `{"_state":1,"data":{}}` + "\n",
			want{title: "T", seq: 1, problems: []int{2, 2}, reasons: []string{"invalid state marker", "not a valid swink message"}}},
		{"uncommitted state", h + `{"_append":true}` + "\n" + `{"_state":true,"data":{"a":1}}` + "\n",
			want{title: "T", seq: 1, problems: []int{2}, reasons: []string{"uncommitted append discarded (1 lines)"}}},
		{"custom messages", h + `{"_custom":true,"data":{"x":1},"type":"note"}` + "\n" + `{"_custom":true,"data":{}}` + "\n",
			want{bodies: []string{`{"_custom":true,"data":{"x":1},"type":"note"}`}, kinds: []string{"custom"}, title: "T", seq: 1, problems: []int{3}, reasons: []string{"without a string type"}}},
		{"rich entries", h + `{"entry_type":"message","data":` + swUser + `}` + "\n" +
			`{"entry_type":"custom","data":{"type_name":"g","data":{"k":1},"timestamp":5}}` + "\n" +
			`{"entry_type":"label","data":{"text":"x","message_index":0,"timestamp":6}}` + "\n" +
			`{"entry_type":"future","data":{}}` + "\n" +
			`{"entry_type":"label","data":{"text":"x","timestamp":6}}` + "\n",
			want{
				bodies:   []string{swUser, `{"entry_type":"custom","data":{"type_name":"g","data":{"k":1},"timestamp":5}}`, `{"entry_type":"label","data":{"text":"x","message_index":0,"timestamp":6}}`},
				kinds:    []string{"message", "custom_entry", "label"},
				title:    "T",
				seq:      1,
				problems: []int{5, 6},
				reasons:  []string{`unknown entry_type "future"`, `missing field "message_index"`},
			}},
		{"strict messages", h +
			`{"role":"user","content":"hi","timestamp":1}` + "\n" +
			`{"role":"robot","content":[],"timestamp":1}` + "\n" +
			`{"role":"user","content":[],"timestamp":1.5}` + "\n" +
			`{"role":"user","content":[],"timestamp":-1}` + "\n" +
			`{"role":"user","content":[{"type":"tool_call","id":"a","name":"b"}],"timestamp":1}` + "\n" +
			`{"role":"user","content":[],"timestamp":1,"timestamp":2}` + "\n" +
			`{"role":"user","content":[{"type":"text","text":"\ud800"}],"timestamp":1}` + "\n" +
			`{"role":"user","content":[],"timestamp":1,"extra_field":true}` + "\n" +
			`{"role":"user","content":[{"type":"text","text":"\ud83d\ude00"}],"timestamp":1}` + "\n" +
			`[1,2]` + "\n" +
			"   \n",
			want{
				bodies:   []string{`{"role":"user","content":[],"timestamp":1,"extra_field":true}`, `{"role":"user","content":[{"type":"text","text":"\ud83d\ude00"}],"timestamp":1}`},
				title:    "T",
				seq:      1,
				problems: []int{2, 3, 4, 5, 6, 7, 8, 11, 12},
				reasons:  []string{"expected an array", `unknown role "robot"`, "unsigned integer", "unsigned integer", `missing field "arguments"`, "duplicate field", "lone leading surrogate", "not a JSON object", "blank line"},
			}},
		{"deep nesting", h + `{"role":"user","content":[{"type":"tool_call","id":"a","name":"b","arguments":` + strings.Repeat("[", 130) + strings.Repeat("]", 130) + `}],"timestamp":1}` + "\n",
			want{title: "T", seq: 1, problems: []int{2}, reasons: []string{"recursion limit"}}},
		{"invalid utf8 and torn tail", h + swUser + "\n" + "{\"x\":\"\xbf\"}\n" + `{"role":"user","con`,
			want{bodies: []string{swUser}, title: "T", seq: 1, problems: []int{3, 4}, reasons: []string{"invalid UTF-8", "torn last line"}}},
		{"header only, no newline", swinkTestHeader,
			want{title: "T", seq: 1}},
		{"old version", strings.Replace(h, `"version":1`, `"version":0`, 1) + swUser + "\n",
			want{bodies: []string{swUser}, title: "T", seq: 1, problems: []int{0}, reasons: []string{"SessionMigrator"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parseSwinkString(t, tc.content)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			var bodies, kinds []string
			for _, e := range p.Entries {
				bodies = append(bodies, string(e.Body))
				kinds = append(kinds, e.Kind)
				if err := sessiondb.ValidateEntry(e); err != nil {
					t.Errorf("entry %s: %v", e.Body, err)
				}
			}
			if !cmp.Equal(bodies, tc.want.bodies, swinkCmpEmpty) {
				t.Errorf("bodies:\n got %q\nwant %q", bodies, tc.want.bodies)
			}
			if tc.want.kinds != nil && !cmp.Equal(kinds, tc.want.kinds) {
				t.Errorf("kinds %v, want %v", kinds, tc.want.kinds)
			}
			if string(p.State) != tc.want.state {
				t.Errorf("state %q, want %q", p.State, tc.want.state)
			}
			var attrs struct {
				Seq int64 `json:"swink_sequence"`
			}
			_ = json.Unmarshal(p.Session.Attrs, &attrs)
			if p.Session.Title != tc.want.title || attrs.Seq != tc.want.seq || p.Session.ID != "s" {
				t.Errorf("session %q seq %d id %q, want %q %d s", p.Session.Title, attrs.Seq, p.Session.ID, tc.want.title, tc.want.seq)
			}
			var lines []int
			for _, pr := range p.Problems {
				lines = append(lines, pr.Line)
			}
			if !cmp.Equal(lines, tc.want.problems, swinkCmpEmpty) {
				t.Errorf("problem lines %v, want %v: %v", lines, tc.want.problems, p.Problems)
			}
			for i, r := range tc.want.reasons {
				if i < len(p.Problems) && !strings.Contains(p.Problems[i].Reason, r) {
					t.Errorf("problem %d %q does not say %q", i, p.Problems[i].Reason, r)
				}
			}
		})
	}
}

// TestSwinkUnreadable: the cases where swink refuses the whole file.
func TestSwinkUnreadable(t *testing.T) {
	tests := []struct {
		name, content, msg string
	}{
		{"empty file", "", "empty session file"},
		{"header not JSON", "garbage\n" + swUser + "\n", "invalid session metadata"},
		{"header missing title", `{"id":"a","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}` + "\n", `missing field "title"`},
		{"header bad time", `{"id":"a","title":"t","created_at":"yesterday","updated_at":"2026-01-01T00:00:00Z"}` + "\n", "invalid RFC 3339"},
		{"header invalid utf8", "{\"id\":\"a\",\"title\":\"\xff\",\"created_at\":\"2026-01-01T00:00:00Z\",\"updated_at\":\"2026-01-01T00:00:00Z\"}\n", "UTF-8"},
		{"future version", strings.Replace(swinkTestHeader, `"version":1`, `"version":999`, 1) + "\n" + swUser + "\n", "unsupported session version 999 (current: 1)"},
		{"future version by commit", swinkTestHeader + "\n" + `{"_append":true}` + "\n" + strings.Replace(swMetaLine(2, "2026-03-01T10:06:00Z"), `"version":1`, `"version":2`, 1) + "\n", "unsupported session version 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parseSwinkString(t, tc.content)
			if err == nil {
				t.Fatalf("Parse succeeded with %d entries", len(p.Entries))
			}
			if !errors.Is(err, sessiondb.ErrInvalid) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %v, want ErrInvalid saying %q", err, tc.msg)
			}
			if p != nil && len(p.Entries) > 0 {
				t.Errorf("refused file still yields entries")
			}
		})
	}
}

// TestSwinkInterruptAndCheckpointDefects: corrupt side files are Problems,
// the session is still read.
func TestSwinkInterruptAndCheckpointDefects(t *testing.T) {
	root := t.TempDir()
	sess := filepath.Join(root, "sessions")
	cps := filepath.Join(root, "checkpoints")
	for _, d := range []string{sess, cps} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(sess, "s.jsonl")
	content := swinkTestHeader + "\n" + swUser + "\n" + swAsst + "\n"
	files := map[string]string{
		path:                                    content,
		filepath.Join(sess, "s.interrupt.json"): `{"interrupted_at":1}`,
		filepath.Join(cps, "s-broken.json"):     `{"id":`,
		filepath.Join(cps, "s-shape.json"):      `{"id":"s-shape"}`,
		// A valid checkpoint whose messages are not the session's.
		filepath.Join(cps, "s-turn-9.json"): `{"id":"s-turn-9","system_prompt":"","provider":"p","model_id":"m","messages":[` + strings.Replace(swUser, "hi", "other", 1) + `],"turn_count":1,"usage":{"input":0,"output":0,"cache_read":0,"cache_write":0,"total":0},"cost":{"input":0.0,"output":0.0,"cache_read":0.0,"cache_write":0.0,"total":0.0},"created_at":1773000000}`,
		// The first message only: AtSeq 1, state null.
		filepath.Join(cps, "s-turn-1.json"): `{"id":"s-turn-1","system_prompt":"","provider":"p","model_id":"m","messages":[` + swUser + `],"turn_count":1,"usage":{"input":0,"output":0,"cache_read":0,"cache_write":0,"total":0},"cost":{"input":0.0,"output":0.0,"cache_read":0.0,"cache_write":0.0,"total":0.0},"created_at":1773000000}`,
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	units, rest := swink.Format{}.Claim(swinkFiles(t, sess))
	if len(units) != 1 || len(rest) != 0 || len(units[0].Extra) != 5 {
		t.Fatalf("units %+v rest %v", units, rest)
	}
	p, err := swink.Format{}.Parse(context.Background(), units[0], jsonl.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) != 2 || p.Interrupt != nil {
		t.Errorf("entries %d interrupt %s", len(p.Entries), p.Interrupt)
	}
	got := map[string]int64{}
	for _, cp := range p.Checkpoints {
		got[cp.ID] = cp.AtSeq
		if cp.ID == "s-turn-1" && string(cp.State) != "null" {
			t.Errorf("state %s, want null", cp.State)
		}
	}
	if !cmp.Equal(got, map[string]int64{"s-turn-1": 1, "s-turn-9": 1}) {
		t.Errorf("checkpoints %v", got)
	}
	reasons := map[string]string{}
	for _, pr := range p.Problems {
		reasons[filepath.Base(pr.Path)] += pr.Reason
	}
	for f, r := range map[string]string{
		"s.interrupt.json": "corrupted interrupt file",
		"s-broken.json":    "checkpoint not imported",
		"s-shape.json":     "not a valid swink checkpoint",
		"s-turn-9.json":    "estimated from created_at",
	} {
		if !strings.Contains(reasons[f], r) {
			t.Errorf("%s: problems %q, want %q", f, reasons[f], r)
		}
	}
	if len(p.Problems) != 4 {
		t.Errorf("problems %v", p.Problems)
	}
}

// TestSwinkEntryMeta checks times, roles and usage of parsed entries.
func TestSwinkEntryMeta(t *testing.T) {
	p, err := parseSwinkString(t, swinkTestHeader+"\n"+`{"_custom":true,"data":{},"type":"a"}`+"\n"+swUser+"\n"+swAsst+"\n"+`{"_custom":true,"data":{},"type":"b"}`+"\n")
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 3, 1, 10, 0, 0, 5e8, time.UTC)
	wantTimes := []time.Time{created, time.Unix(1773000000, 0), time.Unix(1773000001, 0), time.Unix(1773000001, 0)}
	wantRoles := []string{"", "user", "assistant", ""}
	for i, e := range p.Entries {
		if !e.CreatedAt.Equal(wantTimes[i]) || e.Role != wantRoles[i] {
			t.Errorf("entry %d: %v %q, want %v %q", i, e.CreatedAt, e.Role, wantTimes[i], wantRoles[i])
		}
	}
	want := []sessiondb.Usage{{Seq: 3, Provider: "p", Model: "m", InputTokens: 3, OutputTokens: 4, CacheReadTokens: 1, CacheWriteTokens: 2, Cost: 0.3, CreatedAt: time.Unix(1773000001, 0).UTC()}}
	if diff := cmp.Diff(want, p.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	var attrs map[string]any
	if err := json.Unmarshal(p.Session.Attrs, &attrs); err != nil || attrs["model"] != "m" || attrs["provider"] != "p" {
		t.Errorf("attrs %s", p.Session.Attrs)
	}
	if !p.Session.CreatedAt.Equal(created) || !p.Session.UpdatedAt.Equal(time.Date(2026, 3, 1, 10, 5, 0, 0, time.UTC)) {
		t.Errorf("times %v %v", p.Session.CreatedAt, p.Session.UpdatedAt)
	}
}

// TestSwinkTimeFormat: chrono's AutoSi fraction digits.
func TestSwinkTimeFormat(t *testing.T) {
	for _, tc := range []struct {
		ns   int
		want string
	}{
		{0, "2026-03-13T10:19:30Z"},
		{5e8, "2026-03-13T10:19:30.500Z"},
		{557310000, "2026-03-13T10:19:30.557310Z"},
		{557310046, "2026-03-13T10:19:30.557310046Z"},
	} {
		tm := time.Date(2026, 3, 13, 10, 19, 30, tc.ns, time.UTC)
		if got := swink.FormatTime(tm); got != tc.want {
			t.Errorf("formatSwinkTime(%d ns) = %s, want %s", tc.ns, got, tc.want)
		}
		back, err := swink.ParseTime(json.RawMessage(`"` + tc.want + `"`))
		if err != nil || !back.Equal(tm) {
			t.Errorf("parse %s = %v %v", tc.want, back, err)
		}
	}
	for _, s := range []string{"2026-03-13 10:19:30z", "2026-03-13t10:19:30+02:00"} {
		if _, err := swink.ParseTime(json.RawMessage(`"` + s + `"`)); err != nil {
			t.Errorf("parse %s: %v", s, err)
		}
	}
}

// TestSwinkEntryLineRoundTrip: every body Export writes reads back as the
// same entry, including bodies that would confuse swink's classifier.
func TestSwinkEntryLineRoundTrip(t *testing.T) {
	entries := []sessiondb.Entry{
		{Kind: sessiondb.KindMessage, Body: json.RawMessage(swUser)},
		{Kind: sessiondb.KindMessage, Body: json.RawMessage("{\n  \"role\": \"user\", \"content\": [], \"timestamp\": 7\n}")},
		{Kind: sessiondb.KindMessage, Body: json.RawMessage(`{"role":"user","content":[],"timestamp":7,"_state":true}`)},
		{Kind: sessiondb.KindMessage, Body: json.RawMessage(`{"role":"user","content":[],"timestamp":7,"entry_type":"x"}`)},
		{Kind: sessiondb.KindCustom, Body: json.RawMessage(`{"_custom":true,"data":{"x":1},"type":"n"}`)},
		{Kind: "label", Body: json.RawMessage(`{"entry_type":"label","data":{"text":"x","message_index":0,"timestamp":6}}`)},
		{Kind: "label", Body: json.RawMessage(`{"text":"x","message_index":0,"timestamp":6}`)},
		{Kind: swink.KindCustomEntry, Body: json.RawMessage(`{"type_name":"g","data":null,"timestamp":5}`)},
		// Stray keys that would trip swink's state reader are dropped.
		{Kind: sessiondb.KindCustom, Body: json.RawMessage(`{"_custom":true,"_state":false,"data":{"x":1},"type":"n"}`)},
		{Kind: "label", Body: json.RawMessage(`{"_state":0,"entry_type":"label","data":{"text":"x","message_index":0,"timestamp":6}}`)},
	}
	var b strings.Builder
	b.WriteString(swinkTestHeader + "\n")
	for _, e := range entries {
		line, err := swink.EntryLine(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	p, err := parseSwinkString(t, b.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Problems) != 0 || len(p.Entries) != len(entries) {
		t.Fatalf("%d entries, problems %v", len(p.Entries), p.Problems)
	}
	for i, e := range p.Entries {
		want := entries[i]
		if e.Kind != want.Kind {
			t.Errorf("entry %d kind %q, want %q", i, e.Kind, want.Kind)
		}
		switch i {
		case 8:
			if string(e.Body) != `{"_custom":true,"data":{"x":1},"type":"n"}` {
				t.Errorf("entry %d body %s", i, e.Body)
			}
		case 9:
			if string(e.Body) != `{"entry_type":"label","data":{"text":"x","message_index":0,"timestamp":6}}` {
				t.Errorf("entry %d body %s", i, e.Body)
			}
		case 6, 7: // wrapped on export: the envelope is the body now
			var env struct {
				Data json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal(e.Body, &env); err != nil || !bytes.Equal(env.Data, want.Body) {
				t.Errorf("entry %d body %s does not wrap %s", i, e.Body, want.Body)
			}
		default:
			if !swinkJSONEqual(t, e.Body, want.Body) {
				t.Errorf("entry %d body %s, want %s", i, e.Body, want.Body)
			}
		}
	}
	if _, err := swink.EntryLine(sessiondb.Entry{Kind: "message", Body: json.RawMessage("{\"role\":\"\xff\"}")}); !errors.Is(err, sessiondb.ErrInvalid) {
		t.Errorf("invalid UTF-8 body: %v", err)
	}
}

func TestSwinkSerdeString(t *testing.T) {
	got := swink.SerdeString("a\"b\\c\nd\x01é\u2028<>&\xff")
	want := `"a\"b\\c\nd\u0001é` + "\u2028" + `<>&` + "\uFFFD" + `"`
	if got != want {
		t.Errorf("got %s want %s", got, want)
	}
}

func swinkImport(t *testing.T, store sessiondb.Store, paths ...string) jsonlimport.Report {
	t.Helper()
	rep, err := jsonlimport.Import(context.Background(), store, paths, jsonlimport.Options{Jobs: 2})
	if err != nil {
		t.Fatalf("import %v: %v", paths, err)
	}
	return rep
}

// swinkSameEntries compares kinds and bodies (byte for byte).
func swinkSameEntries(t *testing.T, what string, got, want []sessiondb.Entry) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d entries, want %d", what, len(got), len(want))
		return
	}
	for i := range got {
		if got[i].Kind != want[i].Kind || !bytes.Equal(got[i].Body, want[i].Body) {
			t.Errorf("%s: entry %d = %s %s, want %s %s", what, i+1, got[i].Kind, got[i].Body, want[i].Kind, want[i].Body)
		}
	}
}

func swinkHasReportProblem(rep jsonlimport.Report, pathSuffix, substr string) bool {
	for _, p := range rep.Problems {
		if strings.HasSuffix(p.Path, pathSuffix) && strings.Contains(p.Reason, substr) {
			return true
		}
	}
	return false
}

func swinkHasNote(rep jsonlimport.Report, pathSuffix, substr string) bool {
	return swinkHasReportProblem(jsonlimport.Report{Problems: rep.Notes}, pathSuffix, substr)
}

// TestSwinkStoreEndToEnd imports the samples into a SQLite store (format
// detection on), checks every session against swink's loader output and the
// reader's, re-imports (a no-op), exports every session back to swink's
// format and imports the export into a second store.
func TestSwinkStoreEndToEnd(t *testing.T) {
	ctx := context.Background()
	exp := loadSwinkExpected(t)
	units := swinkUnits(t, swinkSessionsDir)
	parsed := map[string]*jsonl.Parsed{}
	for id, u := range units {
		p, err := swink.Format{}.Parse(ctx, u, jsonl.Resume{})
		if err == nil {
			parsed[id] = p
		}
	}
	if len(parsed) != 9 {
		t.Fatalf("%d samples parse, want 9", len(parsed))
	}

	store := jsonltest.OpenStore(t)
	root, err := filepath.Abs(swinkDir)
	if err != nil {
		t.Fatal(err)
	}
	rep := swinkImport(t, store, root)
	if rep.Sessions != 9 || rep.Files != 10 {
		t.Errorf("report: %d sessions, %d files; want 9, 10", rep.Sessions, rep.Files)
	}
	// The checkpoint travels with its session; README.md and expected.json
	// are not sessions; the newer version is refused with swink's words.
	for _, p := range rep.Problems {
		if strings.Contains(p.Path, "checkpoints") {
			t.Errorf("checkpoint reported: %v", p)
		}
	}
	for _, f := range []string{"README.md", "expected.json"} {
		if !swinkHasNote(rep, f, "not a session file") {
			t.Errorf("%s not noted as skipped: %v", f, rep.Notes)
		}
	}
	skippedNotes := 0
	for _, n := range rep.Notes {
		if strings.Contains(n.Reason, "not a session file") {
			skippedNotes++
		}
	}
	if rep.Skipped < 2 || rep.Skipped != skippedNotes {
		t.Errorf("Skipped = %d with %d notes of skipped files, want them equal and >= 2", rep.Skipped, skippedNotes)
	}
	if !swinkHasReportProblem(rep, "20260318_070000_04f969d8510a49cf944e50fe80fb768d.jsonl", "unsupported session version 2 (current: 1)") {
		t.Errorf("newer version not reported: %v", rep.Problems)
	}
	if !swinkHasReportProblem(rep, "20260314_220105_2034dee4572f40c1848c4afb1cf228d1.jsonl", "uncommitted append discarded (1 lines)") {
		t.Errorf("uncommitted block not reported: %v", rep.Problems)
	}

	for id, want := range exp.Sessions {
		p := parsed[id]
		if p == nil {
			if _, err := store.Get(ctx, id); !errors.Is(err, sessiondb.ErrNotFound) {
				t.Errorf("%s: refused session exists in the store (%v)", id, err)
			}
			continue
		}
		full, err := store.LoadFull(ctx, id, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		s := full.Session
		lm := want.ListMeta
		if s.Title != lm.Title || !s.CreatedAt.Equal(swinkTime(t, lm.CreatedAt)) || !s.UpdatedAt.Equal(swinkTime(t, lm.UpdatedAt)) ||
			s.Version != lm.Version || s.SourceFormat != swink.Name || !strings.HasSuffix(s.SourcePath, id+".jsonl") {
			t.Errorf("%s: session %+v, want %+v", id, s, lm)
		}
		swinkSameEntries(t, id+" store vs reader", full.Transcript, p.Entries)
		load := want.LoadNoReg
		if !load.OK {
			load = *want.IdentityMigrator
		}
		if got := swinkLoadView(t, full.Transcript); !cmp.Equal(got, load.Messages, swinkCmpEmpty) {
			t.Errorf("%s: store transcript = %v, swink load %v", id, got, load.Messages)
		}
		state, err := store.LoadState(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if string(want.LoadState) == "null" {
			if state != nil {
				t.Errorf("%s: state %s, want none", id, state)
			}
		} else if !bytes.Equal(state, p.State) || !swinkJSONEqual(t, state, want.LoadState) {
			t.Errorf("%s: state %s, want %s", id, state, want.LoadState)
		}
		in, err := store.LoadInterrupt(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if want.LoadInterrupt == nil {
			if in != nil {
				t.Errorf("%s: interrupt %s", id, in)
			}
		} else {
			raw, err := os.ReadFile(filepath.Join(swinkSessionsDir, id+".interrupt.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(in, raw) {
				t.Errorf("%s: interrupt differs from the file", id)
			}
		}
		var usage sessiondb.UsageTotals
		for _, u := range p.Usage {
			usage.Add(u)
		}
		tot, err := store.UsageTotals(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if tot.Calls != usage.Calls || tot.InputTokens != usage.InputTokens || tot.OutputTokens != usage.OutputTokens ||
			tot.CacheReadTokens != usage.CacheReadTokens || tot.CacheWriteTokens != usage.CacheWriteTokens || math.Abs(tot.Cost-usage.Cost) > 1e-9 {
			t.Errorf("%s: usage %+v, want %+v", id, tot, usage)
		}
		cps, err := store.ListCheckpoints(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(cps) != len(p.Checkpoints) {
			t.Errorf("%s: %d checkpoints, want %d", id, len(cps), len(p.Checkpoints))
		}
		for i := range cps {
			w := p.Checkpoints[i]
			if cps[i].ID != w.ID || cps[i].AtSeq != w.AtSeq || cps[i].Label != w.Label || !bytes.Equal(cps[i].Metadata, w.Metadata) ||
				!bytes.Equal(cps[i].State, w.State) || !cps[i].CreatedAt.Equal(w.CreatedAt) {
				t.Errorf("%s: checkpoint %+v, want %+v", id, cps[i], w)
			}
		}
	}

	// Unchanged files: nothing is written again.
	again := swinkImport(t, store, root)
	if again.Unchanged != 9 || again.Entries != 0 || again.Sessions != 0 {
		t.Errorf("re-import: %d unchanged, %d entries, %d sessions; want 9, 0, 0", again.Unchanged, again.Entries, again.Sessions)
	}

	// Export every session, read the export back with the reader, and
	// import it into a second store.
	out := t.TempDir()
	for id, p := range parsed {
		files, err := swink.Format{}.Export(ctx, store, id, out)
		if err != nil {
			t.Fatalf("export %s: %v", id, err)
		}
		wantFiles := 1 + len(p.Checkpoints)
		if p.Interrupt != nil {
			wantFiles++
		}
		if len(files) != wantFiles {
			t.Errorf("export %s wrote %v", id, files)
		}
		path := filepath.Join(out, "sessions", id+".jsonl")
		lines := swinkFileLines(t, path)
		if !bytes.HasSuffix(lines[0], []byte("}"+strings.Repeat(" ", 64))) {
			t.Errorf("export %s: header %q is not padded with 64 spaces", id, lines[0])
		}
		eu := swinkUnits(t, filepath.Join(out, "sessions"))[id]
		ep, err := swink.Format{}.Parse(ctx, eu, jsonl.Resume{})
		if err != nil {
			t.Fatalf("parse export %s: %v", id, err)
		}
		// Only the version-0 sample keeps its version Problem.
		if n := len(p.Problems); p.Session.Version == 0 && (len(ep.Problems) != 1 || !strings.Contains(ep.Problems[0].Reason, "SessionMigrator")) {
			t.Errorf("export %s: problems %v", id, ep.Problems)
		} else if p.Session.Version != 0 && len(ep.Problems) != 0 {
			t.Errorf("export %s: problems %v (source had %d)", id, ep.Problems, n)
		}
		swinkSameEntries(t, id+" export", ep.Entries, p.Entries)
		if !bytes.Equal(ep.State, p.State) || !bytes.Equal(ep.Interrupt, p.Interrupt) {
			t.Errorf("export %s: state %s interrupt %s", id, ep.State, ep.Interrupt)
		}
		if ep.Session.Title != p.Session.Title || !ep.Session.CreatedAt.Equal(p.Session.CreatedAt) ||
			!ep.Session.UpdatedAt.Equal(p.Session.UpdatedAt) || ep.Session.Version != p.Session.Version {
			t.Errorf("export %s: session %+v, want %+v", id, ep.Session, p.Session)
		}
		if len(ep.Checkpoints) != len(p.Checkpoints) {
			t.Errorf("export %s: %d checkpoints", id, len(ep.Checkpoints))
		}
		for i := range ep.Checkpoints {
			if !bytes.Equal(ep.Checkpoints[i].Metadata, p.Checkpoints[i].Metadata) || ep.Checkpoints[i].AtSeq != p.Checkpoints[i].AtSeq {
				t.Errorf("export %s: checkpoint %d differs", id, i)
			}
		}
	}
	store2 := jsonltest.OpenStore(t)
	rep2 := swinkImport(t, store2, out)
	if rep2.Sessions != 9 || len(rep2.Problems) != 1 || !strings.Contains(rep2.Problems[0].Reason, "SessionMigrator") {
		t.Errorf("re-import of the export: %d sessions, problems %v", rep2.Sessions, rep2.Problems)
	}
	for id := range parsed {
		a, err := store.LoadFull(ctx, id, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := store2.LoadFull(ctx, id, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatalf("%s after round trip: %v", id, err)
		}
		swinkSameEntries(t, id+" round trip", b.Transcript, a.Transcript)
		if !bytes.Equal(a.State, b.State) || !bytes.Equal(a.Interrupt, b.Interrupt) || a.Session.Title != b.Session.Title ||
			!a.Session.CreatedAt.Equal(b.Session.CreatedAt) || !a.Session.UpdatedAt.Equal(b.Session.UpdatedAt) || a.Session.Version != b.Session.Version {
			t.Errorf("%s: round trip changed the session: %+v vs %+v", id, a.Session, b.Session)
		}
		ca, _ := store.ListCheckpoints(ctx, id)
		cb, _ := store2.ListCheckpoints(ctx, id)
		if len(ca) != len(cb) {
			t.Errorf("%s: %d checkpoints after round trip, want %d", id, len(cb), len(ca))
		}
	}
}

// TestSwinkExportNative exports a session created natively (not from
// swink): summary messages of a compaction, a custom body and a rich entry
// without envelope, state, interrupt and a checkpoint without a swink
// document. The reader then sees what swink's loader would.
func TestSwinkExportNative(t *testing.T) {
	ctx := context.Background()
	store := jsonltest.OpenStore(t)
	const id = "native-1"
	created := time.Date(2026, 4, 1, 8, 0, 0, 123456000, time.UTC)
	if _, err := store.Create(ctx, sessiondb.Session{ID: id, Title: "Native \"one\"\n", CreatedAt: created, UpdatedAt: created}); err != nil {
		t.Fatal(err)
	}
	m1 := `{"role":"user","content":[{"type":"text","text":"first"}],"timestamp":1775030400}`
	m2 := `{"role":"user","content":[{"type":"text","text":"second"}],"timestamp":1775030401}`
	m3 := "{\n  \"role\": \"user\",\n  \"content\": [{\"type\": \"text\", \"text\": \"third\"}],\n  \"timestamp\": 1775030402\n}"
	plain := `{"role":"user","content":"not a swink message"}`
	custom := `{"note":"hello"}`
	label := `{"text":"bookmark","message_index":0,"timestamp":1775030403}`
	if _, err := store.Append(ctx, id,
		sessiondb.Message(m1), sessiondb.Message(m2), sessiondb.Message(m3), sessiondb.Message(plain),
		sessiondb.Entry{Kind: sessiondb.KindCustom, Body: json.RawMessage(custom)},
		sessiondb.Entry{Kind: "label", Body: json.RawMessage(label)},
	); err != nil {
		t.Fatal(err)
	}
	summary := `{"role":"assistant","content":[{"type":"text","text":"summary"}],"provider":"","model_id":"","usage":{"input":0,"output":0,"cache_read":0,"cache_write":0,"total":0},"cost":{"input":0.0,"output":0.0,"cache_read":0.0,"cache_write":0.0,"total":0.0},"stop_reason":"stop","error_message":null,"timestamp":0}`
	if _, err := store.Compact(ctx, id, sessiondb.Compaction{KeepFromSeq: 2, Summary: []sessiondb.Entry{sessiondb.Message(summary)}}); err != nil {
		t.Fatal(err)
	}
	state := `{"k": [1, 2]}`
	if _, err := store.SaveState(ctx, id, json.RawMessage(state)); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(swinkSessionsDir, "20260313_101930_34223518c14c47f0b8b418558e887f3c.interrupt.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.SaveInterrupt(ctx, id, raw); err != nil {
		t.Fatal(err)
	}
	if _, err := store.SaveCheckpoint(ctx, sessiondb.Checkpoint{ID: "native-1-turn-2", SessionID: id, Label: "t2", AtSeq: 5, CreatedAt: created}); err != nil {
		t.Fatal(err)
	}

	out := t.TempDir()
	files, err := swink.Format{}.Export(ctx, store, id, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Errorf("files %v", files)
	}
	lines := swinkFileLines(t, filepath.Join(out, "sessions", id+".jsonl"))
	wantHeader := `{"id":"native-1","title":"Native \"one\"\n","created_at":"2026-04-01T08:00:00.123456Z","updated_at":`
	if !strings.HasPrefix(string(lines[0]), wantHeader) || !strings.Contains(string(lines[0]), `"version":1,"sequence":`) {
		t.Errorf("header %s", lines[0])
	}
	units := swinkUnits(t, filepath.Join(out, "sessions"))
	p, err := swink.Format{}.Parse(ctx, units[id], jsonl.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	// The plain message is not a swink LlmMessage: swink skips it, and so
	// does the reader (a Problem).
	var compactM3 bytes.Buffer
	_ = json.Compact(&compactM3, []byte(m3))
	want := []sessiondb.Entry{
		{Kind: "message", Body: json.RawMessage(summary)},
		{Kind: "message", Body: json.RawMessage(m2)},
		{Kind: "message", Body: compactM3.Bytes()},
		{Kind: "custom", Body: json.RawMessage(`{"_custom":true,"data":` + custom + `,"type":"custom"}`)},
		{Kind: "label", Body: json.RawMessage(`{"entry_type":"label","data":` + label + `}`)},
	}
	swinkSameEntries(t, "native export", p.Entries, want)
	if len(p.Problems) != 2 || !strings.Contains(p.Problems[0].Reason, "not a valid swink message") || p.Problems[0].Line != 5 ||
		!strings.Contains(p.Problems[1].Reason, "estimated from created_at") {
		t.Errorf("problems %v", p.Problems)
	}
	if string(p.State) != `{"k":[1,2]}` || !bytes.Equal(p.Interrupt, raw) || p.Session.Version != 1 {
		t.Errorf("state %s, interrupt %d bytes, version %d", p.State, len(p.Interrupt), p.Session.Version)
	}
	if len(p.Checkpoints) != 1 {
		t.Fatalf("checkpoints %v, problems %v", p.Checkpoints, p.Problems)
	}
	cp := p.Checkpoints[0]
	// The checkpoint at log position 5 holds m1, m2, m3 (plain is no swink
	// message) and the custom message; the exported session starts at the
	// summary, so its position is estimated.
	var doc struct {
		Messages       []json.RawMessage `json:"messages"`
		CustomMessages []json.RawMessage `json:"custom_messages"`
		MessageOrder   []struct {
			Kind string `json:"kind"`
		} `json:"message_order"`
		TurnCount int `json:"turn_count"`
	}
	if err := json.Unmarshal(cp.Metadata, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Messages) != 3 || len(doc.CustomMessages) != 1 || len(doc.MessageOrder) != 4 || doc.TurnCount != 3 || cp.ID != "native-1-turn-2" {
		t.Errorf("checkpoint document %s", cp.Metadata)
	}

	// An interrupt swink cannot read makes the export fail before writing.
	if _, err := store.SaveInterrupt(ctx, id, json.RawMessage(`{"pending":[]}`)); err != nil {
		t.Fatal(err)
	}
	out2 := t.TempDir()
	if _, err := (swink.Format{}).Export(ctx, store, id, out2); !errors.Is(err, sessiondb.ErrInvalid) {
		t.Errorf("export with a foreign interrupt: %v", err)
	}
	if des, _ := os.ReadDir(out2); len(des) != 0 {
		t.Errorf("failed export wrote %v", des)
	}
	// Clearing the interrupt removes the file of the earlier export.
	if _, err := store.ClearInterrupt(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := (swink.Format{}).Export(ctx, store, id, out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "sessions", id+".interrupt.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale interrupt file: %v", err)
	}
	// IDs swink cannot use as file names are refused.
	if _, err := store.Create(ctx, sessiondb.Session{ID: "a:b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := (swink.Format{}).Export(ctx, store, "a:b", out2); !errors.Is(err, sessiondb.ErrInvalid) {
		t.Errorf("export of a:b: %v", err)
	}
}

// TestSwinkStoreReimportChanged: a swink file that grew by an append is
// read whole again and its new records appended; a crash in the middle of a
// later append changes nothing but the report.
func TestSwinkStoreReimportChanged(t *testing.T) {
	ctx := context.Background()
	const id = "20260312_160744_21fee71e81d14816b55bfd9862e4e959"
	src, err := os.ReadFile(filepath.Join(swinkSessionsDir, id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	if len(lines) != 14 || len(lines[13]) != 0 {
		t.Fatalf("sample has %d lines", len(lines))
	}
	dir := filepath.Join(t.TempDir(), "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, id+".jsonl")
	// Before the second append: header, 2 messages, one committed block.
	if err := os.WriteFile(path, bytes.Join(lines[:7], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	store := jsonltest.OpenStore(t)
	if rep := swinkImport(t, store, dir); rep.Sessions != 1 || rep.Entries != 4 {
		t.Fatalf("first import: %+v", rep)
	}
	check := func(what string, wantEntries int) {
		t.Helper()
		u := swinkUnits(t, dir)[id]
		p, err := swink.Format{}.Parse(ctx, u, jsonl.Resume{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := store.Load(ctx, id, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Entries) != wantEntries {
			t.Errorf("%s: reader has %d entries, want %d", what, len(p.Entries), wantEntries)
		}
		swinkSameEntries(t, what, got, p.Entries)
	}
	check("first import", 4)

	// The second append lands: records, commit, header patched in place.
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	rep := swinkImport(t, store, dir)
	if rep.Sessions != 1 || rep.Unchanged != 0 {
		t.Errorf("grown file: %+v", rep)
	}
	check("after append", 8)
	s, err := store.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !s.UpdatedAt.Equal(swinkTime(t, "2026-03-12T16:08:41.877092315Z")) {
		t.Errorf("updated_at %v", s.UpdatedAt)
	}

	// A third append crashes before its commit: the transcript stays.
	torn := append(bytes.Clone(src), []byte(`{"_append":true,"phase":"begin"}`+"\n"+swUser+"\n"+`{"role":"assistant","content":[{"type":"te`)...)
	if err := os.WriteFile(path, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	rep = swinkImport(t, store, dir)
	if !swinkHasReportProblem(rep, id+".jsonl", "uncommitted append discarded (2 lines)") {
		t.Errorf("crashed append not reported: %v", rep.Problems)
	}
	check("after crashed append", 8)
}

var swinkUpdate = flag.Bool("swink.update", false, "rewrite the golden files in testdata/swink/golden")

// swinkGolden is the reader's whole output for one sample, as stored in
// testdata/swink/golden/<id>.json. Bodies and documents are kept as strings
// so that the golden files pin their exact bytes.
type swinkGolden struct {
	Error   string `json:"error,omitempty"`
	Session *struct {
		ID        string          `json:"id"`
		Title     string          `json:"title"`
		CreatedAt time.Time       `json:"created_at"`
		UpdatedAt time.Time       `json:"updated_at"`
		Version   int             `json:"version"`
		Attrs     json.RawMessage `json:"attrs"`
	} `json:"session,omitempty"`
	Entries []struct {
		Kind      string    `json:"kind"`
		Role      string    `json:"role,omitempty"`
		CreatedAt time.Time `json:"created_at"`
		Body      string    `json:"body"`
	} `json:"entries"`
	State       *string           `json:"state"`
	Interrupt   *string           `json:"interrupt"`
	Usage       []sessiondb.Usage `json:"usage"`
	Checkpoints []struct {
		ID        string    `json:"id"`
		SessionID string    `json:"session_id"`
		Label     string    `json:"label"`
		AtSeq     int64     `json:"at_seq"`
		CreatedAt time.Time `json:"created_at"`
		State     string    `json:"state"`
		Metadata  int       `json:"metadata_bytes"`
	} `json:"checkpoints"`
	Problems []struct {
		File   string `json:"file"`
		Line   int    `json:"line"`
		Reason string `json:"reason"`
	} `json:"problems"`
	Offset int64 `json:"offset"`
}

func swinkGoldenOf(t *testing.T, p *jsonl.Parsed, err error) []byte {
	t.Helper()
	var g swinkGolden
	if err != nil {
		g.Error = strings.ReplaceAll(err.Error(), filepath.Dir(p.Unit.Path)+string(filepath.Separator), "")
	}
	if err == nil {
		s := p.Session
		g.Session = &struct {
			ID        string          `json:"id"`
			Title     string          `json:"title"`
			CreatedAt time.Time       `json:"created_at"`
			UpdatedAt time.Time       `json:"updated_at"`
			Version   int             `json:"version"`
			Attrs     json.RawMessage `json:"attrs"`
		}{s.ID, s.Title, s.CreatedAt, s.UpdatedAt, s.Version, s.Attrs}
	}
	for _, e := range p.Entries {
		g.Entries = append(g.Entries, struct {
			Kind      string    `json:"kind"`
			Role      string    `json:"role,omitempty"`
			CreatedAt time.Time `json:"created_at"`
			Body      string    `json:"body"`
		}{e.Kind, e.Role, e.CreatedAt, string(e.Body)})
	}
	if p.State != nil {
		s := string(p.State)
		g.State = &s
	}
	if p.Interrupt != nil {
		s := string(p.Interrupt)
		g.Interrupt = &s
	}
	g.Usage = p.Usage
	for _, c := range p.Checkpoints {
		g.Checkpoints = append(g.Checkpoints, struct {
			ID        string    `json:"id"`
			SessionID string    `json:"session_id"`
			Label     string    `json:"label"`
			AtSeq     int64     `json:"at_seq"`
			CreatedAt time.Time `json:"created_at"`
			State     string    `json:"state"`
			Metadata  int       `json:"metadata_bytes"`
		}{c.ID, c.SessionID, c.Label, c.AtSeq, c.CreatedAt, string(c.State), len(c.Metadata)})
	}
	for _, pr := range p.Problems {
		g.Problems = append(g.Problems, struct {
			File   string `json:"file"`
			Line   int    `json:"line"`
			Reason string `json:"reason"`
		}{filepath.Base(pr.Path), pr.Line, pr.Reason})
	}
	g.Offset = p.Offset
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(g); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestSwinkGoldenFiles pins the reader's whole output for every sample
// (entries with kinds, roles, times and exact bodies; state; interrupt;
// usage; checkpoints; problems). Run with -swink.update to rewrite them.
func TestSwinkGoldenFiles(t *testing.T) {
	dir := filepath.Join(swinkDir, "golden")
	units := swinkUnits(t, swinkSessionsDir)
	if len(units) != 10 {
		t.Fatalf("%d units", len(units))
	}
	for id, u := range units {
		t.Run(id, func(t *testing.T) {
			p, err := swink.Format{}.Parse(context.Background(), u, jsonl.Resume{})
			if p == nil {
				t.Fatalf("Parse returned no Parsed (%v)", err)
			}
			got := swinkGoldenOf(t, p, err)
			path := filepath.Join(dir, id+".json")
			if *swinkUpdate {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -swink.update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s (-golden +got):\n%s", path, diff)
			}
		})
	}
}

// TestSwinkStoreGrowsLikeOneImport: swink appends by patching its header
// in place (or, when the new header does not fit its slot, by rewriting
// the file whole) and writing the new records after the old ones. A
// session imported before and after such an append must equal one import
// of the final file: the log holds each record once and the usage rows
// keep their model and day (the prefix hash alone saw a rewrite, read the
// whole file again into the log and collapsed the usage into one
// "import-correction" row).
func TestSwinkStoreGrowsLikeOneImport(t *testing.T) {
	ctx := context.Background()
	const id = "20260312_160744_21fee71e81d14816b55bfd9862e4e959"
	src, err := os.ReadFile(filepath.Join(swinkSessionsDir, id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	hdr := lines[0]
	// The header as the first append's commit (line 7) left it.
	patched := bytes.Replace(hdr, []byte(`"updated_at":"2026-03-12T16:08:41.877092315Z","version":1,"sequence":3}`),
		[]byte(`"updated_at":"2026-03-12T16:08:09.315520947Z","version":1,"sequence":2}`), 1)
	if len(patched) != len(hdr) || bytes.Equal(patched, hdr) {
		t.Fatal("the sample's header changed")
	}
	unpadded := append(bytes.TrimRight(patched, " \n"), '\n')
	body := func(from, to int) []byte { return bytes.Join(lines[from:to], nil) }
	cases := []struct {
		name         string
		first, final []byte
	}{
		{"header patched in place", append(bytes.Clone(patched), body(1, 7)...), src},
		{"header outgrew its slot", append(bytes.Clone(unpadded), body(1, 7)...), src},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, follow := range []*jsonlimport.Follow{nil, jsonlimport.NewFollow()} {
				dir := filepath.Join(t.TempDir(), "sessions")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(dir, id+".jsonl")
				since := time.Now().Add(-time.Second)
				grown := jsonltest.OpenStore(t)
				for _, b := range [][]byte{c.first, c.final} {
					// In place, as swink's append does (same inode).
					f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
					if err != nil {
						t.Fatal(err)
					}
					if err := f.Truncate(0); err != nil {
						t.Fatal(err)
					}
					if _, err := f.WriteAt(b, 0); err != nil {
						t.Fatal(err)
					}
					if err := f.Close(); err != nil {
						t.Fatal(err)
					}
					if _, err := jsonlimport.Import(ctx, grown, []string{path}, jsonlimport.Options{Jobs: 1, Follow: follow}); err != nil {
						t.Fatal(err)
					}
				}
				once := jsonltest.OpenStore(t)
				if _, err := jsonlimport.Import(ctx, once, []string{path}, jsonlimport.Options{Jobs: 1}); err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, grown, since)); d != "" {
					t.Errorf("follow %v (-one import +imported twice):\n%s", follow != nil, d)
				}
			}
		})
	}
}
