package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Export writes session id as opencode's export JSON under dir (see the
// package doc, "Export").
func (f Format) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	return jsonl.ExportDir(ctx, f, s, id, dir)
}

// ExportPath is the export's file, relative to the export directory:
// <session id>.json (opencode prints an export to its standard output;
// `opencode import FILE` takes any name).
func ExportPath(sess sessiondb.Session) string {
	return jsonl.FileName(sess.ID) + ".json"
}

// ExportFiles implements jsonl.Exporter: a session imported from opencode
// is written as `opencode export` prints it, {"info": …, "messages": […]}
// with two spaces of indent and a newline at the end, its info the
// session's as last imported and its messages the log of its latest
// import, every message opencode kept (failed calls included), in order.
// A session of another format is translated (jsonl.WriteForeign), or
// refused naming what opencode cannot hold.
func (Format) ExportFiles(ctx context.Context, s sessiondb.Store, id string) ([]jsonl.File, error) {
	sess, err := s.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("export opencode %s: %w", id, err)
	}
	if sess.SourceFormat != Name {
		b, err := jsonl.WriteForeign(ctx, s, sess, Name)
		if err != nil {
			return nil, err
		}
		return []jsonl.File{jsonl.BytesFile(ExportPath(sess), b)}, nil
	}
	full, err := s.LoadFull(ctx, id, sessiondb.LoadOptions{})
	if err != nil {
		return nil, fmt.Errorf("export opencode %s: %w", id, err)
	}
	info := full.State
	if len(info) == 0 || string(info) == "null" {
		return nil, fmt.Errorf("export opencode %s: the session has no opencode info (its state is empty): %w", id, sessiondb.ErrInvalid)
	}
	log, err := jsonl.ImportedLog(ctx, s, id)
	if err != nil {
		return nil, fmt.Errorf("export opencode %s: %w", id, err)
	}
	var doc bytes.Buffer
	doc.WriteString(`{"info":`)
	doc.Write(info)
	doc.WriteString(`,"messages":[`)
	for i, e := range log {
		if i > 0 {
			doc.WriteByte(',')
		}
		doc.Write(e.Body)
	}
	doc.WriteString("]}")
	out, err := Indent(doc.Bytes())
	if err != nil {
		return nil, fmt.Errorf("export opencode %s: %w", id, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("export opencode %s: %w", id, err)
	}
	return []jsonl.File{jsonl.BytesFile(ExportPath(sess), out)}, nil
}

// Indent lays a compact JSON document out as JSON.stringify(doc, null, 2)
// does, with the newline `opencode export` prints after it.
func Indent(doc []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, doc, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}
