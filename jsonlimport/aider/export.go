package aider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Export writes session id as an aider chat history under dir (see the
// package doc, "Export").
func (f Format) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	return jsonl.ExportDir(ctx, f, s, id, dir)
}

// ExportPath is the chat history's path relative to the export
// directory: a folder per run (one project's file holds many), named by
// the session.
func ExportPath(sess sessiondb.Session) string {
	return jsonl.FileSafe(sess.ID, 200) + "/" + ChatFile
}

// ExportFiles implements jsonl.Exporter: a run imported from aider is
// written back byte for byte (its blocks' bytes, in order), from the log
// of its latest import; a session of another format is translated, or
// refused naming what aider cannot hold (jsonl.WriteForeign).
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
		return []jsonl.File{jsonl.BytesFile(ExportPath(sess), data)}, nil
	}
	log, err := jsonl.ImportedLog(ctx, s, id)
	if err != nil {
		return nil, fmt.Errorf("export %s %s: %w", Name, id, err)
	}
	var buf bytes.Buffer
	for _, e := range log {
		var b body
		if err := json.Unmarshal(e.Body, &b); err != nil || b.Type == "" {
			return nil, fmt.Errorf("export %s %s: entry %d is no aider block: %w", Name, id, e.Seq, sessiondb.ErrInvalid)
		}
		buf.WriteString(b.Text)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("export %s %s: %w", Name, id, err)
	}
	return []jsonl.File{jsonl.BytesFile(ExportPath(sess), buf.Bytes())}, nil
}
