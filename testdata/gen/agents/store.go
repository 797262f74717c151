package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sessiondb/sessiondb/internal/agentrun"
	"github.com/sessiondb/sessiondb/internal/scriptmodel"
)

// packOver is the size of a store above which it is committed as one
// deterministic home.tar.gz rather than as files.
const packOver = 400 << 10

// copyStore copies the agent's store, with the paths it has under HOME,
// into out/home (or out/home.tar.gz when it is large), byte for byte,
// and returns what it committed.
func copyStore(a *agentrun.Agent, h *agentrun.Home, out string) ([]string, error) {
	type file struct {
		rel  string
		data []byte
		mode fs.FileMode
	}
	var files []file
	total := 0
	for _, root := range a.Store(h) {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return nil
				}
				return err
			}
			if d.IsDir() || !d.Type().IsRegular() {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(h.Dir, p)
			files = append(files, file{filepath.ToSlash(rel), data, 0o644})
			total += len(data)
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })
	var list []string
	for _, f := range files {
		list = append(list, "home/"+f.rel)
	}
	if total <= packOver {
		for _, f := range files {
			if err := writeFile(filepath.Join(out, "home", filepath.FromSlash(f.rel)), f.data); err != nil {
				return nil, err
			}
		}
		return list, nil
	}
	// One tar of the sorted files, mtime 0, root-owned, gzip without a
	// name or time: the same store gives the same bytes.
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	for _, f := range files {
		hdr := &tar.Header{Name: "home/" + f.rel, Mode: 0o644, Size: int64(len(f.data)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		hdr.ModTime = hdr.ModTime.UTC()
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(out, "home.tar.gz"), buf.Bytes()); err != nil {
		return nil, err
	}
	fmt.Printf("   store: %d files, %d KB, packed to %d KB\n", len(files), total>>10, buf.Len()>>10)
	for i := range list {
		list[i] = "home.tar.gz:" + list[i]
	}
	return list, nil
}

// writeRequests writes a run's requests as JSON lines, each body reduced:
// the tool definitions become their names, and the system prompt (the
// same long text in every request) its length and a hash. The messages,
// contents and input items, what the agent read back from its store,
// stay as they were sent.
func writeRequests(path string, reqs []scriptmodel.Request) error {
	var buf bytes.Buffer
	for _, r := range reqs {
		r.Body = reduceBody(r.Body)
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return writeFile(path, buf.Bytes())
}

// summary stands for a long text: its length and the start of its
// SHA-256.
func summary(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return fmt.Sprintf("(reduced: %d bytes of JSON, sha256 %s)", len(b), hex.EncodeToString(sum[:6]))
}

func reduceBody(raw json.RawMessage) json.RawMessage {
	var body map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if len(raw) == 0 || dec.Decode(&body) != nil {
		return raw
	}
	if tools, ok := body["tools"].([]any); ok {
		var names []any
		for _, t := range tools {
			tm, _ := t.(map[string]any)
			switch {
			case tm["name"] != nil:
				names = append(names, tm["name"])
			case tm["function"] != nil:
				names = append(names, tm["function"].(map[string]any)["name"])
			case tm["functionDeclarations"] != nil:
				for _, f := range tm["functionDeclarations"].([]any) {
					names = append(names, f.(map[string]any)["name"])
				}
			default:
				names = append(names, tm["type"])
			}
		}
		body["tools"] = names
	}
	for _, k := range []string{"system", "instructions", "systemInstruction"} {
		if v, ok := body[k]; ok {
			body[k] = summary(v)
		}
	}
	if msgs, ok := body["messages"].([]any); ok {
		for _, m := range msgs {
			mm, _ := m.(map[string]any)
			if role, _ := mm["role"].(string); role == "system" || role == "developer" {
				mm["content"] = summary(mm["content"])
			}
		}
	}
	if input, ok := body["input"].([]any); ok {
		for _, it := range input {
			im, _ := it.(map[string]any)
			if role, _ := im["role"].(string); role == "system" || role == "developer" {
				im["content"] = summary(im["content"])
			}
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(body)
	return json.RawMessage(strings.TrimSpace(buf.String()))
}
