-- Import records keyed by machine and path (issue 43): each machine has
-- its own record of a path. See the SQLite migration
-- 00016_source_machine.sql. The records take their session's machine.

-- +goose Up
ALTER TABLE source_files ADD COLUMN machine text COLLATE "C" NOT NULL DEFAULT '';
UPDATE source_files f SET machine = s.machine FROM sessions s WHERE s.id = f.session_id AND s.machine IS NOT NULL;
ALTER TABLE source_files DROP CONSTRAINT source_files_pkey;
ALTER TABLE source_files ADD PRIMARY KEY (machine, path);
-- MarkSources and the copy checks look a path up on every machine.
CREATE INDEX source_files_by_path ON source_files (path);

-- +goose Down
-- One record per path again: of a path recorded on several machines, the
-- most recent import's record stays.
DROP INDEX source_files_by_path;
DELETE FROM source_files f WHERE EXISTS (SELECT 1 FROM source_files g WHERE g.path = f.path
    AND (g.imported_at > f.imported_at OR g.imported_at = f.imported_at AND g.machine > f.machine));
ALTER TABLE source_files DROP CONSTRAINT source_files_pkey;
ALTER TABLE source_files DROP COLUMN machine;
ALTER TABLE source_files ADD PRIMARY KEY (path);
