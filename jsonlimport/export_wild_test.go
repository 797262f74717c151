package jsonlimport

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/jsonlimport/claudecode"
	"github.com/sessiondb/sessiondb/jsonlimport/codex"
)

// allSessions lists every session of s.
func allSessions(t *testing.T, s sessiondb.Store) []sessiondb.Session {
	t.Helper()
	var out []sessiondb.Session
	cursor := ""
	for {
		page, next, err := s.List(context.Background(), sessiondb.ListOptions{Cursor: cursor, Limit: 500})
		if err != nil {
			t.Fatal(err)
		}
		for _, si := range page {
			out = append(out, si.Session)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// damagedFile reports whether data has a NUL byte, a line that is not
// valid JSON or no final newline: damage the import reports and recovers
// from, which a byte-for-byte export cannot give back.
func damagedFile(data []byte) bool {
	if bytes.IndexByte(data, 0) >= 0 || !bytes.HasSuffix(data, []byte("\n")) {
		return true
	}
	for _, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if !json.Valid(l) {
			return true
		}
	}
	return false
}

// wildExportCase is a tree of real or fixture files of one format.
type wildExportCase struct {
	name, format, root string
}

func wildExportCases(t *testing.T) []wildExportCase {
	cases := []wildExportCase{
		{"claudecode-fixtures", FormatClaudeCode, mustAbs(t, filepath.Join(ccTestdata, "projects"))},
		{"codex-fixtures", FormatCodex, mustAbs(t, filepath.Join(codexTestdata, "codex-home"))},
	}
	// The corpus runs in the long run without -race (.ci/run runs the
	// Corpus tests in a step of their own): no concurrency, many imports.
	if _, err := os.Stat(filepath.Join("..", "testdata", "corpus", "claude-code")); err == nil && !raceEnabled && longtest.Enabled() {
		root := corpusRoot(t)
		cases = append(cases,
			wildExportCase{"claudecode-corpus", FormatClaudeCode, filepath.Join(root, "claude-code")},
			wildExportCase{"codex-corpus", FormatCodex, filepath.Join(root, "codex")})
	}
	return cases
}

// TestExportCorpusByteIdentity imports every Claude Code and Codex file of
// the fixtures and the real corpus, exports every session in its own
// format, and compares each file written with the file it came from:
// transcripts, sub-agent transcripts and tool-results files must come
// back byte for byte, in the tool's layout. Then the export is imported
// again and must give the same sessions with the same logs.
func TestExportCorpusByteIdentity(t *testing.T) {
	ctx := context.Background()
	for _, c := range wildExportCases(t) {
		t.Run(c.name, func(t *testing.T) {
			s := openStore(t)
			if _, err := Import(ctx, s, []string{c.root}, Options{Format: c.format}); err != nil {
				t.Fatal(err)
			}
			sessions := allSessions(t, s)
			var ids []string
			for _, sess := range sessions {
				if sess.SourceFormat != c.format {
					t.Fatalf("session %s has format %q", sess.ID, sess.SourceFormat)
				}
				ids = append(ids, sess.ID)
			}
			out := t.TempDir()
			files, err := Export(ctx, s, ids, c.format, out)
			if err != nil {
				t.Fatal(err)
			}
			written := map[string]bool{}
			for _, f := range files {
				written[f] = true
			}
			// Every transcript and tool-results file imported, and where it
			// must be written.
			equal, total, damaged, unnamed := 0, 0, 0, 0
			var differ []string
			check := func(src, dst string) {
				total++
				want, err := os.ReadFile(src)
				if err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(dst)
				if err != nil {
					differ = append(differ, src+": not written ("+err.Error()+")")
					return
				}
				delete(written, dst)
				if !bytes.Equal(got, want) {
					if damagedFile(want) {
						damaged++ // the import reported the damage; what it recovered is written
						return
					}
					differ = append(differ, src)
					return
				}
				equal++
			}
			for _, sess := range sessions {
				var rel string
				if c.format == FormatClaudeCode {
					rel = claudecode.ExportPath(sess)
				} else {
					rel = codex.ExportPath(sess)
				}
				dst := filepath.Join(out, filepath.FromSlash(rel))
				check(sess.SourcePath, dst)
				if c.format != FormatClaudeCode {
					continue
				}
				toolDir := filepath.Join(strings.TrimSuffix(sess.SourcePath, ".jsonl"), "tool-results")
				held := map[string]bool{}
				log, _ := s.Entries(ctx, sess.ID, 1, 0)
				for _, e := range log {
					if e.Kind == claudecode.KindToolFile {
						var tf struct {
							File string `json:"file"`
						}
						_ = json.Unmarshal(e.Body, &tf)
						held[tf.File] = true
					}
				}
				ents, _ := os.ReadDir(toolDir)
				for _, e := range ents {
					if !held[e.Name()] {
						// No line names it: the import notes it and waits
						// for the line, so the store does not hold it.
						unnamed++
						continue
					}
					check(filepath.Join(toolDir, e.Name()), filepath.Join(strings.TrimSuffix(dst, ".jsonl"), "tool-results", e.Name()))
				}
			}
			t.Logf("%s: %d sessions; files byte-identical %d / %d (damaged files, written as recovered: %d; tool-results files no line names, not imported: %d)",
				c.name, len(sessions), equal, total, damaged, unnamed)
			if len(differ) > 0 {
				t.Errorf("%d files differ from their source:\n%s", len(differ), strings.Join(differ, "\n"))
			}
			if len(written) > 0 {
				t.Errorf("files written that no source file accounts for: %v", written)
			}
			// Layout: Claude Code under projects/, Codex under sessions/YYYY/MM/DD.
			for _, f := range files {
				rel, _ := filepath.Rel(out, f)
				rel = filepath.ToSlash(rel)
				switch {
				case c.format == FormatClaudeCode && strings.HasPrefix(rel, "projects/"):
				case c.format == FormatCodex && codex.RolloutName(filepath.Base(rel)) && len(strings.Split(rel, "/")) == 5 && strings.HasPrefix(rel, "sessions/"):
				default:
					t.Errorf("%s is not where %s keeps its files", rel, c.format)
				}
			}

			// Import the export: the same sessions, logs equal body for body.
			s2 := openStore(t)
			if _, err := Import(ctx, s2, []string{out}, Options{Format: c.format}); err != nil {
				t.Fatal(err)
			}
			again := allSessions(t, s2)
			if len(again) != len(sessions) {
				t.Fatalf("re-import of the export: %d sessions, first import %d", len(again), len(sessions))
			}
			for i, sess := range sessions {
				// A Codex thread name lives in the shared session_index.jsonl,
				// which an export does not write: the title is then the
				// first user message's.
				sameTitle := again[i].Title == sess.Title || c.format == FormatCodex
				if again[i].ID != sess.ID || again[i].ParentID != sess.ParentID || !sameTitle {
					t.Errorf("re-import: session %d is %q (parent %q, title %q), want %q (parent %q, title %q)",
						i, again[i].ID, again[i].ParentID, again[i].Title, sess.ID, sess.ParentID, sess.Title)
					continue
				}
				l1, _ := s.Entries(ctx, sess.ID, 1, 0)
				l2, _ := s2.Entries(ctx, sess.ID, 1, 0)
				if len(l1) != len(l2) {
					t.Errorf("%s: re-import has %d entries, first import %d", sess.ID, len(l2), len(l1))
					continue
				}
				for k := range l1 {
					if !bytes.Equal(l1[k].Body, l2[k].Body) || l1[k].Kind != l2[k].Kind {
						t.Errorf("%s: entry %d differs after export and re-import", sess.ID, k+1)
						break
					}
				}
			}
		})
	}
}

// TestExportWildGrownAndRewritten: a file imported while it was being
// written and again once whole, and a file rewritten in place and
// imported again, export to the file's final bytes (the log of the latest
// import, not every line ever stored).
func TestExportWildGrownAndRewritten(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		format, tree, file string
	}{
		{FormatClaudeCode, filepath.Join(ccTestdata, "projects"), filepath.Join("-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000001.jsonl")},
		{FormatCodex, filepath.Join(codexTestdata, "codex-home"), filepath.Join("sessions", "2026", "01", "10", "rollout-2026-01-10T09-00-00-019f26cb-0000-7000-8000-000000000001.jsonl")},
	} {
		t.Run(c.format, func(t *testing.T) {
			root := t.TempDir()
			copyTree(t, c.tree, root)
			path := filepath.Join(root, c.file)
			full, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.SplitAfter(full, []byte("\n"))
			s := openStore(t)
			imp := func(content []byte) string {
				t.Helper()
				if err := os.WriteFile(path, content, 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := Import(ctx, s, []string{root}, Options{Format: c.format}); err != nil {
					t.Fatal(err)
				}
				src, err := s.SourceFile(ctx, path)
				if err != nil {
					t.Fatal(err)
				}
				return src.SessionID
			}
			export := func(id string) []byte {
				t.Helper()
				out := t.TempDir()
				files, err := Export(ctx, s, []string{id}, c.format, out)
				if err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(files[0])
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			// Grown: half the lines and half a line, then the whole file.
			half := bytes.Join(lines[:len(lines)/2], nil)
			half = append(half, lines[len(lines)/2][:len(lines[len(lines)/2])/2]...)
			imp(half)
			id := imp(full)
			if got := export(id); !bytes.Equal(got, full) {
				t.Fatalf("grown file: export of %d bytes differs from the file's %d", len(got), len(full))
			}
			// Rewritten in place: the second line removed.
			rewritten := bytes.Join(append(append([][]byte{}, lines[0]), lines[2:]...), nil)
			id = imp(rewritten)
			if got := export(id); !bytes.Equal(got, rewritten) {
				t.Fatalf("rewritten file: export of %d bytes differs from the file's %d", len(got), len(rewritten))
			}
			if all, _ := s.Entries(ctx, id, 1, 0); len(all) <= len(lines) {
				t.Fatalf("the log holds %d entries; the rewrite should have kept the old ones for audit", len(all))
			}
		})
	}
}
