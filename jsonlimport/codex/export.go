package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// codexRolloutRE matches a rollout's file name and captures its date.
var codexRolloutRE = regexp.MustCompile(`^rollout-(\d{4})-(\d{2})-(\d{2})T[0-9-]+-.+\.jsonl$`)

// RolloutName reports whether name is the name Codex gives a rollout
// file (rollout-<date>T<time>-<thread id>.jsonl).
func RolloutName(name string) bool { return codexRolloutRE.MatchString(name) }

// Export writes session id as a Codex rollout under dir (see the package
// doc, "Export").
func (f Format) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	return jsonl.ExportDir(ctx, f, s, id, dir)
}

// ExportFiles implements jsonl.Exporter.
func (Format) ExportFiles(ctx context.Context, s sessiondb.Store, id string) ([]jsonl.File, error) {
	sess, err := s.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("export codex %s: %w", id, err)
	}
	if sess.SourceFormat != Name {
		// Translated (jsonlimport/translate_codex.go), named after the
		// thread id its session_meta gives it.
		data, err := jsonl.WriteForeign(ctx, s, sess, Name)
		if err != nil {
			return nil, err
		}
		named := sess
		named.ID, named.SourcePath = ThreadID(data), ""
		if named.ID == "" {
			return nil, fmt.Errorf("export codex %s: the translation has no session_meta id: %w", id, sessiondb.ErrInvalid)
		}
		return []jsonl.File{jsonl.BytesFile(ExportPath(named), data)}, nil
	}
	log, err := jsonl.ImportedLog(ctx, s, id)
	if err != nil {
		return nil, fmt.Errorf("export codex %s: %w", id, err)
	}
	var buf bytes.Buffer
	for _, e := range log {
		if err := jsonl.WriteLine(&buf, e.Body); err != nil {
			return nil, fmt.Errorf("export codex %s: entry %d: %w", id, e.Seq, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("export codex %s: %w", id, err)
	}
	return []jsonl.File{jsonl.BytesFile(ExportPath(sess), buf.Bytes())}, nil
}

// ExportPath is the rollout's path relative to the export directory:
// sessions/YYYY/MM/DD/<name>, the date from the name when it is a rollout
// name, else from the session's creation (UTC), the name then made from
// that time and the session ID.
func ExportPath(sess sessiondb.Session) string {
	name := filepath.Base(filepath.ToSlash(sess.SourcePath))
	if m := codexRolloutRE.FindStringSubmatch(name); m != nil {
		return "sessions/" + m[1] + "/" + m[2] + "/" + m[3] + "/" + name
	}
	t := sess.CreatedAt.UTC()
	name = "rollout-" + t.Format("2006-01-02T15-04-05") + "-" + jsonl.FileName(sess.ID) + ".jsonl"
	return "sessions/" + t.Format("2006/01/02") + "/" + name
}

// ThreadID is the thread id of a rollout's first line, its session_meta
// (payload.id), or "" when that line is no session_meta.
func ThreadID(rollout []byte) string {
	first, _, _ := bytes.Cut(rollout, []byte("\n"))
	var l struct {
		Type    string `json:"type"`
		Payload struct {
			ID string `json:"id"`
		} `json:"payload"`
	}
	if json.Unmarshal(first, &l) != nil || l.Type != "session_meta" {
		return ""
	}
	return l.Payload.ID
}
