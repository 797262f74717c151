// Command corpus builds testdata/corpus, the development corpus of real
// Claude Code transcripts and Codex rollouts, from originals that people
// published in public GitHub repositories.
//
// The originals are personal transcripts and are never committed: this
// program writes reduced copies that keep every line, every id, timestamp,
// model, usage figure and the JSON shape byte for byte, and replace prose,
// names and paths with deterministic placeholders. See README.md beside this
// file for the rules and for how to run it:
//
//	testdata/gen/corpus/extract.sh            # originals out of the snapshots
//	go run ./testdata/gen/corpus              # reduce, check, write the manifest
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

func main() {
	orig := flag.String("orig", "/work/corpus-originals/files", "folder of the originals (see extract.sh)")
	out := flag.String("out", "testdata/corpus", "folder to write the reduced corpus to")
	plan := flag.String("plan", "testdata/gen/corpus/plan.tsv", "list of the original files")
	flag.Parse()
	if err := run(*plan, *orig, *out); err != nil {
		fmt.Fprintln(os.Stderr, "corpus:", err)
		os.Exit(1)
	}
}

// entry is one line of plan.tsv.
type entry struct {
	kind, repo, commit, path string
}

func readPlan(name string) ([]entry, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var es []entry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		p := strings.Split(l, "\t")
		if len(p) != 4 {
			return nil, fmt.Errorf("plan: bad line %q", l)
		}
		es = append(es, entry{p[0], p[1], p[2], p[3]})
	}
	return es, sc.Err()
}

func (e entry) original(dir string) string {
	return filepath.Join(dir, strings.Replace(e.repo, "/", "+", 1), filepath.FromSlash(e.path))
}

// projectDir splits a Claude Code path into its project folder and the rest:
// ".claude/projects/-home-x-proj/abc.jsonl" → "-home-x-proj", "abc.jsonl".
func projectDir(p string) (dir, rest string, err error) {
	i := strings.Index(p, "projects/")
	if i < 0 {
		return "", "", fmt.Errorf("%s: no projects/ folder", p)
	}
	dir, rest, _ = strings.Cut(p[i+len("projects/"):], "/")
	return dir, rest, nil
}

var cwdRE = regexp.MustCompile(`"cwd":"((?:[^"\\]|\\.)*)"`)

func run(planFile, origDir, outDir string) error {
	plan, err := readPlan(planFile)
	if err != nil {
		return err
	}
	anon := newAnonymizer()
	r := &reducer{anon: anon}

	// First pass: the cwds met in each project folder, in plan order, so
	// that user pseudonyms are assigned deterministically and each folder
	// is renamed after the anonymised cwd it was encoded from.
	cwds := map[string][]string{}
	for _, e := range plan {
		if e.kind != "claude" {
			continue
		}
		dir, _, err := projectDir(e.path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(e.original(origDir))
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, m := range cwdRE.FindAllSubmatch(data, -1) {
			var cwd string
			if json.Unmarshal(append(append([]byte{'"'}, m[1]...), '"'), &cwd) != nil || seen[cwd] {
				continue
			}
			seen[cwd] = true
			anon.path(cwd)
			cwds[e.repo+"\x00"+dir] = append(cwds[e.repo+"\x00"+dir], cwd)
		}
	}
	dirNames := map[string]string{}
	projectName := func(repo, dir string) string {
		key := repo + "\x00" + dir
		if n, ok := dirNames[key]; ok {
			return n
		}
		n := "-" + pseudo(repo+"/"+dir)
		for _, cwd := range cwds[key] {
			if encodeProjectDir(cwd) == dir {
				n = encodeProjectDir(anon.path(cwd))
				break
			}
		}
		dirNames[key] = n
		return n
	}

	if err := os.RemoveAll(filepath.Join(outDir, "claude-code")); err != nil {
		return err
	}
	if err := os.RemoveAll(filepath.Join(outDir, "codex")); err != nil {
		return err
	}
	var infos []*fileInfo
	dests := map[string]string{}
	for _, e := range plan {
		data, err := os.ReadFile(e.original(origDir))
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		fi := &fileInfo{Repository: e.repo, Commit: e.commit, OriginalPath: e.path,
			SHA256: hex.EncodeToString(sum[:]), Bytes: len(data),
			FinalNewline: len(data) > 0 && data[len(data)-1] == '\n'}
		var dest string
		switch e.kind {
		case "claude", "claude-side":
			dir, rest, err := projectDir(e.path)
			if err != nil {
				return err
			}
			fi.Format = "claude-code"
			dest = "claude-code/projects/" + projectName(e.repo, dir) + "/" + rest
		case "codex":
			fi.Format = "codex"
			if i := strings.Index(e.path, "archived_sessions/"); i >= 0 {
				dest = "codex/archived_sessions/" + e.path[i+len("archived_sessions/"):]
			} else if i := strings.Index(e.path, "sessions/"); i >= 0 {
				dest = "codex/sessions/" + e.path[i+len("sessions/"):]
			} else {
				return fmt.Errorf("%s: no sessions/ folder", e.path)
			}
		case "codex-index":
			fi.Format = "codex"
			dest = "codex/session_index.jsonl"
		default:
			return fmt.Errorf("plan: unknown kind %q", e.kind)
		}
		if prev, ok := dests[dest]; ok {
			return fmt.Errorf("%s and %s both reduce to %s", prev, e.path, dest)
		}
		dests[dest] = e.repo + ":" + e.path
		fi.File = dest

		var red []byte
		switch {
		case strings.HasSuffix(dest, ".jsonl"):
			red = reduceJSONL(r, data)
			if _, err := checkJSONL(data, red); err != nil {
				return fmt.Errorf("%s: reduced copy does not match: %w", e.path, err)
			}
		case strings.HasSuffix(dest, ".json"):
			red = r.json(data)
			if _, err := checkJSON(data, red); err != nil {
				return fmt.Errorf("%s: reduced copy does not match: %w", e.path, err)
			}
		default:
			red = []byte(r.prose(string(data)))
		}
		fi.ReducedBytes = len(red)
		fi.Role = role(e, dest)
		switch {
		case e.kind == "claude":
			analyzeClaude(fi, data)
		case e.kind == "codex":
			analyzeCodex(fi, data)
		default:
			fi.Lines = len(lines(data))
			fi.Versions, fi.Features = []string{}, []string{}
		}
		full := filepath.Join(outDir, filepath.FromSlash(dest))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, red, 0o644); err != nil {
			return err
		}
		infos = append(infos, fi)
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].File < infos[j].File })
	return writeManifest(outDir, infos)
}

// reduceJSONL reduces a file line by line; line ends are kept as they are.
func reduceJSONL(r *reducer, data []byte) []byte {
	var out []byte
	ls := lines(data)
	for i, l := range ls {
		cr := len(l) > 0 && l[len(l)-1] == '\r'
		if cr {
			l = l[:len(l)-1]
		}
		out = append(out, r.line(l)...)
		if cr {
			out = append(out, '\r')
		}
		if i < len(ls)-1 || (len(data) > 0 && data[len(data)-1] == '\n') {
			out = append(out, '\n')
		}
	}
	return out
}

func role(e entry, dest string) string {
	base := filepath.Base(dest)
	switch {
	case e.kind == "codex-index":
		return "session-index"
	case e.kind == "codex":
		if strings.Contains(dest, "archived_sessions/") {
			return "archived-rollout"
		}
		return "rollout"
	case strings.Contains(dest, "/tool-results/"):
		return "tool-result"
	case strings.HasSuffix(base, ".meta.json"):
		return "subagent-meta"
	case strings.HasSuffix(base, ".json"):
		return "workflow-definition"
	case base == "journal.jsonl":
		return "workflow-journal"
	case strings.Contains(dest, "/subagents/workflows/"):
		return "workflow-subagent"
	case strings.Contains(dest, "/subagents/"):
		return "subagent"
	case strings.HasPrefix(base, "agent-"):
		return "subagent-2.0-layout"
	}
	return "session"
}
