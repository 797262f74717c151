package opencode

// The two file sources: the legacy storage/ tree opencode kept before its
// SQLite store, and the JSON `opencode export` prints.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// storageRoot returns the storage/ folder holding the session file at
// path (storage/session/<project>/<session>.json), or "".
func storageRoot(path string) string {
	proj := filepath.Dir(path)
	sess := filepath.Dir(proj)
	root := filepath.Dir(sess)
	if filepath.Base(sess) != "session" || filepath.Base(root) != "storage" || !strings.HasSuffix(path, ".json") {
		return ""
	}
	return root
}

// inStorage returns the storage/ folder path lies in and the kind of
// file it is there: storage/<kind>/<file> (project, session_diff) or
// storage/<kind>/<group>/<file> (session, message, part); "" for others.
func inStorage(path string) (root, kind string) {
	d1 := filepath.Dir(path)
	d2 := filepath.Dir(d1)
	if filepath.Base(d2) == "storage" {
		return d2, filepath.Base(d1)
	}
	d3 := filepath.Dir(d2)
	if filepath.Base(d3) == "storage" {
		return d3, filepath.Base(d2)
	}
	return "", ""
}

// legacyFiles lists the message files of session id in storage root and
// the part files of each, sorted (opencode's ids sort as they were made).
func legacyFiles(root, id string) (msgs []string, parts map[string][]string) {
	parts = map[string][]string{}
	msgs = jsonFiles(filepath.Join(root, "message", id))
	for _, m := range msgs {
		mid := strings.TrimSuffix(filepath.Base(m), ".json")
		parts[m] = jsonFiles(filepath.Join(root, "part", mid))
	}
	return msgs, parts
}

// jsonFiles lists the regular .json files of dir, sorted.
func jsonFiles(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out
}

// LegacyOwner returns the session file of the legacy storage/ tree that
// reads the message or part file at path (storage/message/<session>/…,
// storage/part/<message>/…), or "": a watcher that sees one appear imports
// that session again. path need not exist any more.
func LegacyOwner(path string) string {
	root, kind := inStorage(path)
	group := filepath.Base(filepath.Dir(path))
	switch {
	case root == "":
		return ""
	case kind == "part":
		// The part's message names its session: the folder it is in.
		m, _ := filepath.Glob(filepath.Join(root, "message", "*", group+".json"))
		if len(m) == 0 {
			return ""
		}
		group = filepath.Base(filepath.Dir(m[0]))
	case kind != "message":
		return ""
	}
	s, _ := filepath.Glob(filepath.Join(root, "session", "*", group+".json"))
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// legacyExtra lists every file a legacy session is read from besides its
// own: its message files and their part files.
func legacyExtra(path string) []string {
	root := storageRoot(path)
	if root == "" {
		return nil
	}
	id := strings.TrimSuffix(filepath.Base(path), ".json")
	msgs, parts := legacyFiles(root, id)
	out := append([]string{}, msgs...)
	for _, m := range msgs {
		out = append(out, parts[m]...)
	}
	return out
}

// fileStamp hashes the size and time of each file (missing ones too).
func fileStamp(kind string, files []string) (string, int64) {
	h := sha256.New()
	var bytes int64
	fmt.Fprintf(h, "%s\x00", kind)
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			fmt.Fprintf(h, "%s -\x00", f)
			continue
		}
		bytes += fi.Size()
		fmt.Fprintf(h, "%s %d %d\x00", f, fi.Size(), fi.ModTime().UnixNano())
	}
	return hex.EncodeToString(h.Sum(nil)), bytes
}

// infoMeta is what is read of a session's info object.
type infoMeta struct {
	ID        string `json:"id"`
	Slug      string `json:"slug"`
	ProjectID string `json:"projectID"`
	Directory string `json:"directory"`
	ParentID  string `json:"parentID"`
	Title     string `json:"title"`
	Version   string `json:"version"`
	Agent     string `json:"agent"`
	Model     *struct {
		ID         string `json:"id"`
		ProviderID string `json:"providerID"`
	} `json:"model"`
	Revert json.RawMessage `json:"revert"`
	Time   struct {
		Created  json.Number `json:"created"`
		Updated  json.Number `json:"updated"`
		Archived json.Number `json:"archived"`
	} `json:"time"`
}

// sourceOfInfo fills a source's metadata from a session's info object
// (compact).
func sourceOfInfo(info []byte) (*source, error) {
	var m infoMeta
	if err := decodeNumbers(info, &m); err != nil {
		return nil, fmt.Errorf("session info: %v", err)
	}
	if m.ID == "" {
		return nil, fmt.Errorf("session info without id")
	}
	s := &source{id: m.ID, parentID: m.ParentID, title: m.Title, directory: m.Directory, projectID: m.ProjectID,
		slug: m.Slug, version: m.Version, agent: m.Agent, created: count(m.Time.Created), updated: count(m.Time.Updated),
		archived: m.Time.Archived != "", revert: len(m.Revert) > 0 && string(m.Revert) != "null", info: info}
	if m.Model != nil && m.Model.ID != "" {
		s.model = m.Model.ProviderID + "/" + m.Model.ID
	}
	return s, nil
}

// readCompact reads a JSON file and returns it compact.
func readCompact(path string) ([]byte, error) {
	b, err := jsonl.ReadFile(path, jsonl.MaxWholeFile)
	if err != nil {
		return nil, err
	}
	c, err := compact(b)
	if err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	return c, nil
}

// legacyParse reads the legacy session file at u.Path with its messages
// and parts. The tree has no cursor: a session that changed is read whole
// (ErrNotIncremental for a resume).
func legacyParse(u jsonl.Unit, from jsonl.Resume) (*jsonl.Parsed, error) {
	if from.Offset > 0 {
		return nil, jsonl.ErrNotIncremental
	}
	root := storageRoot(u.Path)
	info, err := readCompact(u.Path)
	if err != nil {
		return nil, fmt.Errorf("opencode session %s: %w", u.Path, err)
	}
	src, err := sourceOfInfo(info)
	if err != nil {
		return nil, fmt.Errorf("opencode session %s: %w", u.Path, err)
	}
	if b, err := jsonl.ReadFile(filepath.Join(root, "project", src.projectID+".json"), jsonl.MaxLineSize); err == nil {
		var p struct {
			Worktree string `json:"worktree"`
		}
		if json.Unmarshal(b, &p) == nil {
			src.worktree = p.Worktree
		}
	}
	var problems []jsonl.Problem
	msgFiles, partFiles := legacyFiles(root, src.id)
	for _, mf := range msgFiles {
		minfo, err := readCompact(mf)
		if err != nil {
			problems = append(problems, jsonl.Problem{Path: mf, Reason: fmt.Sprintf("message file not readable (%v); left out", err)})
			continue
		}
		var parts [][]byte
		for _, pf := range partFiles[mf] {
			p, err := readCompact(pf)
			if err != nil {
				problems = append(problems, jsonl.Problem{Path: pf, Reason: fmt.Sprintf("part file not readable (%v); left out", err)})
				continue
			}
			parts = append(parts, p)
		}
		m, err := messageBody(u, minfo, parts, &problems)
		if err != nil {
			problems = append(problems, jsonl.Problem{Path: mf, Reason: fmt.Sprintf("%v; left out", err)})
			continue
		}
		src.messages = append(src.messages, m)
	}
	sortMessages(src.messages)
	var rs resumeState
	pd, err := build(u, src, 0, rs, nil, true)
	if err != nil {
		return nil, err
	}
	pd.Problems = append(problems, pd.Problems...)
	return pd, nil
}

// sortMessages puts messages in opencode's order: time created, then id.
func sortMessages(ms []message) {
	sort.SliceStable(ms, func(i, j int) bool {
		if ms[i].created != ms[j].created {
			return ms[i].created < ms[j].created
		}
		return ms[i].id < ms[j].id
	})
}

// exportDoc is the JSON `opencode export` prints: the session's info and
// its messages, each with its parts.
type exportDoc struct {
	Info     json.RawMessage `json:"info"`
	Messages []struct {
		Info  json.RawMessage   `json:"info"`
		Parts []json.RawMessage `json:"parts"`
	} `json:"messages"`
}

// sniffExport reports whether path starts like an export: an object
// whose first member is "info", an object whose first member is "id", a
// session id ("ses_…").
func sniffExport(path string) bool {
	f, err := jsonl.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, 64<<10))
	want := []any{json.Delim('{'), "info", json.Delim('{'), "id"}
	for _, w := range want {
		tok, err := dec.Token()
		if err != nil || tok != w {
			return false
		}
	}
	tok, err := dec.Token()
	s, ok := tok.(string)
	return err == nil && ok && strings.HasPrefix(s, "ses")
}

// exportParse reads an `opencode export` file. A file has no cursor: a
// changed one is read whole.
func exportParse(u jsonl.Unit, from jsonl.Resume) (*jsonl.Parsed, error) {
	if from.Offset > 0 {
		return nil, jsonl.ErrNotIncremental
	}
	b, err := jsonl.ReadFile(u.Path, jsonl.MaxWholeFile)
	if err != nil {
		return nil, fmt.Errorf("opencode export %s: %w", u.Path, err)
	}
	var doc exportDoc
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("opencode export %s: not readable JSON: %v", u.Path, err)
	}
	info, err := compact(doc.Info)
	if err != nil {
		return nil, fmt.Errorf("opencode export %s: %v", u.Path, err)
	}
	src, err := sourceOfInfo(info)
	if err != nil {
		return nil, fmt.Errorf("opencode export %s: %w", u.Path, err)
	}
	var problems []jsonl.Problem
	for i, dm := range doc.Messages {
		minfo, err := compact(dm.Info)
		if err != nil {
			problems = append(problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("message %d: no info (%v); left out", i+1, err)})
			continue
		}
		var parts [][]byte
		for _, p := range dm.Parts {
			c, err := compact(p)
			if err != nil {
				continue
			}
			parts = append(parts, c)
		}
		m, err := messageBody(u, minfo, parts, &problems)
		if err != nil {
			problems = append(problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("message %d: %v; left out", i+1, err)})
			continue
		}
		src.messages = append(src.messages, m)
	}
	var rs resumeState
	pd, err := build(u, src, 0, rs, nil, false)
	if err != nil {
		return nil, err
	}
	pd.Problems = append(problems, pd.Problems...)
	return pd, nil
}
