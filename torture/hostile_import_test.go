package torture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileFormat is one format's clean base file and how to wrap a
// message so that the format's reader sees a message line.
type hostileFormat struct {
	name string
	base string // a valid file of the format, under testdata
	wrap func(content string) string
}

var hostileFormats = []hostileFormat{
	{"picoclaw", "picoclaw/agent_main_cli_direct_alice.jsonl", func(c string) string { return `{"role":"user","content":` + c + `}` }},
	{"zot", "zot-damaged/00-base-valid.jsonl", func(c string) string {
		return `{"type":"message","message":{"role":"user","content":[{"text":` + c + `}],"time":"2026-11-29T12:42:52.400209804Z"}}`
	}},
	{"swink", "swink/sessions/20250315_120000.jsonl", func(c string) string {
		return `{"role":"user","content":[{"type":"text","text":` + c + `}],"timestamp":1742040003}`
	}},
}

// inject returns base with extra inserted after its first line.
func inject(base []byte, extra []byte) []byte {
	i := bytes.IndexByte(base, '\n')
	var out bytes.Buffer
	out.Write(base[:i+1])
	out.Write(extra)
	out.Write(base[i+1:])
	return out.Bytes()
}

// writeHuge writes base's first line, a line of size bytes of content
// wrapped by wrap, and the rest of base, without holding the line in
// memory.
func writeHuge(t *testing.T, path string, base []byte, wrap func(string) string, size int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	i := bytes.IndexByte(base, '\n')
	w.Write(base[:i+1])
	pre, post, _ := strings.Cut(wrap(`"@@"`), "@@")
	w.WriteString(pre)
	chunk := bytes.Repeat([]byte("abcdefgh"), 1<<17) // 1 MiB
	for n := 0; n < size; n += len(chunk) {
		w.Write(chunk[:min(len(chunk), size-n)])
	}
	w.WriteString(post + "\n")
	w.Write(base[i+1:])
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// memoryBound is the peak RSS an import of hostile input may reach: it
// must not grow with the input (2 GiB sparse file, 100 MB line). The
// design allows lines up to 64 MiB to be held once or a few times.
const memoryBound = 512 << 10 // KiB

// TestHostileImports feeds each importer random bytes, a 2 GiB sparse
// file, a line of 100 MB, JSON nested 100,000 deep, invalid UTF-8, CRLF
// line ends and NUL runs. Each import runs in a child process that reports
// its peak memory; it must finish without crashing, report problems, stay
// within memoryBound, and leave a sound database in which every session is
// booked with its source record (nothing partial).
func TestHostileImports(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(seed(), 7))
	root := t.TempDir()
	run := func(t *testing.T, name, format, path string) importResult {
		return runImport(t, name, format, path, memoryBound)
	}
	for _, hf := range hostileFormats {
		t.Run(hf.name, func(t *testing.T) {
			base, err := os.ReadFile(filepath.Join("..", "testdata", hf.base))
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(root, hf.name)
			file := func(name string, data []byte) string {
				d := filepath.Join(dir, name)
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(d, filepath.Base(hf.base))
				if data != nil {
					if err := os.WriteFile(p, data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return p
			}
			clean := run(t, "clean", hf.name, file("clean", base))
			if clean.Entries == 0 || clean.Sessions != 1 {
				t.Fatalf("the clean base file imports %d sessions with %d entries", clean.Sessions, clean.Entries)
			}
			random := make([]byte, 1<<20)
			for i := range random {
				random[i] = byte(rng.UintN(256))
			}
			nested := hf.wrap(strings.Repeat("[", 100000) + strings.Repeat("]", 100000))
			nestedObj := hf.wrap(strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000))
			badUTF8 := hf.wrap("\"bad \xff\xfe utf8 \xc3\x28 here\"")
			crlf := bytes.ReplaceAll(base, []byte("\n"), []byte("\r\n"))
			nul := append(bytes.Repeat([]byte{0}, 64<<10), '\n')
			nulGlued := bytes.Repeat([]byte{0}, 4096) // no newline: glued to the next line
			cases := []struct {
				name     string
				data     []byte
				problems bool // the reader must report a problem
				keep     bool // every clean entry must still be imported
			}{
				{"random-bytes", random, true, false},
				{"nested-arrays-100k", inject(base, []byte(nested+"\n")), true, true},
				{"nested-objects-100k", inject(base, []byte(nestedObj+"\n")), true, true},
				{"invalid-utf8", inject(base, []byte(badUTF8+"\n")), true, true},
				{"crlf", crlf, false, true},
				{"nul-run-line", inject(base, nul), true, true},
				{"nul-run-glued", inject(base, nulGlued), true, false},
				{"nul-only", bytes.Repeat([]byte{0}, 1<<20), true, false},
			}
			for _, tc := range cases {
				res := run(t, tc.name, hf.name, file(tc.name, tc.data))
				if tc.problems && res.NProblems == 0 {
					t.Errorf("%s: no problem reported", tc.name)
				}
				if tc.keep && res.Entries < clean.Entries {
					t.Errorf("%s: %d entries imported, the clean file has %d: hostile content cost valid lines", tc.name, res.Entries, clean.Entries)
				}
				if tc.name == "crlf" && res.Entries != clean.Entries {
					t.Errorf("crlf: %d entries, the LF file gives %d", res.Entries, clean.Entries)
				}
			}
			// A line of 100 MB: over MaxLineSize, skipped with a problem,
			// the other lines imported.
			p := file("huge-line", nil)
			writeHuge(t, p, base, hf.wrap, 100<<20)
			res := run(t, "line-100MB", hf.name, p)
			if res.NProblems == 0 {
				t.Errorf("line-100MB: no problem reported")
			}
			if res.Entries < clean.Entries {
				t.Errorf("line-100MB: %d entries imported, the clean file has %d", res.Entries, clean.Entries)
			}
			os.Remove(p)
			// A 2 GiB sparse file: a valid first line, then a hole (NULs).
			p = file("sparse-2g", nil)
			i := bytes.IndexByte(base, '\n')
			if err := os.WriteFile(p, base[:i+1], 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, 2<<30); err != nil {
				t.Fatal(err)
			}
			res = run(t, "sparse-2GiB", hf.name, p)
			if res.NProblems == 0 {
				t.Errorf("sparse-2GiB: no problem reported")
			}
			os.Remove(p)
		})
	}
	t.Run("auto", func(t *testing.T) {
		// Format detection on hostile files: a 2 GiB hole and random bytes.
		dir := filepath.Join(root, "auto")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(dir, "hole.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := os.Truncate(filepath.Join(dir, "hole.jsonl"), 2<<30); err != nil {
			t.Fatal(err)
		}
		random := make([]byte, 256<<10)
		for i := range random {
			random[i] = byte(rng.UintN(256))
		}
		if err := os.WriteFile(filepath.Join(dir, "random.jsonl"), random, 0o644); err != nil {
			t.Fatal(err)
		}
		res := run(t, "auto-hostile", "", dir)
		if res.NProblems < 2 {
			t.Errorf("auto: %d problems for two unreadable files", res.NProblems)
		}
		// A line of 60 MB is under MaxLineSize: it must be imported.
		base, err := os.ReadFile(filepath.Join("..", "testdata", hostileFormats[0].base))
		if err != nil {
			t.Fatal(err)
		}
		big := filepath.Join(root, "big60")
		if err := os.MkdirAll(big, 0o755); err != nil {
			t.Fatal(err)
		}
		cleanDir := filepath.Join(root, "clean60")
		if err := os.MkdirAll(cleanDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cleanDir, "big.jsonl"), base, 0o644); err != nil {
			t.Fatal(err)
		}
		clean := run(t, "clean", "picoclaw", cleanDir)
		writeHuge(t, filepath.Join(big, "big.jsonl"), base, hostileFormats[0].wrap, 60<<20)
		// Holding a 60 MB line costs a few copies of it (line buffer, body,
		// SQL argument, SQLite record): bounded by the line, not the file.
		res = runImport(t, "line-60MB", "picoclaw", big, 1<<20)
		if res.Entries != clean.Entries+1 {
			t.Errorf("line-60MB: %d entries imported, want the %d of the clean file plus the 60 MB line (lines up to 64 MiB must import)", res.Entries, clean.Entries)
		}
	})
}

// runImport imports path in a child process (format "" detects) and checks
// the outcome: no crash, no error, a sound database, every session booked,
// the report matching the store, peak RSS within bound KiB.
func runImport(t *testing.T, name, format, path string, bound int64) importResult {
	t.Helper()
	db := filepath.Join(t.TempDir(), "import.db")
	steps, stderr, err := runChild(t, "importer", []string{envDB + "=" + db, envDir + "=" + path, envFormat + "=" + format}, nil)
	if err != nil {
		if len(stderr) > 3000 {
			stderr = stderr[:3000]
		}
		t.Fatalf("%s: the importer process died: %v\n%s", name, err, stderr)
	}
	s := one(t, steps, "import", stderr)
	var res importResult
	if err := json.Unmarshal([]byte(s.Err), &res); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.Err != "" {
		t.Errorf("%s: Import returned an error (hostile input must become problems): %s", name, res.Err)
	}
	if res.Integrity != "ok" {
		t.Errorf("%s: integrity_check after the import: %s", name, res.Integrity)
	}
	if len(res.Unbooked) > 0 {
		t.Errorf("%s: sessions without their source record: %v", name, res.Unbooked)
	}
	if res.StoreEntries != int64(res.Entries) || res.StoreSessions != res.Sessions {
		t.Errorf("%s: the report says %d sessions/%d entries, the store holds %d/%d (partial import?)", name, res.Sessions, res.Entries, res.StoreSessions, res.StoreEntries)
	}
	if res.VmHWMKiB > bound {
		t.Errorf("%s: peak RSS %d MiB, over the %d MiB bound", name, res.VmHWMKiB>>10, bound>>10)
	}
	t.Logf("%s: %d sessions, %d entries, %d problems %q, peak RSS %d MiB", name, res.Sessions, res.Entries, res.NProblems, res.Problems, res.VmHWMKiB>>10)
	return res
}
