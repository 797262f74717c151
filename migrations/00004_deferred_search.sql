-- Full-text indexing leaves the write path (issue 12). Until version 3,
-- triggers updated the FTS5 index inside every write's transaction, and
-- FTS5 wrote (and merged) an index segment at the end of each one: that
-- was most of the CPU of an append. From this version on:
--
--   * Writes only insert rows. The index is brought up to date in batches
--     by sqlstore (one segment per batch), and search_index records, per
--     source table, the highest row id that is in the index: the cursor.
--     The cursor moves in the same transaction as the index, so a crash
--     anywhere leaves them in step, and the next writer catches up.
--   * Search reads the index up to the cursor and scans the rows after it,
--     so a search sees every committed row, indexed or not.
--   * Row ids never come back (AUTOINCREMENT): a row inserted after the
--     cursor always has a larger id than the cursor, so it is never taken
--     for an indexed one.
--   * The index is contentless (it keeps no text) with detail=none (it
--     keeps which rows hold each trigram, not where): about a fifth of the
--     size of the previous index. A term is found by the rows holding all
--     its trigrams, then checked against the row's text, so matches are
--     exact substrings (case-insensitive) as before.
--   * Deleting an indexed row records its id in search_deleted (a trigger,
--     so deletes made with sqlite3 are covered too); the indexer removes it
--     from the index later. Until then the row simply no longer joins.

-- +goose Up
DROP TRIGGER summary_fts_update;
DROP TRIGGER summary_fts_delete;
DROP TRIGGER summary_fts_insert;
DROP TRIGGER entries_fts_update;
DROP TRIGGER entries_fts_delete;
DROP TRIGGER entries_fts_insert;
DROP TABLE summary_fts;
DROP TABLE entries_fts;
DROP VIEW session_stats;
DROP VIEW transcript;

ALTER TABLE entries RENAME TO entries_v3;
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
SELECT id, session_id, seq, kind, role, text, body, created_at FROM entries_v3;
DROP TABLE entries_v3;

ALTER TABLE summary_messages RENAME TO summary_messages_v3;
CREATE TABLE summary_messages (
    id            INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: see search_index
    compaction_id INTEGER NOT NULL REFERENCES compactions (id) ON DELETE CASCADE,
    position      INTEGER NOT NULL,           -- 1-based order within the compaction
    kind          TEXT NOT NULL,
    role          TEXT NOT NULL DEFAULT '',
    text          TEXT NOT NULL DEFAULT '',
    body          TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    UNIQUE (compaction_id, position)
) STRICT;
INSERT INTO summary_messages (id, compaction_id, position, kind, role, text, body, created_at)
SELECT id, compaction_id, position, kind, role, text, body, created_at FROM summary_messages_v3;
DROP TABLE summary_messages_v3;

CREATE VIRTUAL TABLE entries_fts USING fts5 (
    text,
    content = '',
    contentless_delete = 1,
    detail = none,
    tokenize = 'trigram'
);

CREATE VIRTUAL TABLE summary_fts USING fts5 (
    text,
    content = '',
    contentless_delete = 1,
    detail = none,
    tokenize = 'trigram'
);

-- No automatic merges: FTS5 would merge segments at the end of every
-- indexing batch, and merging segments that hold deleted rows (tombstones)
-- cost about 1 ms of CPU per deleted row. sqlstore merges when idle
-- instead ('merge' commands between batches); crisismerge (16 segments on
-- one level) still bounds the segment count.
INSERT INTO entries_fts (entries_fts, rank) VALUES ('automerge', 0);
INSERT INTO summary_fts (summary_fts, rank) VALUES ('automerge', 0);

-- The indexing cursor: rows of source with id <= indexed_through are in
-- its index (entries_fts or summary_fts); later rows are not yet.
CREATE TABLE search_index (
    source          TEXT PRIMARY KEY,         -- entries or summary_messages
    indexed_through INTEGER NOT NULL DEFAULT 0
) STRICT;
INSERT INTO search_index (source) VALUES ('entries'), ('summary_messages');

-- Indexed rows deleted since, waiting to be removed from the index.
CREATE TABLE search_deleted (
    source TEXT NOT NULL,
    id     INTEGER NOT NULL,
    PRIMARY KEY (source, id)
) STRICT, WITHOUT ROWID;

-- +goose StatementBegin
CREATE TRIGGER entries_unindex AFTER DELETE ON entries
WHEN old.text <> ''
    AND old.id <= (SELECT indexed_through FROM search_index WHERE source = 'entries') BEGIN
    INSERT OR IGNORE INTO search_deleted (source, id) VALUES ('entries', old.id);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER summary_unindex AFTER DELETE ON summary_messages
WHEN old.text <> ''
    AND old.id <= (SELECT indexed_through FROM search_index WHERE source = 'summary_messages') BEGIN
    INSERT OR IGNORE INTO search_deleted (source, id) VALUES ('summary_messages', old.id);
END;
-- +goose StatementEnd

-- The effective transcript of every session, in order: the summary messages
-- of the current compaction (seq NULL), then the kept log entries.
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

-- Sessions with their counts, sizes and usage totals.
CREATE VIEW session_stats AS
SELECT s.id, s.title, s.created_at, s.updated_at, s.sequence, s.source_format,
       (SELECT count(*) FROM summary_messages m JOIN current_compactions c
          ON m.compaction_id = c.id WHERE c.session_id = s.id)
         + s.last_seq + 1 - coalesce((SELECT keep_from_seq FROM compactions
          WHERE session_id = s.id ORDER BY id DESC LIMIT 1), 1) AS message_count,
       (SELECT count(*) FROM entries e WHERE e.session_id = s.id) AS entry_count,
       (SELECT coalesce(sum(length(CAST(body AS BLOB))), 0) FROM entries e WHERE e.session_id = s.id) AS body_bytes,
       (SELECT count(*) FROM usage u WHERE u.session_id = s.id) AS calls,
       (SELECT coalesce(sum(input_tokens), 0) FROM usage u WHERE u.session_id = s.id) AS input_tokens,
       (SELECT coalesce(sum(output_tokens), 0) FROM usage u WHERE u.session_id = s.id) AS output_tokens,
       (SELECT coalesce(sum(cost), 0) FROM usage u WHERE u.session_id = s.id) AS cost
FROM sessions s;

-- +goose Down
DROP VIEW session_stats;
DROP VIEW transcript;
DROP TRIGGER summary_unindex;
DROP TRIGGER entries_unindex;
DROP TABLE search_deleted;
DROP TABLE search_index;
DROP TABLE summary_fts;
DROP TABLE entries_fts;

ALTER TABLE summary_messages RENAME TO summary_messages_v4;
CREATE TABLE summary_messages (
    id            INTEGER PRIMARY KEY,        -- rowid, stable handle for indexes
    compaction_id INTEGER NOT NULL REFERENCES compactions (id) ON DELETE CASCADE,
    position      INTEGER NOT NULL,           -- 1-based order within the compaction
    kind          TEXT NOT NULL,
    role          TEXT NOT NULL DEFAULT '',
    text          TEXT NOT NULL DEFAULT '',
    body          TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    UNIQUE (compaction_id, position)
) STRICT;
INSERT INTO summary_messages SELECT * FROM summary_messages_v4;
DROP TABLE summary_messages_v4;

ALTER TABLE entries RENAME TO entries_v4;
CREATE TABLE entries (
    id         INTEGER PRIMARY KEY,           -- rowid, stable handle for indexes
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    kind       TEXT NOT NULL,                 -- message, custom, or a rich-entry type
    role       TEXT NOT NULL DEFAULT '',      -- extracted from body
    text       TEXT NOT NULL DEFAULT '',      -- plain text extracted from body
    body       TEXT NOT NULL,                 -- JSON, byte for byte as given
    created_at TEXT NOT NULL,
    UNIQUE (session_id, seq)
) STRICT;
INSERT INTO entries SELECT * FROM entries_v4;
DROP TABLE entries_v4;
DELETE FROM sqlite_sequence WHERE name IN ('entries', 'summary_messages');

CREATE VIRTUAL TABLE entries_fts USING fts5 (
    text,
    content = 'entries',
    content_rowid = 'id',
    tokenize = 'trigram'
);

CREATE VIRTUAL TABLE summary_fts USING fts5 (
    text,
    content = 'summary_messages',
    content_rowid = 'id',
    tokenize = 'trigram'
);

-- +goose StatementBegin
CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries WHEN new.text <> '' BEGIN
    INSERT INTO entries_fts (rowid, text) VALUES (new.id, new.text);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries WHEN old.text <> '' BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER entries_fts_update AFTER UPDATE OF text ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, text) SELECT 'delete', old.id, old.text WHERE old.text <> '';
    INSERT INTO entries_fts (rowid, text) SELECT new.id, new.text WHERE new.text <> '';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER summary_fts_insert AFTER INSERT ON summary_messages WHEN new.text <> '' BEGIN
    INSERT INTO summary_fts (rowid, text) VALUES (new.id, new.text);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER summary_fts_delete AFTER DELETE ON summary_messages WHEN old.text <> '' BEGIN
    INSERT INTO summary_fts (summary_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER summary_fts_update AFTER UPDATE OF text ON summary_messages BEGIN
    INSERT INTO summary_fts (summary_fts, rowid, text) SELECT 'delete', old.id, old.text WHERE old.text <> '';
    INSERT INTO summary_fts (rowid, text) SELECT new.id, new.text WHERE new.text <> '';
END;
-- +goose StatementEnd

INSERT INTO entries_fts (rowid, text) SELECT id, text FROM entries WHERE text <> '';
INSERT INTO summary_fts (rowid, text) SELECT id, text FROM summary_messages WHERE text <> '';

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
       (SELECT count(*) FROM summary_messages m JOIN current_compactions c
          ON m.compaction_id = c.id WHERE c.session_id = s.id)
         + s.last_seq + 1 - coalesce((SELECT keep_from_seq FROM compactions
          WHERE session_id = s.id ORDER BY id DESC LIMIT 1), 1) AS message_count,
       (SELECT count(*) FROM entries e WHERE e.session_id = s.id) AS entry_count,
       (SELECT coalesce(sum(length(CAST(body AS BLOB))), 0) FROM entries e WHERE e.session_id = s.id) AS body_bytes,
       (SELECT count(*) FROM usage u WHERE u.session_id = s.id) AS calls,
       (SELECT coalesce(sum(input_tokens), 0) FROM usage u WHERE u.session_id = s.id) AS input_tokens,
       (SELECT coalesce(sum(output_tokens), 0) FROM usage u WHERE u.session_id = s.id) AS output_tokens,
       (SELECT coalesce(sum(cost), 0) FROM usage u WHERE u.session_id = s.id) AS cost
FROM sessions s;
