package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Export writes session id as Claude Code files under dir (see the
// package doc, "Export").
func (f Format) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	return jsonl.ExportDir(ctx, f, s, id, dir)
}

// ExportFiles implements jsonl.Exporter.
func (Format) ExportFiles(ctx context.Context, s sessiondb.Store, id string) ([]jsonl.File, error) {
	sess, err := s.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("export claude-code %s: %w", id, err)
	}
	if sess.SourceFormat != Name {
		// Another format's session: translated (jsonlimport's
		// translate_claudecode.go), named <session uuid>.jsonl in its
		// project's folder, as Claude Code finds a session to resume.
		body, err := jsonl.WriteForeign(ctx, s, sess, Name)
		if err != nil {
			return nil, err
		}
		return []jsonl.File{jsonl.BytesFile(ForeignPath(sess), body)}, nil
	}
	log, err := jsonl.ImportedLog(ctx, s, id)
	if err != nil {
		return nil, fmt.Errorf("export claude-code %s: %w", id, err)
	}
	rel := ExportPath(sess)
	toolDir := strings.TrimSuffix(rel, ".jsonl") + "/tool-results/"
	var buf bytes.Buffer
	var tools []jsonl.File
	at := map[string]int{} // tool file name → index in tools (a later copy wins)
	for _, e := range log {
		if e.Kind == KindToolFile {
			var tf struct {
				File    string `json:"file"`
				Content string `json:"content"`
			}
			if err := json.Unmarshal(e.Body, &tf); err != nil || tf.File == "" || strings.ContainsAny(tf.File, `/\`) {
				return nil, fmt.Errorf("export claude-code %s: entry %d: %w: not a tool-results file record", id, e.Seq, sessiondb.ErrInvalid)
			}
			f := jsonl.BytesFile(toolDir+tf.File, []byte(tf.Content))
			if i, ok := at[tf.File]; ok {
				tools[i] = f
			} else {
				at[tf.File] = len(tools)
				tools = append(tools, f)
			}
			continue
		}
		if err := jsonl.WriteLine(&buf, e.Body); err != nil {
			return nil, fmt.Errorf("export claude-code %s: entry %d: %w", id, e.Seq, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("export claude-code %s: %w", id, err)
	}
	return append([]jsonl.File{jsonl.BytesFile(rel, buf.Bytes())}, tools...), nil
}

// ExportPath is the path, relative to the export directory, of the
// transcript of Claude Code session sess: its source path below the last
// "projects" folder, else projects/<encoded cwd>/ and the file's name (for
// a sub-agent, from its session folder on).
func ExportPath(sess sessiondb.Session) string {
	src := filepath.ToSlash(sess.SourcePath)
	parts := strings.Split(src, "/")
	if strings.HasSuffix(src, ".jsonl") {
		for i := len(parts) - 3; i >= 0; i-- {
			if parts[i] == "projects" {
				return "projects/" + strings.Join(parts[i+1:], "/")
			}
		}
	}
	var attrs struct {
		CWD string `json:"cwd"`
	}
	if len(sess.Attrs) > 0 {
		_ = json.Unmarshal(sess.Attrs, &attrs)
	}
	folder := "projects/" + ccProjectFolder(attrs.CWD) + "/"
	if !strings.HasSuffix(src, ".jsonl") {
		return folder + jsonl.FileName(sess.ID) + ".jsonl"
	}
	if agent, _ := ccAgentOwner(sess.SourcePath); agent {
		for i := len(parts) - 2; i >= 1; i-- {
			if parts[i] == "subagents" {
				return folder + strings.Join(parts[i-1:], "/")
			}
		}
	}
	return folder + parts[len(parts)-1]
}

// ForeignSessionID is the session id a session of another format is
// written under: its own id when that is a UUID (Claude Code's shape),
// else a UUID made from it (SHA-1 name-based, so the same session gets
// the same id).
func ForeignSessionID(id string) string {
	if u, err := uuid.Parse(id); err == nil && u.String() == id {
		return id
	}
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("sessiondb:"+id)).String()
}

// ForeignCWD is the working directory recorded for session sess: its
// cwd attribute, else its project.
func ForeignCWD(sess sessiondb.Session) string {
	var attrs struct {
		CWD string `json:"cwd"`
	}
	if len(sess.Attrs) > 0 {
		_ = json.Unmarshal(sess.Attrs, &attrs)
	}
	if attrs.CWD != "" {
		return attrs.CWD
	}
	return sess.Project
}

// ForeignPath is the path, relative to the export directory, of the
// translation of session sess of another format:
// projects/<encoded cwd>/<ForeignSessionID>.jsonl.
func ForeignPath(sess sessiondb.Session) string {
	return "projects/" + ccProjectFolder(ForeignCWD(sess)) + "/" + ForeignSessionID(sess.ID) + ".jsonl"
}

// ccProjectFolder is the name Claude Code gives the folder of a project:
// the cwd with every character other than an ASCII letter or digit
// replaced by '-' ("/home/dev/my.proj" → "-home-dev-my-proj"); "-" for an
// unknown cwd.
func ccProjectFolder(cwd string) string {
	if cwd == "" {
		return "-"
	}
	out := make([]byte, 0, len(cwd))
	for _, r := range cwd {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			out = append(out, byte(r))
		} else {
			out = append(out, '-')
		}
	}
	return string(out[:min(len(out), jsonl.MaxNameLen)])
}
