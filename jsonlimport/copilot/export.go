package copilot

import (
	"bytes"
	"context"
	"fmt"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Export writes session id under dir as Copilot CLI keeps it:
// session-state/<id>/events.jsonl (see the package doc, "Export").
func (f Format) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	return jsonl.ExportDir(ctx, f, s, id, dir)
}

// ExportFiles implements jsonl.Exporter: a session imported from Copilot
// CLI gets its events back byte for byte, in file order; a session of
// another format goes through the registry's translator, which refuses it
// with the reason.
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
		return []jsonl.File{jsonl.BytesFile(ExportPath(sess.ID), data)}, nil
	}
	log, err := jsonl.ImportedLog(ctx, s, id)
	if err != nil {
		return nil, fmt.Errorf("export %s %s: %w", Name, id, err)
	}
	var buf bytes.Buffer
	for _, e := range log {
		if err := jsonl.WriteLine(&buf, e.Body); err != nil {
			return nil, fmt.Errorf("export %s %s: entry %d: %w", Name, id, e.Seq, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("export %s %s: %w", Name, id, err)
	}
	return []jsonl.File{jsonl.BytesFile(ExportPath(id), buf.Bytes())}, nil
}

// ExportPath is the event log's path relative to the export directory.
func ExportPath(id string) string {
	return "session-state/" + jsonl.FileName(id) + "/" + EventsName
}
