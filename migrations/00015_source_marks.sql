-- An archive that outlives the agents (issue 43). Agents delete their
-- own history (Claude Code's cleanup period, a picoclaw .jsonl removed);
-- sessiondb keeps what it imported and now says so:
--
--   machine         the machine identity of the importer that created the
--                   session (sessionctl's --machine, or the identity kept
--                   in the user's config dir); NULL for native sessions
--                   and those imported before.
--   source_seen_at  when an importer last found the session's source
--                   (source_path) present; NULL when never tracked.
--   source_gone_at  when an importer found that source gone (file
--                   deleted, row removed from an agent's database); NULL
--                   while it is there. Set: the session exists only in
--                   sessiondb.
--
-- Both marks are bookkeeping of the importer, not changes to the session:
-- writing them does not bump its sequence.

-- +goose Up
ALTER TABLE sessions ADD COLUMN machine TEXT;
ALTER TABLE sessions ADD COLUMN source_seen_at TEXT;
ALTER TABLE sessions ADD COLUMN source_gone_at TEXT;
CREATE INDEX sessions_by_machine ON sessions (machine) WHERE machine IS NOT NULL;
-- The marks are written by source path (a file's session and its branch
-- forks share it).
CREATE INDEX sessions_by_source ON sessions (source_path) WHERE source_path IS NOT NULL;

-- +goose Down
DROP INDEX sessions_by_source;
DROP INDEX sessions_by_machine;
ALTER TABLE sessions DROP COLUMN source_gone_at;
ALTER TABLE sessions DROP COLUMN source_seen_at;
ALTER TABLE sessions DROP COLUMN machine;
