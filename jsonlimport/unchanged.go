package jsonlimport

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// An import of an archive it imported before (a daily cron, `import` run
// again after an agent wrote a few lines) finds most files unchanged. Such
// a file used to cost a sniff by every format in claim order (each opening
// it and decoding its first lines) and two reads of the store; at 50,000
// files that was most of a no-op import. reclaimer reads the import
// records under each directory to import in one query, and discover asks
// it first: a file whose record is this machine's, whose device, inode,
// size and modification time are the record's, and whose format names its
// unit without reading it (jsonl.Reclaimer) is taken as that unit, and
// prepare finds it unchanged from the same record, decoded once, without
// a query. Any
// difference (a file that changed, a record another writer changed since,
// a format that cannot reclaim) takes the usual path: the formats claim
// the file and prepare reads its record again. So an unchanged file keeps
// the format it was imported as, as its session does.

// rootRecords reads machine's import records under each of roots, once
// for the import: the reclaim (below) and the vanished check
// (markSources) both use them. A root whose records could not be read is
// left out (each user then reads them itself, or does without); nil when
// the store keeps no records by machine (no sessiondb.SourceTracker).
func rootRecords(ctx context.Context, store sessiondb.Store, roots []string, machine string) map[string][]sessiondb.SourceFile {
	tr, ok := store.(sessiondb.SourceTracker)
	if !ok {
		return nil
	}
	out := map[string][]sessiondb.SourceFile{}
	for _, root := range roots {
		recs, err := tr.SourcesWithPrefix(ctx, machine, root+string(filepath.Separator))
		if err != nil {
			continue
		}
		out[root] = recs
	}
	return out
}

// reclaimer returns discover's reclaim function for an import of the
// roots whose records rootRecords read (byRoot), offering formats; nil
// when byRoot is (a store that keeps no records by machine). A root whose
// records could not be read is not in byRoot: its files are claimed as
// usual, and the import meets the store's failure itself where it
// reports it (a watcher retries).
func reclaimer(byRoot map[string][]sessiondb.SourceFile, formats []Format) func(string) (planned, bool) {
	if byRoot == nil {
		return nil
	}
	offered := map[string]Format{}
	for _, f := range formats {
		if _, ok := f.(jsonl.Reclaimer); ok {
			offered[f.Name()] = f
		}
	}
	if len(offered) == 0 {
		return nil
	}
	records := map[string]sessiondb.SourceFile{}
	for _, recs := range byRoot {
		for _, r := range recs {
			if _, ok := offered[r.Format]; ok {
				records[r.Path] = r
			}
		}
	}
	if len(records) == 0 {
		return nil
	}
	return func(path string) (planned, bool) {
		rec, ok := records[path]
		if !ok {
			return planned{}, false
		}
		fi, err := os.Stat(path)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() != rec.Size || !fi.ModTime().Equal(rec.ModTime) {
			return planned{}, false
		}
		var st importState
		if len(rec.State) == 0 || json.Unmarshal(rec.State, &st) != nil {
			return planned{}, false
		}
		if id := jsonl.InodeOf(fi); !id.Known() || id.Dev != st.Dev || id.Ino != st.Ino {
			return planned{}, false
		}
		f := offered[rec.Format]
		u, ok := f.(jsonl.Reclaimer).Reclaim(path)
		if !ok {
			return planned{}, false
		}
		u.Format = rec.Format
		return planned{unit: u, format: f, prev: &rec, prevSt: &st}, true
	}
}
