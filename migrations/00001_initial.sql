-- The sessiondb schema. It is a public interface: people query it with
-- sqlite3 or `sessionctl sql`, so tables and columns are named for them.
-- Times are UTC text 'YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ' (sorts as it reads).
-- JSON columns hold the exact bytes the caller gave.

-- +goose Up
CREATE TABLE sessions (
    id            TEXT PRIMARY KEY,
    title         TEXT NOT NULL DEFAULT '',
    summary       TEXT NOT NULL DEFAULT '',
    scope         TEXT,                       -- JSON, NULL when unset
    attrs         TEXT,                       -- JSON (model, provider, cwd, ...)
    version       INTEGER NOT NULL DEFAULT 0, -- payload schema version of the bodies
    sequence      INTEGER NOT NULL DEFAULT 0, -- revision: +1 per committed change
    last_seq      INTEGER NOT NULL DEFAULT 0, -- highest entry seq ever assigned
    parent_id     TEXT,                       -- fork parent (no FK: a parent may be deleted)
    fork_seq      INTEGER,
    source_format TEXT,                       -- picoclaw, zot, swink; NULL when native
    source_path   TEXT,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
) STRICT;

-- Listing newest first is an index walk, not a sort of every session.
CREATE INDEX sessions_by_updated ON sessions (updated_at DESC, id DESC);
CREATE INDEX sessions_by_parent ON sessions (parent_id) WHERE parent_id IS NOT NULL;

CREATE TABLE session_aliases (
    id         INTEGER PRIMARY KEY,           -- keeps the aliases in the order given
    alias      TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE
) STRICT;
CREATE INDEX session_aliases_by_session ON session_aliases (session_id);

-- The append-only log. seq is 1-based per session and never reused.
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

-- A compaction checkpoint: the transcript is its summary messages followed
-- by the entries with seq >= keep_from_seq. The highest id is current.
CREATE TABLE compactions (
    id            INTEGER PRIMARY KEY,
    session_id    TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    at_seq        INTEGER NOT NULL,
    keep_from_seq INTEGER NOT NULL,
    tokens_before INTEGER NOT NULL DEFAULT 0,
    tokens_after  INTEGER NOT NULL DEFAULT 0,
    details       TEXT,                       -- JSON
    created_at    TEXT NOT NULL
) STRICT;
CREATE INDEX compactions_by_session ON compactions (session_id, id);

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

CREATE TABLE states (
    session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    body       TEXT NOT NULL,                 -- JSON
    updated_at TEXT NOT NULL
) STRICT;

CREATE TABLE interrupts (
    session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    body       TEXT NOT NULL,                 -- JSON
    updated_at TEXT NOT NULL
) STRICT;

-- Agent checkpoints (time travel): a position in the log plus the state.
CREATE TABLE checkpoints (
    id            TEXT PRIMARY KEY,
    session_id    TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    label         TEXT NOT NULL DEFAULT '',
    at_seq        INTEGER NOT NULL,
    compaction_id INTEGER,                    -- compaction current at at_seq
    state         TEXT,                       -- JSON
    metadata      TEXT,                       -- JSON
    created_at    TEXT NOT NULL
) STRICT;
CREATE INDEX checkpoints_by_session ON checkpoints (session_id, created_at DESC, id DESC);

-- One row per model call.
CREATE TABLE usage (
    id                 INTEGER PRIMARY KEY,
    session_id         TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq                INTEGER,               -- the entry it produced, when known
    provider           TEXT NOT NULL DEFAULT '',
    model              TEXT NOT NULL DEFAULT '',
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens   INTEGER NOT NULL DEFAULT 0,
    cost               REAL NOT NULL DEFAULT 0,
    created_at         TEXT NOT NULL
) STRICT;
CREATE INDEX usage_by_session ON usage (session_id, created_at);

-- Import provenance: what was consumed of each source file.
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

-- The current compaction of each session that has one.
CREATE VIEW current_compactions AS
SELECT c.*
FROM compactions c
WHERE c.id = (SELECT max(id) FROM compactions WHERE session_id = c.session_id);

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

-- Usage per session, model and day (UTC).
CREATE VIEW usage_daily AS
SELECT session_id, provider, model, substr(created_at, 1, 10) AS day,
       count(*) AS calls,
       sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
       sum(cache_read_tokens) AS cache_read_tokens,
       sum(cache_write_tokens) AS cache_write_tokens,
       sum(reasoning_tokens) AS reasoning_tokens, sum(cost) AS cost
FROM usage
GROUP BY session_id, provider, model, day;

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
DROP VIEW usage_daily;
DROP VIEW transcript;
DROP VIEW current_compactions;
DROP TABLE source_files;
DROP TABLE usage;
DROP TABLE checkpoints;
DROP TABLE interrupts;
DROP TABLE states;
DROP TABLE summary_messages;
DROP TABLE compactions;
DROP TABLE entries;
DROP TABLE session_aliases;
DROP TABLE sessions;
