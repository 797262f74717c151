package cursoragent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// ErrNoForeign is returned by Export for a session imported from another
// format: Cursor resumes a conversation from its chat store
// (~/.cursor/chats/…/store.db), not from a transcript, so a transcript
// written for another tool's session would be read by nothing. It wraps
// sessiondb.ErrInvalid.
var ErrNoForeign = fmt.Errorf("only a session imported from Cursor's transcripts is written back (Cursor resumes from its chat store, not from transcripts): %w", sessiondb.ErrInvalid)

// Export writes session id under dir as Cursor keeps it:
// projects/<slug>/agent-transcripts/<id>/<id>.jsonl (see ExportPath).
func (f Format) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	return jsonl.ExportDir(ctx, f, s, id, dir)
}

// ExportFiles implements jsonl.Exporter: a session imported from a
// transcript gets its lines back byte for byte, in file order, then the
// trailing turn_ended lines the import kept in its attrs
// (AttrTurnEnded); a session of another format is refused
// (ErrNoForeign).
func (Format) ExportFiles(ctx context.Context, s sessiondb.Store, id string) ([]jsonl.File, error) {
	sess, err := s.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("export %s %s: %w", Name, id, err)
	}
	if sess.SourceFormat != Name {
		return nil, fmt.Errorf("export %s %s: a session of %s: %w", Name, id, sess.SourceFormat, ErrNoForeign)
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
	var a struct {
		Held []string `json:"turn_ended"`
	}
	if len(sess.Attrs) > 0 {
		_ = json.Unmarshal(sess.Attrs, &a)
	}
	for _, line := range a.Held {
		if err := jsonl.WriteLine(&buf, []byte(line)); err != nil {
			return nil, fmt.Errorf("export %s %s: trailing turn_ended line: %w", Name, id, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("export %s %s: %w", Name, id, err)
	}
	return []jsonl.File{jsonl.BytesFile(ExportPath(sess), buf.Bytes())}, nil
}

// ExportPath is the transcript's path relative to the export directory:
// its source path from the project's folder on, under projects/ (for a
// sub-agent, agent-transcripts/<parent>/subagents/<id>.jsonl), else
// projects/<slug>/agent-transcripts/<id>/<id>.jsonl, the slug "unknown"
// when the session has none.
func ExportPath(sess sessiondb.Session) string {
	src := filepath.ToSlash(sess.SourcePath)
	if i := strings.LastIndex(src, "/"+TranscriptsDir+"/"); i > 0 {
		proj := src[:i]
		slug := proj[strings.LastIndex(proj, "/")+1:]
		rest := strings.Split(src[i+1:], "/")
		ok := slug != "" && slug != "." && slug != ".."
		for _, p := range rest {
			ok = ok && p != "" && p != "." && p != ".." && len(p) <= jsonl.MaxNameLen
		}
		if ok {
			parts := []string{"projects", jsonl.FileName(slug)}
			for _, p := range rest {
				parts = append(parts, jsonl.FileName(p)) // no control byte or separator from the source's name
			}
			return path.Join(parts...)
		}
	}
	var a struct {
		Slug string `json:"project_slug"`
	}
	if len(sess.Attrs) > 0 {
		_ = json.Unmarshal(sess.Attrs, &a)
	}
	slug := jsonl.FileName(jsonl.OrString(a.Slug, "unknown"))
	name := jsonl.FileName(sess.ID)
	return "projects/" + slug + "/" + TranscriptsDir + "/" + name + "/" + name + ".jsonl"
}
