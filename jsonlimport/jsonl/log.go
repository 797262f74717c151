package jsonl

// Writing a session back to its own format: the log of its file's latest
// import, one line per entry.

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/sessiondb/sessiondb"
)

// ImportedLog returns the log entries of a session's source file as its
// latest import read them: every entry, or, when the file was rewritten in
// place and imported again (a "source file rewritten" compaction), the
// entries from that import on. An exporter that writes a session back to
// its own format writes these bodies, one line each, which gives back the
// file's bytes (each body is the line's exact bytes).
func ImportedLog(ctx context.Context, s sessiondb.Store, id string) ([]sessiondb.Entry, error) {
	from := int64(1)
	comps, err := s.Compactions(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, c := range comps {
		var d struct {
			Reason string `json:"reason"`
		}
		if len(c.Details) > 0 && json.Unmarshal(c.Details, &d) == nil && strings.HasPrefix(d.Reason, "source file rewritten") {
			from = c.KeepFromSeq
		}
	}
	return s.Entries(ctx, id, from, 0)
}

// WriteLine writes body and '\n' to buf, compacting a body that spans
// lines.
func WriteLine(buf *bytes.Buffer, body []byte) error {
	if bytes.ContainsAny(body, "\r\n") {
		var c bytes.Buffer
		if err := json.Compact(&c, body); err != nil {
			return err
		}
		body = c.Bytes()
	}
	buf.Write(body)
	buf.WriteByte('\n')
	return nil
}

// FileName returns session id made safe for a file name (FileSafe, at most
// 200 bytes; "_" for "", "." and ".."): the name pi, Codex and Claude Code
// give the file of a session that has no name of its own.
func FileName(id string) string {
	if b := FileSafe(id, 200); b != "" && b != "." && b != ".." {
		return b
	}
	return "_"
}

// MustJSON returns the JSON encoding of v, which must always marshal.
func MustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called with values that always marshal
	}
	return b
}
