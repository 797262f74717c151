-- What the stores that sessiondb replaces need in one call (issue 44).
--
-- sessions.preview: the extracted text of the first user message of the
-- effective transcript (kind message or custom, role user, seq at or after
-- the current compaction's keep_from_seq; summary messages skipped), cut
-- to its first 200 characters; NULL when the transcript has none. Kept by
-- every write that changes the transcript, like message_count, so that a
-- session list shows each session's opening text without reading its log.
-- The sessions stored before get it here, by the same rule, from the
-- entries' extracted text.
--
-- usage_cumulative: the last running total a session reported through
-- Commit.CumulativeUsage (zot's AppendUsage(cum, cum)), against which the
-- next one is turned into the delta the ledger records. One row per
-- session that reported one; gone with the session, and with its ledger
-- (ReplaceUsage).
--
-- sessions_by_created: List by creation time (ListOptions.Order) is an
-- index walk, as the default order by update time is. Order by ID walks
-- the primary key.

-- +goose Up
ALTER TABLE sessions ADD COLUMN preview TEXT;

UPDATE sessions SET preview = (
    SELECT substr(e.text, 1, 200) FROM entries e
    WHERE e.session_id = sessions.id AND e.role = 'user' AND e.kind IN ('message', 'custom')
      AND e.seq >= coalesce((SELECT c.keep_from_seq FROM compactions c
                             WHERE c.session_id = sessions.id ORDER BY c.id DESC LIMIT 1), 1)
    ORDER BY e.seq LIMIT 1);

CREATE TABLE usage_cumulative (
    session_id            TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    input_tokens          INTEGER NOT NULL,
    output_tokens         INTEGER NOT NULL,
    cache_read_tokens     INTEGER NOT NULL,
    cache_write_tokens    INTEGER NOT NULL,
    cache_write_1h_tokens INTEGER NOT NULL,
    reasoning_tokens      INTEGER NOT NULL,
    cost                  REAL NOT NULL,
    updated_at            TEXT NOT NULL
) STRICT;

CREATE INDEX sessions_by_created ON sessions (created_at, id);

-- +goose Down
DROP INDEX sessions_by_created;
DROP TABLE usage_cumulative;
ALTER TABLE sessions DROP COLUMN preview;
