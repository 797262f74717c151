-- Counts kept, not counted (the PostgreSQL side of SQLite's 00008; see
-- migrations/00008_kept_counts.sql for what the columns hold and why).
-- message_count counts the messages of the effective transcript (kinds
-- 'message' and 'custom', summary messages of the current compaction
-- included); entry_count the rows in entries. pgstore sets both in the
-- transaction of every write that changes them.

-- +goose Up
ALTER TABLE sessions ADD COLUMN message_count bigint NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN entry_count bigint NOT NULL DEFAULT 0;

UPDATE sessions s SET
    entry_count = (SELECT count(*) FROM entries e WHERE e.session_id = s.id),
    message_count =
        (SELECT count(*) FROM summary_messages m
         WHERE m.compaction_id = (SELECT max(id) FROM compactions c WHERE c.session_id = s.id)
           AND m.kind IN ('message', 'custom'))
      + (SELECT count(*) FROM entries e
         WHERE e.session_id = s.id
           AND e.seq >= coalesce((SELECT keep_from_seq FROM compactions c
                                  WHERE c.session_id = s.id ORDER BY c.id DESC LIMIT 1), 1)
           AND e.kind IN ('message', 'custom'));

-- Sessions with their counts, sizes and usage totals. The counts are the
-- kept columns; the sizes and usage totals are still summed on read.
DROP VIEW session_stats;
CREATE VIEW session_stats AS
SELECT s.id, s.title, s.created_at, s.updated_at, s.sequence, s.source_format,
       s.message_count, s.entry_count,
       (SELECT coalesce(sum(octet_length(body)), 0) FROM entries e WHERE e.session_id = s.id) AS body_bytes,
       (SELECT count(*) FROM usage u WHERE u.session_id = s.id) AS calls,
       (SELECT coalesce(sum(input_tokens), 0) FROM usage u WHERE u.session_id = s.id) AS input_tokens,
       (SELECT coalesce(sum(output_tokens), 0) FROM usage u WHERE u.session_id = s.id) AS output_tokens,
       (SELECT coalesce(sum(cost), 0) FROM usage u WHERE u.session_id = s.id) AS cost
FROM sessions s;

-- +goose Down
DROP VIEW session_stats;
CREATE VIEW session_stats AS
SELECT s.id, s.title, s.created_at, s.updated_at, s.sequence, s.source_format,
       (SELECT count(*) FROM summary_messages m JOIN current_compactions c
          ON m.compaction_id = c.id WHERE c.session_id = s.id)
         + s.last_seq + 1 - coalesce((SELECT keep_from_seq FROM compactions
          WHERE session_id = s.id ORDER BY id DESC LIMIT 1), 1) AS message_count,
       (SELECT count(*) FROM entries e WHERE e.session_id = s.id) AS entry_count,
       (SELECT coalesce(sum(octet_length(body)), 0) FROM entries e WHERE e.session_id = s.id) AS body_bytes,
       (SELECT count(*) FROM usage u WHERE u.session_id = s.id) AS calls,
       (SELECT coalesce(sum(input_tokens), 0) FROM usage u WHERE u.session_id = s.id) AS input_tokens,
       (SELECT coalesce(sum(output_tokens), 0) FROM usage u WHERE u.session_id = s.id) AS output_tokens,
       (SELECT coalesce(sum(cost), 0) FROM usage u WHERE u.session_id = s.id) AS cost
FROM sessions s;

ALTER TABLE sessions DROP COLUMN entry_count;
ALTER TABLE sessions DROP COLUMN message_count;
