package jsonlimport

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/sessiondb/sessiondb"
)

// importedLog returns the log entries of a session's source file as its
// latest import read them: every entry, or, when the file was rewritten in
// place and imported again (a "source file rewritten" compaction), the
// entries from that import on. An exporter that writes a session back to
// its own format writes these bodies, one line each, which gives back the
// file's bytes (each body is the line's exact bytes).
func importedLog(ctx context.Context, s sessiondb.Store, id string) ([]sessiondb.Entry, error) {
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
