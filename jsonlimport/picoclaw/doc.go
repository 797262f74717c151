// Package picoclaw reads and writes picoclaw's session directories
// (github.com/sipeed/picoclaw, pkg/memory.JSONLStore: {key}.jsonl and
// {key}.meta.json, meta-only sessions, legacy {key}.json session objects):
// Format, named Name, one of the formats package jsonlimport imports and
// exports. It implements jsonl.Format and jsonl.Exporter; the comments in
// picoclaw.go tell what is carried over and how. It is used through
// jsonlimport, which registers it (jsonlimport.Formats) and translates the
// sessions of other formats for its exporter.
//
// Its Claim leaves to Claude Code the agent-<id>.jsonl and
// agent-<id>.meta.json pairs of a Claude Code sub-agent: it asks
// jsonl.Reserved, which the registry answers from the formats that
// implement jsonl.Reserver.
//
// # Checked against picoclaw's own loaders
//
// The samples in testdata/picoclaw and testdata/picoclaw-random were written
// by picoclaw's real code, and the tests compare every import with what
// picoclaw's GetSessionMeta, GetSummary and GetHistory return for each key
// ListSessions lists (testdata/picoclaw-random: random operation sequences,
// imported in one shot and snapshot by snapshot). Two rules came out of that
// randomized comparison:
//
//   - A meta's aliases may name the session itself (two keys that sanitize to
//     the same files, UpsertSessionMeta called through the other one). The
//     store drops a session's own ID from its aliases, so the whole list is
//     kept in attrs.source_aliases (jsonl.SourceAliases).
//   - A {base}.meta.json whose key does not sanitize to base (a legacy session
//     of a key ending in ".meta", which MigrateFromJSON never migrates) is not
//     that key's meta: picoclaw reads the key's meta and history from
//     sanitizeKey(key)'s own files. It is skipped when they exist and is
//     otherwise the empty session picoclaw answers with.
//
// What cannot match: a zero created_at (TruncateHistory on a key without
// files writes one; the store takes the update time), a created_at that a
// later write sets after a first import (an import cannot move CreatedAt), and
// keys with control characters (not valid session IDs).
package picoclaw
