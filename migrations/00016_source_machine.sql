-- Import records keyed by machine and path (issue 43). Two machines
-- importing into one database each have their own record of a path
-- (/home/a/.claude/projects/x/s.jsonl on both): one shared row made the
-- second machine's import compare its file with the first machine's
-- size and hash, and re-import it wrongly or skip it.
--
--   machine   the machine identity of the importer that consumed the
--             file (sessionctl's --machine); '' for an importer that
--             gave none, and for the records of the sessions no machine
--             recorded (imported before version 15). A record is looked
--             up under the importer's machine, then under ''.
--
-- SQLite cannot change a primary key in place: the table is copied aside
-- (a temporary table, so that the new table's text is its CREATE TABLE
-- as written here, which sqlstore compares byte for byte), dropped and
-- made again. The records take their session's machine.

-- +goose Up
CREATE TEMP TABLE source_files_v15 AS SELECT * FROM source_files;
DROP TABLE source_files;
CREATE TABLE source_files (
    machine     TEXT NOT NULL DEFAULT '',     -- importer's machine identity
    path        TEXT NOT NULL,
    format      TEXT NOT NULL,
    session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    size        INTEGER NOT NULL,
    mtime       TEXT NOT NULL,
    sha256      TEXT NOT NULL,                -- of the first byte_offset bytes
    byte_offset INTEGER NOT NULL,             -- bytes consumed (whole lines)
    state       TEXT,                         -- importer continuation state, JSON
    imported_at TEXT NOT NULL,
    PRIMARY KEY (machine, path)
) STRICT;
CREATE INDEX source_files_by_session ON source_files (session_id);
-- MarkSources and the copy checks look a path up on every machine.
CREATE INDEX source_files_by_path ON source_files (path);
INSERT INTO source_files (machine, path, format, session_id, size, mtime, sha256, byte_offset, state, imported_at)
SELECT coalesce((SELECT s.machine FROM sessions s WHERE s.id = f.session_id), ''),
       f.path, f.format, f.session_id, f.size, f.mtime, f.sha256, f.byte_offset, f.state, f.imported_at
FROM source_files_v15 f;
DROP TABLE source_files_v15;

-- +goose Down
-- One record per path again: of a path recorded on several machines, the
-- most recent import's record stays.
CREATE TEMP TABLE source_files_v16 AS SELECT * FROM source_files;
DROP TABLE source_files;
CREATE TABLE source_files (
    path        TEXT PRIMARY KEY,
    format      TEXT NOT NULL,
    session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    size        INTEGER NOT NULL,
    mtime       TEXT NOT NULL,
    sha256      TEXT NOT NULL,                -- of the first byte_offset bytes
    byte_offset INTEGER NOT NULL,             -- bytes consumed (whole lines)
    state       TEXT,                         -- importer continuation state, JSON
    imported_at TEXT NOT NULL
) STRICT;
CREATE INDEX source_files_by_session ON source_files (session_id);
INSERT INTO source_files (path, format, session_id, size, mtime, sha256, byte_offset, state, imported_at)
SELECT path, format, session_id, size, mtime, sha256, byte_offset, state, imported_at
FROM source_files_v16 f
WHERE NOT EXISTS (SELECT 1 FROM source_files_v16 g WHERE g.path = f.path
                  AND (g.imported_at > f.imported_at OR g.imported_at = f.imported_at AND g.machine > f.machine));
DROP TABLE source_files_v16;
