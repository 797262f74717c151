-- What the stores that sessiondb replaces need in one call (issue 44):
-- sessions.preview, usage_cumulative and sessions_by_created, as in the
-- SQLite migration 00014_seeds.sql (see there). PostgreSQL's substr
-- counts characters, as SQLite's does, so the backfilled preview is the
-- one the store writes.

-- +goose Up
ALTER TABLE sessions ADD COLUMN preview text;

UPDATE sessions SET preview = (
    SELECT substr(e.text, 1, 200) FROM entries e
    WHERE e.session_id = sessions.id AND e.role = 'user' AND e.kind IN ('message', 'custom')
      AND e.seq >= coalesce((SELECT c.keep_from_seq FROM compactions c
                             WHERE c.session_id = sessions.id ORDER BY c.id DESC LIMIT 1), 1)
    ORDER BY e.seq LIMIT 1);

CREATE TABLE usage_cumulative (
    session_id            text COLLATE "C" PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    input_tokens          bigint NOT NULL,
    output_tokens         bigint NOT NULL,
    cache_read_tokens     bigint NOT NULL,
    cache_write_tokens    bigint NOT NULL,
    cache_write_1h_tokens bigint NOT NULL,
    reasoning_tokens      bigint NOT NULL,
    cost                  double precision NOT NULL,
    updated_at            text COLLATE "C" NOT NULL
);

CREATE INDEX sessions_by_created ON sessions (created_at, id);

-- +goose Down
DROP INDEX sessions_by_created;
DROP TABLE usage_cumulative;
ALTER TABLE sessions DROP COLUMN preview;
