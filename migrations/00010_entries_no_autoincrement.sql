-- Fewer pages per append (issue 26). With AUTOINCREMENT, every insert into
-- entries also rewrote the entries row of sqlite_sequence: one more b-tree
-- page, a fifth WAL frame (8 KB) for every append of the five it wrote.
-- From this version entries is a plain rowid table. What AUTOINCREMENT
-- guaranteed, and the search cursor needs (see 00004), is that a new row
-- never takes an id at or below search_index.indexed_through: sqlstore
-- gives each new entry an explicit id, max(max(id), cursor) + 1 and up,
-- and the entries_after_cursor trigger refuses a row at or below the
-- cursor from any other writer (sqlite3, an older binary), which SQLite's
-- own max(id) + 1 could produce after the highest rows were deleted.
-- Ids above the cursor may come back after a delete; none of them is in
-- the index, so none is mistaken for an indexed row.
-- summary_messages keeps AUTOINCREMENT: it is written by compactions only.
--
-- Text stored once (issue 26). An entry stored its body and its extracted
-- text in full, and for the common message, {"role": …, "content": "…"},
-- the text is the content string: the bodies and their text were 55 and
-- 51 MiB of a 172 MiB database (bench workload 6). text is now a column
-- generated from text_stored, which holds the extracted text except where
-- it is json_extract(body, '$.content') for certain (here SQLite compares;
-- sqlstore's contentText decides for new rows, conservatively), so the
-- generated value is exactly the extracted text. Readers (the transcript
-- view, sqlite3, search) see text as before; writers write text_stored.
-- Another writer (sqlite3) writes text_stored: text can no longer be
-- written. PostgreSQL keeps its schema: TOAST already compresses long text, and its
-- identity sequence is not a page of a table.

-- +goose Up
DROP VIEW session_stats;
DROP VIEW transcript;

ALTER TABLE entries RENAME TO entries_v9;
CREATE TABLE entries (
    id          INTEGER PRIMARY KEY,          -- explicit, above the search cursor: see search_index
    session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    kind        TEXT NOT NULL,                -- message, custom, or a rich-entry type
    role        TEXT NOT NULL DEFAULT '',     -- extracted from body
    -- plain text extracted from body: text_stored, else body's content
    -- string ('' for a row written without text by another writer, as the
    -- column's old default, or with a body that is not JSON)
    text        TEXT NOT NULL GENERATED ALWAYS AS (coalesce(text_stored,
                    CASE WHEN json_valid(body) AND json_type(body, '$.content') = 'text'
                         THEN json_extract(body, '$.content') END, '')) VIRTUAL,
    body        TEXT NOT NULL,                -- JSON, byte for byte as given
    created_at  TEXT NOT NULL,
    text_stored TEXT,                         -- the extracted text; NULL when it is body's $.content
    UNIQUE (session_id, seq)
) STRICT;
INSERT INTO entries (id, session_id, seq, kind, role, text_stored, body, created_at)
SELECT id, session_id, seq, kind, role,
       CASE WHEN json_valid(body) AND json_extract(body, '$.content') IS text THEN NULL ELSE text END,
       body, created_at
FROM entries_v9 ORDER BY id;
DROP TABLE entries_v9;
DELETE FROM sqlite_sequence WHERE name = 'entries';

-- +goose StatementBegin
CREATE TRIGGER entries_unindex AFTER DELETE ON entries
WHEN old.text <> ''
    AND old.id <= (SELECT indexed_through FROM search_index WHERE source = 'entries') BEGIN
    INSERT OR IGNORE INTO search_deleted (source, id) VALUES ('entries', old.id);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER entries_after_cursor AFTER INSERT ON entries
WHEN new.id <= (SELECT indexed_through FROM search_index WHERE source = 'entries') BEGIN
    SELECT RAISE(ABORT, 'entries: a new row id must be above search_index.indexed_through (give an explicit id)');
END;
-- +goose StatementEnd

CREATE VIEW transcript AS
SELECT session_id,
       row_number() OVER (PARTITION BY session_id ORDER BY part, ord) AS position,
       seq, role, kind, text, body, created_at
FROM (
    SELECT c.session_id, 0 AS part, m.position AS ord, NULL AS seq,
           m.role, m.kind, m.text, m.body, m.created_at
    FROM current_compactions c
    JOIN summary_messages m ON m.compaction_id = c.id
    UNION ALL
    SELECT e.session_id, 1, e.seq, e.seq, e.role, e.kind, e.text, e.body, e.created_at
    FROM entries e
    WHERE e.seq >= coalesce(
        (SELECT keep_from_seq FROM compactions
         WHERE session_id = e.session_id ORDER BY id DESC LIMIT 1), 1)
);

CREATE VIEW session_stats AS
SELECT s.id, s.title, s.created_at, s.updated_at, s.sequence, s.source_format,
       s.message_count, s.entry_count,
       (SELECT coalesce(sum(length(CAST(body AS BLOB))), 0) FROM entries e WHERE e.session_id = s.id) AS body_bytes,
       (SELECT count(*) FROM usage u WHERE u.session_id = s.id) AS calls,
       (SELECT coalesce(sum(input_tokens), 0) FROM usage u WHERE u.session_id = s.id) AS input_tokens,
       (SELECT coalesce(sum(output_tokens), 0) FROM usage u WHERE u.session_id = s.id) AS output_tokens,
       (SELECT coalesce(sum(cost), 0) FROM usage u WHERE u.session_id = s.id) AS cost
FROM sessions s;

-- +goose Down
DROP VIEW session_stats;
DROP VIEW transcript;

ALTER TABLE entries RENAME TO entries_v10;
CREATE TABLE entries (
    id         INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: see search_index
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    kind       TEXT NOT NULL,                 -- message, custom, or a rich-entry type
    role       TEXT NOT NULL DEFAULT '',      -- extracted from body
    text       TEXT NOT NULL DEFAULT '',      -- plain text extracted from body
    body       TEXT NOT NULL,                 -- JSON, byte for byte as given
    created_at TEXT NOT NULL,
    UNIQUE (session_id, seq)
) STRICT;
INSERT INTO entries (id, session_id, seq, kind, role, text, body, created_at)
SELECT id, session_id, seq, kind, role, text, body, created_at FROM entries_v10 ORDER BY id;
DROP TABLE entries_v10;
-- AUTOINCREMENT continues above both the rows and the cursor.
DELETE FROM sqlite_sequence WHERE name = 'entries';
INSERT INTO sqlite_sequence (name, seq)
SELECT 'entries', max(coalesce((SELECT max(id) FROM entries), 0),
                      (SELECT indexed_through FROM search_index WHERE source = 'entries'));

-- +goose StatementBegin
CREATE TRIGGER entries_unindex AFTER DELETE ON entries
WHEN old.text <> ''
    AND old.id <= (SELECT indexed_through FROM search_index WHERE source = 'entries') BEGIN
    INSERT OR IGNORE INTO search_deleted (source, id) VALUES ('entries', old.id);
END;
-- +goose StatementEnd

CREATE VIEW transcript AS
SELECT session_id,
       row_number() OVER (PARTITION BY session_id ORDER BY part, ord) AS position,
       seq, role, kind, text, body, created_at
FROM (
    SELECT c.session_id, 0 AS part, m.position AS ord, NULL AS seq,
           m.role, m.kind, m.text, m.body, m.created_at
    FROM current_compactions c
    JOIN summary_messages m ON m.compaction_id = c.id
    UNION ALL
    SELECT e.session_id, 1, e.seq, e.seq, e.role, e.kind, e.text, e.body, e.created_at
    FROM entries e
    WHERE e.seq >= coalesce(
        (SELECT keep_from_seq FROM compactions
         WHERE session_id = e.session_id ORDER BY id DESC LIMIT 1), 1)
);

CREATE VIEW session_stats AS
SELECT s.id, s.title, s.created_at, s.updated_at, s.sequence, s.source_format,
       s.message_count, s.entry_count,
       (SELECT coalesce(sum(length(CAST(body AS BLOB))), 0) FROM entries e WHERE e.session_id = s.id) AS body_bytes,
       (SELECT count(*) FROM usage u WHERE u.session_id = s.id) AS calls,
       (SELECT coalesce(sum(input_tokens), 0) FROM usage u WHERE u.session_id = s.id) AS input_tokens,
       (SELECT coalesce(sum(output_tokens), 0) FROM usage u WHERE u.session_id = s.id) AS output_tokens,
       (SELECT coalesce(sum(cost), 0) FROM usage u WHERE u.session_id = s.id) AS cost
FROM sessions s;
