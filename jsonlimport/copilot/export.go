package copilot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"

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
// another format is translated (jsonlimport's translate_copilot.go) and
// written under the ID SessionID gives it, or refused with the reason.
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
		return []jsonl.File{jsonl.BytesFile(ExportPath(SessionID(sess.ID)), data)}, nil
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

// SessionID is the session ID a translated session gets in Copilot CLI's
// store: id itself when it is a UUID (Copilot CLI names session folders
// by UUID and --resume takes one), else a UUID made from it.
func SessionID(id string) string {
	if uuidRE.MatchString(id) {
		return id
	}
	sum := sha256.Sum256([]byte("copilot-session/" + id))
	h := hex.EncodeToString(sum[:16])
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
