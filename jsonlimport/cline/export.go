package cline

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Export writes session id as a Cline task folder under dir (see the
// package doc, "Export").
func (f Format) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	return jsonl.ExportDir(ctx, f, s, id, dir)
}

// ExportFiles implements jsonl.Exporter: a task imported from Cline is
// written back as tasks/<id>/ with its files: the primary file from the
// log of its latest import (the elements joined as JSON.stringify joins
// them: byte for byte when Cline wrote the file), the others from the
// session's state, as they were read. A session of another format is
// refused (jsonl.WriteForeign), naming what it holds: a task Cline resumes
// needs its UI messages and their API request rows, which no other
// format has.
func (Format) ExportFiles(ctx context.Context, s sessiondb.Store, id string) ([]jsonl.File, error) {
	sess, err := s.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("export %s %s: %w", Name, id, err)
	}
	if sess.SourceFormat != Name {
		data, err := jsonl.WriteForeign(ctx, s, sess, Name)
		if err != nil {
			return nil, err
		}
		return []jsonl.File{jsonl.BytesFile(ExportPath(sess, APIFile), data)}, nil
	}
	log, err := jsonl.ImportedLog(ctx, s, id)
	if err != nil {
		return nil, fmt.Errorf("export %s %s: %w", Name, id, err)
	}
	bodies := make([]json.RawMessage, 0, len(log))
	for _, e := range log {
		bodies = append(bodies, e.Body)
	}
	if IsSDK(sess.SourcePath) {
		return exportSDK(ctx, s, sess, bodies)
	}
	primary := filepath.Base(sess.SourcePath)
	if primary != APIFile && primary != UIFile && primary != OldUIFile {
		primary = APIFile
	}
	files := []jsonl.File{jsonl.BytesFile(ExportPath(sess, primary), joinArray(bodies))}
	full, err := s.LoadFull(ctx, id, sessiondb.LoadOptions{})
	if err != nil {
		return nil, fmt.Errorf("export %s %s: %w", Name, id, err)
	}
	if len(full.State) > 0 {
		var st struct {
			Files map[string]string `json:"files"`
		}
		if err := json.Unmarshal(full.State, &st); err != nil {
			return nil, fmt.Errorf("export %s %s: state is not a Cline task's (%v): %w", Name, id, err, sessiondb.ErrInvalid)
		}
		names := make([]string, 0, len(st.Files))
		for n := range st.Files {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if n != UIFile && n != OldUIFile && n != MetadataFile && n != HistoryFile {
				return nil, fmt.Errorf("export %s %s: state names file %q, not one of a task's: %w", Name, id, n, sessiondb.ErrInvalid)
			}
			files = append(files, jsonl.BytesFile(ExportPath(sess, n), []byte(st.Files[n])))
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("export %s %s: %w", Name, id, err)
	}
	return files, nil
}

// ExportPath is a task file's path relative to the export directory:
// tasks/<id>/<name>, laid out as in the extension's storage.
func ExportPath(sess sessiondb.Session, name string) string {
	return "tasks/" + jsonl.FileName(sess.ID) + "/" + name
}

// exportSDK writes an SDK session back as sessions/<id>/: its messages
// file from the log (laid out between the bytes the import kept from
// around the messages, as JSON.stringify lays them out: the file's bytes
// when Cline wrote it), its manifest and compaction state as read.
func exportSDK(ctx context.Context, s sessiondb.Store, sess sessiondb.Session, bodies []json.RawMessage) ([]jsonl.File, error) {
	full, err := s.LoadFull(ctx, sess.ID, sessiondb.LoadOptions{})
	if err != nil {
		return nil, fmt.Errorf("export %s %s: %w", Name, sess.ID, err)
	}
	var st struct {
		SDK *struct {
			Indent string  `json:"indent"`
			Head   string  `json:"head"`
			Tail   string  `json:"tail"`
			Raw    *string `json:"raw"`
		} `json:"sdk"`
		Files map[string]string `json:"files"`
	}
	if len(full.State) == 0 || json.Unmarshal(full.State, &st) != nil || st.SDK == nil {
		return nil, fmt.Errorf("export %s %s: state is not a Cline SDK session's: %w", Name, sess.ID, sessiondb.ErrInvalid)
	}
	id := sdkID(sess.SourcePath)
	dir := "sessions/" + jsonl.FileName(id) + "/"
	var data []byte
	if st.SDK.Raw != nil {
		data = []byte(*st.SDK.Raw)
	} else {
		data = layoutSDK([]byte(st.SDK.Head), []byte(st.SDK.Tail), st.SDK.Indent, bodies)
	}
	files := []jsonl.File{jsonl.BytesFile(dir+jsonl.FileName(id)+SDKMessagesSuffix, data)}
	names := make([]string, 0, len(st.Files))
	for n := range st.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if n != id+SDKManifestSuffix && n != id+SDKCompactionSuffix {
			return nil, fmt.Errorf("export %s %s: state names file %q, not one of an SDK session's: %w", Name, sess.ID, n, sessiondb.ErrInvalid)
		}
		files = append(files, jsonl.BytesFile(dir+jsonl.FileName(n), []byte(st.Files[n])))
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("export %s %s: %w", Name, sess.ID, err)
	}
	return files, nil
}
