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
package picoclaw
