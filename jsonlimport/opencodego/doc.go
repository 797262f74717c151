// Package opencodego reads the store of the Go opencode
// (github.com/opencode-ai/opencode, before it became crush):
// .opencode/opencode.db in each project, SQLite migrated with goose
// (observed: version 20250515105448, stores of June–August 2025).
//
// Its schema is crush's (package crush) without the messages.provider
// column: sessions (id, parent_session_id, title, message_count,
// prompt_tokens, completion_tokens, cost, created_at, updated_at,
// summary_message_id), messages (id, session_id, role, parts, model,
// created_at, updated_at, finished_at) and files. Everything crush's
// package doc says of reading it holds here (crush.Store): sessions as
// units of the store, messages as entries, tool calls paired with the
// results of the next tool message, the session's cost and latest-call
// tokens as one ledger row, summary_message_id as a compaction, growth,
// unfinished and abandoned messages, damage, and the export refused.
//
// The TypeScript opencode (package opencode) also names its database
// opencode.db, with other tables (session, message, part): this format
// takes an opencode.db only when its first pages hold this schema
// (crush.Sniff), and comes before opencode in the registry.
package opencodego
