package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/geminichat"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Export writes session id as a Gemini CLI chat under dir (see the package
// doc, "Export").
func (f Format) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	return jsonl.ExportDir(ctx, f, s, id, dir)
}

// ExportFiles implements jsonl.Exporter: a session imported from a Gemini
// CLI chat is written back as that file, from the log of its latest
// import; a session of another format is written as jsonl.WriteForeign
// translates it (or refused), under foreignPath.
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
		return []jsonl.File{jsonl.BytesFile(foreignPath(sess), data)}, nil
	}
	log, err := jsonl.ImportedLog(ctx, s, id)
	if err != nil {
		return nil, fmt.Errorf("export %s %s: %w", Name, id, err)
	}
	rel := ExportPath(sess)
	if strings.HasSuffix(rel, ".json") {
		data, err := geminichat.RenderLegacy(log)
		if err != nil {
			return nil, fmt.Errorf("export %s %s: %w", Name, id, err)
		}
		return []jsonl.File{jsonl.BytesFile(rel, data)}, nil
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
	return []jsonl.File{jsonl.BytesFile(rel, buf.Bytes())}, nil
}

// foreignPath is where a session of another format is written, as a new
// chat of project "sessiondb": tmp/sessiondb/chats/session-<minute>-<id8>.jsonl.
func foreignPath(sess sessiondb.Session) string {
	id8 := jsonl.FileName(sess.ID)
	id8 = id8[:min(8, len(id8))]
	return "tmp/sessiondb/chats/session-" + sess.CreatedAt.UTC().Format("2006-01-02T15-04") + "-" + id8 + ".jsonl"
}

// ExportPath is the chat's path relative to the export directory, laid
// out as under ~/.gemini: its source path from the "tmp" folder on
// (tmp/<project>/chats/<file>, a sub-agent's chats/<parent>/<file>), else
// tmp/<project hash>/chats/session-<minute>-<id8>.jsonl.
func ExportPath(sess sessiondb.Session) string {
	src := filepath.ToSlash(sess.SourcePath)
	parts := strings.Split(src, "/")
	for i := len(parts) - 4; i >= 0; i-- {
		if parts[i] == "tmp" && parts[i+2] == "chats" {
			return strings.Join(parts[i:], "/")
		}
	}
	var attrs struct {
		Hash string `json:"projectHash"`
	}
	if len(sess.Attrs) > 0 {
		_ = json.Unmarshal(sess.Attrs, &attrs)
	}
	proj := jsonl.FileName(attrs.Hash)
	if attrs.Hash == "" {
		proj = "sessiondb"
	}
	name := filepath.Base(src)
	if !strings.HasPrefix(name, "session-") || !(strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".json")) {
		id8 := jsonl.FileName(sess.ID)
		id8 = id8[:min(8, len(id8))]
		name = "session-" + sess.CreatedAt.UTC().Format("2006-01-02T15-04") + "-" + id8 + ".jsonl"
	}
	return "tmp/" + proj + "/chats/" + name
}
