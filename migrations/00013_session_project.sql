-- Sessions keep their project (issue 39): the working directory the
-- agent ran in, as the agent records it (Claude Code's cwd, Codex's
-- session_meta cwd, pi's and zot's header cwd), so that sessions can be
-- listed, searched and their usage summed by project. NULL when unknown.
-- Importers set it from then on; the sessions imported before get it
-- from attrs.cwd, where their importer kept the working directory.

-- +goose Up
ALTER TABLE sessions ADD COLUMN project TEXT;

UPDATE sessions SET project = json_extract(attrs, '$.cwd')
WHERE attrs IS NOT NULL AND json_valid(attrs) AND json_type(attrs, '$.cwd') = 'text'
  AND json_extract(attrs, '$.cwd') <> '';

-- +goose Down
ALTER TABLE sessions DROP COLUMN project;
