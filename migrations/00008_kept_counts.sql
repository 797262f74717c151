-- Counts kept, not counted (issue 26). Until this version every read of a
-- session counted its log: Get, LoadFull and List ran count(*) over the
-- session's entries (a range scan of the whole log: 4.7 ms on 100,000
-- entries), and session_stats did the same. The sessions row now keeps
--
--   message_count  the number of messages in the effective transcript:
--                  entries of kind 'message' or 'custom' (an LLM message,
--                  an application-defined message) with seq >= the current
--                  compaction's keep_from_seq, plus the summary messages of
--                  that compaction of those kinds. Bookkeeping entries that
--                  importers keep in the transcript range (model_change,
--                  progress, file-history-snapshot, the further lines of
--                  one streamed response, kind 'message-part', ...) are not
--                  messages and are not counted. Until this version
--                  session_stats.message_count counted every entry of the
--                  transcript; it now counts messages.
--   entry_count    the number of rows the session has in entries
--                  (superseded ones included, pruned ones not).
--
-- sqlstore and pgstore set both in the transaction of every write that
-- changes them; nothing else does (no trigger: a trigger would run on every
-- append). A write made with sqlite3 directly to entries, compactions or
-- summary_messages leaves them stale.
--
-- The backfill below counts what each session holds, once.

-- +goose Up
ALTER TABLE sessions ADD COLUMN message_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN entry_count INTEGER NOT NULL DEFAULT 0;

UPDATE sessions SET
    entry_count = (SELECT count(*) FROM entries e WHERE e.session_id = sessions.id),
    message_count =
        (SELECT count(*) FROM summary_messages m
         WHERE m.compaction_id = (SELECT max(id) FROM compactions c WHERE c.session_id = sessions.id)
           AND m.kind IN ('message', 'custom'))
      + (SELECT count(*) FROM entries e
         WHERE e.session_id = sessions.id
           AND e.seq >= coalesce((SELECT keep_from_seq FROM compactions c
                                  WHERE c.session_id = sessions.id ORDER BY c.id DESC LIMIT 1), 1)
           AND e.kind IN ('message', 'custom'));

-- Sessions with their counts, sizes and usage totals. The counts are the
-- kept columns; the sizes and usage totals are still summed on read.
DROP VIEW session_stats;
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

ALTER TABLE sessions DROP COLUMN entry_count;
ALTER TABLE sessions DROP COLUMN message_count;
