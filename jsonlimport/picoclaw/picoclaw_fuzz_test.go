package picoclaw

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// The picoclaw samples the fuzz targets seed from.
const (
	picoDir        = "../../testdata/picoclaw"
	picoDamagedDir = "../../testdata/picoclaw-damaged"
)

// picoSeedLines returns lines of every picoclaw sample as fuzz seeds.
func picoSeedLines(f *testing.F) [][]byte {
	var out [][]byte
	for _, pattern := range []string{
		filepath.Join(picoDir, "*.jsonl"),
		filepath.Join(picoDamagedDir, "*", "*.jsonl"),
	} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			for _, l := range bytes.Split(data, []byte("\n")) {
				if len(l) > 0 && len(l) < 1<<16 {
					out = append(out, l)
				}
			}
		}
	}
	return out
}

// FuzzPicoclawLine checks the picoclaw line parser against picoclaw's own
// rule (json.Unmarshal into Message decides) and the recovery guarantees:
// a body is always valid JSON, always a byte range of the line, equal to the
// line whenever picoclaw itself accepts it, and a picoclaw message itself.
func FuzzPicoclawLine(f *testing.F) {
	for _, l := range picoSeedLines(f) {
		f.Add(l)
	}
	f.Add([]byte("null"))
	f.Add([]byte("{}"))
	f.Add([]byte("   "))
	f.Add([]byte("\x00\x00{\"role\":\"user\",\"content\":\"x\"}"))
	f.Add([]byte(`{"role":"assistant","content":"Done. Go{"role":"user","content":"new"}`))
	f.Add([]byte(`{"role":"assistant","content":"","reasoning_content":"think"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		pl := parsePicoclawLine(line)
		var m picoMessage
		picoclawAccepts := json.Unmarshal(line, &m) == nil
		switch {
		case picoclawAccepts && m.transient():
			if !pl.dropped || pl.body != nil {
				t.Fatalf("transient thought not dropped: %+v", pl)
			}
		case picoclawAccepts:
			if !bytes.Equal(pl.body, line) {
				t.Fatalf("accepted line not imported verbatim: %q", pl.body)
			}
		default:
			if pl.problem == "" {
				t.Fatalf("rejected line without a problem")
			}
		}
		if ref, ok := recoverFirstStart(line); ok && !picoclawAccepts && !bytes.Equal(ref, pl.body) {
			// recoverAfterFragment searches from the last message start
			// backwards, relying on at most one start qualifying; the
			// reference tries every start from the first.
			t.Fatalf("recovered %q, the exhaustive search finds %q", pl.body, ref)
		}
		if pl.body != nil {
			if !json.Valid(pl.body) {
				t.Fatalf("body is not JSON: %q", pl.body)
			}
			if !bytes.Contains(line, pl.body) {
				t.Fatalf("body is not a byte range of the line")
			}
			var again picoMessage
			if err := json.Unmarshal(pl.body, &again); err != nil || again.transient() {
				t.Fatalf("body is not a picoclaw message: %v", err)
			}
		}
	})
}

// FuzzPicoclawParse runs the whole reader on a fuzzed .jsonl (and meta):
// it must not fail or panic, offsets stay within the file, and every entry
// body is a byte range of the file.
func FuzzPicoclawParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(picoDamagedDir, "*", "*.jsonl"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		meta, _ := os.ReadFile(strings.TrimSuffix(file, ".jsonl") + ".meta.json")
		f.Add(data, meta)
	}
	f.Add([]byte("{\"role\":\"user\",\"content\":\"a\"}\n"), []byte(`{"key":"k","skip":1}`))
	f.Add([]byte("x\n\n\r\n"), []byte(`{"key":"k","skip":-3,"summary":5`))
	base := f.TempDir()
	var n atomic.Int64
	f.Fuzz(func(t *testing.T, data, meta []byte) {
		// t.TempDir per input starves the fuzzing engine; use one
		// directory per input under a shared base instead.
		dir := filepath.Join(base, strconv.FormatInt(n.Add(1), 10))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "k.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		u := jsonl.Unit{Format: Name, Path: path}
		if meta != nil {
			mp := filepath.Join(dir, "k.meta.json")
			if err := os.WriteFile(mp, meta, 0o644); err != nil {
				t.Fatal(err)
			}
			u.Extra = []string{mp}
		}
		pd, err := Format{}.Parse(context.Background(), u, jsonl.Resume{})
		if err != nil {
			return // an invalid session key is the only failure
		}
		if pd.Offset < 0 || pd.Offset > int64(len(data)) {
			t.Fatalf("offset %d outside the file (%d bytes)", pd.Offset, len(data))
		}
		for i, e := range pd.Entries {
			if !json.Valid(e.Body) || !bytes.Contains(data, e.Body) {
				t.Fatalf("entry %d body %q is not JSON from the file", i, e.Body)
			}
		}
		for _, c := range pd.Compactions {
			if c.KeepFromSeq < 1 || c.KeepFromSeq > int64(len(pd.Entries))+1 {
				t.Fatalf("compaction keeps from %d of %d entries", c.KeepFromSeq, len(pd.Entries))
			}
		}
		// Resuming at the consumed offset finds nothing new.
		again, err := Format{}.Parse(context.Background(), u, jsonl.Resume{Offset: pd.Offset, Entries: len(pd.Entries), State: pd.ResumeState})
		if err != nil {
			t.Fatalf("resume: %v", err)
		}
		if len(again.Entries) != 0 {
			t.Fatalf("resume at the end found %d entries", len(again.Entries))
		}
		if len(again.Compactions) != len(pd.Compactions) || len(again.Compactions) == 1 && again.Compactions[0].KeepFromSeq != pd.Compactions[0].KeepFromSeq {
			t.Fatalf("resume changed the compaction: %+v vs %+v", again.Compactions, pd.Compactions)
		}
	})
}

// recoverFirstStart is the exhaustive reference for recoverAfterFragment on
// short lines: the first message start after the first byte (of the line
// without leading NULs) from which the rest of the line is one complete,
// non-transient picoclaw message.
func recoverFirstStart(line []byte) ([]byte, bool) {
	if len(line) > 4096 {
		return nil, false
	}
	b := bytes.TrimLeft(line, "\x00")
	if len(b) < len(line) {
		if rec, ok := recoverPicoclaw(b); ok {
			return rec.body, !rec.dropped
		}
	}
	for i := 1; i < len(b); i++ {
		if !bytes.HasPrefix(b[i:], picoRoleMarker) {
			continue
		}
		if rec, ok := recoverPicoclaw(b[i:]); ok {
			return rec.body, !rec.dropped
		}
	}
	return nil, false
}
