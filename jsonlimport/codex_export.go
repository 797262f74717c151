package jsonlimport

// Export to Codex.
//
// A session imported from a Codex rollout is written back byte for byte:
// the log of the rollout's latest import (importedLog), one line per
// entry (every line's exact bytes are the entry's body), at
//
//	sessions/YYYY/MM/DD/rollout-<timestamp>-<thread id>.jsonl
//
// relative to the export directory: the rollout's own name, and the date
// folders it was in (an archived rollout, from archived_sessions/, goes
// back under sessions/ by the date in its name). Copied into ~/.codex on
// another machine, that is where Codex looks for a thread to resume
// (inferred: Codex itself cannot be run here; newer builds also keep an
// index in state_N.sqlite, which they rebuild from the rollout files).
// The thread name of session_index.jsonl is not written: that file is
// shared by every thread, so an export of one session cannot own it; the
// session's title comes back from the first user message instead.
//
// Not byte for byte: what the import did not keep as a line (empty lines,
// a trailing '\r', torn lines). TestExportCodexCorpus counts the files of
// the real corpus that come back identical.
//
// A session of another format is translated (translate.go), or refused
// with ErrUntranslatable.

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// codexRolloutRE matches a rollout's file name and captures its date.
var codexRolloutRE = regexp.MustCompile(`^rollout-(\d{4})-(\d{2})-(\d{2})T[0-9-]+-.+\.jsonl$`)

// Export writes session id as a Codex rollout under dir (see the notes at
// the top of codex_export.go).
func (cx Codex) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	return jsonl.ExportDir(ctx, cx, s, id, dir)
}

// ExportFiles implements jsonl.Exporter.
func (Codex) ExportFiles(ctx context.Context, s sessiondb.Store, id string) ([]jsonl.File, error) {
	sess, err := s.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("export codex %s: %w", id, err)
	}
	if sess.SourceFormat != FormatCodex {
		_, err := jsonl.WriteForeign(ctx, s, sess, FormatCodex)
		return nil, err
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
	return []jsonl.File{jsonl.BytesFile(codexExportPath(sess), buf.Bytes())}, nil
}

// codexExportPath is the rollout's path relative to the export directory:
// sessions/YYYY/MM/DD/<name>, the date from the name when it is a rollout
// name, else from the session's creation (UTC), the name then made from
// that time and the session ID.
func codexExportPath(sess sessiondb.Session) string {
	name := filepath.Base(filepath.ToSlash(sess.SourcePath))
	if m := codexRolloutRE.FindStringSubmatch(name); m != nil {
		return "sessions/" + m[1] + "/" + m[2] + "/" + m[3] + "/" + name
	}
	t := sess.CreatedAt.UTC()
	name = "rollout-" + t.Format("2006-01-02T15-04-05") + "-" + jsonl.FileID(sess.ID) + ".jsonl"
	return "sessions/" + t.Format("2006/01/02") + "/" + name
}
