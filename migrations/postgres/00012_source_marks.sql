-- An archive that outlives the agents (issue 43): the session's machine,
-- when its source was last seen and when it was found gone. See the
-- SQLite migration 00015_source_marks.sql.

-- +goose Up
ALTER TABLE sessions ADD COLUMN machine text;
ALTER TABLE sessions ADD COLUMN source_seen_at text COLLATE "C";
ALTER TABLE sessions ADD COLUMN source_gone_at text COLLATE "C";
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
