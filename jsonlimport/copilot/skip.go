package copilot

import (
	"path/filepath"
	"strings"
)

// SkipReason implements jsonl.Skipper: the files Copilot CLI keeps beside
// a session's events.jsonl (its checkpoints, rewind snapshots, files and
// research folders, plan.md, lock files) and the operation locks of
// session-state are not sessions; an import of the store notes them as
// Copilot CLI's, not as files of an unknown format.
func (Format) SkipReason(path string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) == ".session-operation-locks" && strings.HasSuffix(path, ".lock") {
		return "Copilot CLI session lock; skipped"
	}
	for range 3 {
		ev := filepath.Join(dir, EventsName)
		if ev != path && regular(ev) && Sniff(ev) {
			return "Copilot CLI session side file (checkpoints, snapshots, plan, locks); skipped"
		}
		dir = filepath.Dir(dir)
	}
	return ""
}
