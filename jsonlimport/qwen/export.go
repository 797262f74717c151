package qwen

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/geminichat"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Export writes session id as a Qwen Code chat under dir (see the package
// doc, "Export").
func (f Format) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	return jsonl.ExportDir(ctx, f, s, id, dir)
}

// ExportFiles implements jsonl.Exporter: a session imported from a Qwen
// Code chat is written back as that file, from the log of its latest
// import; a session of another format is written as jsonl.WriteForeign
// translates it (or refused), under projects/<its cwd>/chats/<id>.jsonl.
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
		var attrs struct {
			CWD string `json:"cwd"`
		}
		if len(sess.Attrs) > 0 {
			_ = json.Unmarshal(sess.Attrs, &attrs)
		}
		rel := "projects/" + ProjectFolder(attrs.CWD) + "/chats/" + SessionID(sess.ID) + ".jsonl"
		return []jsonl.File{jsonl.BytesFile(rel, data)}, nil
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

// ExportPath is the chat's path relative to the export directory, laid
// out as under ~/.qwen: its source path from the "projects" folder on
// (projects/<cwd, / as ->/chats/<session>.jsonl, a sub-agent's
// projects/<cwd>/subagents/<session>/agent-<id>.jsonl) or, for an old
// whole-JSON chat, from the "tmp" folder on (tmp/<project hash>/chats/…);
// else projects/<cwd folder>/chats/<session>.jsonl.
func ExportPath(sess sessiondb.Session) string {
	src := filepath.ToSlash(sess.SourcePath)
	parts := strings.Split(src, "/")
	for i := len(parts) - 4; i >= 0; i-- {
		if (parts[i] == "projects" && (parts[i+2] == "chats" || parts[i+2] == "subagents")) || (parts[i] == "tmp" && parts[i+2] == "chats") {
			return strings.Join(parts[i:], "/")
		}
	}
	var attrs struct {
		CWD string `json:"cwd"`
	}
	if len(sess.Attrs) > 0 {
		_ = json.Unmarshal(sess.Attrs, &attrs)
	}
	name := filepath.Base(src)
	if !strings.HasSuffix(name, ".jsonl") && !strings.HasSuffix(name, ".json") {
		name = jsonl.FileName(sess.ID) + ".jsonl"
	}
	return "projects/" + ProjectFolder(attrs.CWD) + "/chats/" + name
}

// ProjectFolder is the name Qwen Code gives a project's folder under
// ~/.qwen/projects (sanitizeCwd): the cwd with every UTF-16 code unit
// other than an ASCII letter or digit replaced by '-' ("/tmp/sdb-gq/proj"
// → "-tmp-sdb-gq-proj"; a character beyond U+FFFF gives two); "-" for an
// unknown cwd.
func ProjectFolder(cwd string) string {
	if cwd == "" {
		return "-"
	}
	out := make([]byte, 0, len(cwd))
	for _, r := range cwd {
		switch {
		case r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'):
			out = append(out, byte(r))
		case r > 0xFFFF:
			out = append(out, '-', '-')
		default:
			out = append(out, '-')
		}
	}
	return string(out[:min(len(out), jsonl.MaxNameLen)])
}

// sessionIDRE is the shape of the session IDs `qwen --resume` takes
// (session-id.ts: a UUID of version 1 to 5; anything else it looks up as
// a title).
var sessionIDRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-5][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$`)

// SessionID is the ID a session of another format is written under: id
// itself when Qwen Code takes it, else a UUIDv4 made from it (the same
// each time), since Qwen Code resumes no other shape (Codex's and pi's
// UUIDv7, opencode's ses_…).
func SessionID(id string) string {
	if sessionIDRE.MatchString(id) {
		return id
	}
	sum := sha256.Sum256([]byte("qwen-session/" + id))
	h := hex.EncodeToString(sum[:16])
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
}
