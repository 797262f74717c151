package jsonl

import (
	"fmt"

	"github.com/sessiondb/sessiondb"
)

// TrimReread turns the whole read pd of a file that grew into what a
// resumed read would have returned: the entries after the k imported
// before (a reader numbers a file's entries the same way whatever its
// length, so the first ones are those already in the store), the usage
// rows of those new entries (a row with a CallID replaces the stored row of
// its call, so a call whose last report is new is counted with it; a row of
// no entry, Seq 0, is kept only with a CallID), and the compactions from
// the first that reaches into the new entries on, the last one always (it
// decides the transcript; the importer skips it when it is the one
// recorded last). Branches stay whole: existing forks are left alone. It
// returns why the file cannot be continued ("" when it can). The importer
// also checks the first k entries against a digest; Claude Code's reader,
// which continues from its own parse state, calls it directly.
func TrimReread(pd *Parsed, k int) string {
	if len(pd.Entries) < k {
		return fmt.Sprintf("its reader now finds %d entries where %d were imported", len(pd.Entries), k)
	}
	pd.Entries = pd.Entries[k:]
	usage := pd.Usage[:0]
	for _, u := range pd.Usage {
		// A row of no known entry (Seq 0) may be new: kept when its
		// CallID makes writing it again harmless.
		if u.Seq > int64(k) || (u.Seq == 0 && u.CallID != "") {
			usage = append(usage, u)
		}
	}
	pd.Usage = usage
	var comps []sessiondb.Compaction
	for i, c := range pd.Compactions {
		if len(comps) > 0 || c.KeepFromSeq > int64(k) || c.AtSeq > int64(k) || i == len(pd.Compactions)-1 {
			comps = append(comps, c)
		}
	}
	pd.Compactions = comps
	return ""
}
