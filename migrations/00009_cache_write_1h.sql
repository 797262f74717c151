-- Usage rows say how many of their cache writes were cached for one hour
-- (issue 21). Anthropic bills a cache write by its lifetime: 1.25x the
-- input rate for the default five minutes, 2x for one hour; Claude Code
-- 2.x writes most of its cache for one hour and splits each response's
-- cache_creation_input_tokens into ephemeral_5m_input_tokens and
-- ephemeral_1h_input_tokens.
--
-- cache_write_1h_tokens: the part of cache_write_tokens written for one
-- hour (0 <= cache_write_1h_tokens <= cache_write_tokens; 0 for rows of
-- tools that do not split, and for every row written before this
-- version). cache_write_tokens keeps counting all cache writes, so sums
-- and reports that read it are unchanged. Estimated costs of rows with
-- 1-hour writes price them at the model's 1-hour rate (sessiondb.Price).
--
-- usage_daily gains the column's sum, after cache_write_tokens.

-- +goose Up
ALTER TABLE usage ADD COLUMN cache_write_1h_tokens INTEGER NOT NULL DEFAULT 0
    CHECK (cache_write_1h_tokens = 0 OR cache_write_1h_tokens BETWEEN 1 AND cache_write_tokens);

DROP VIEW usage_daily;
-- Usage per session, model and day (UTC).
CREATE VIEW usage_daily AS
SELECT session_id, provider, model, substr(created_at, 1, 10) AS day,
       count(*) AS calls,
       sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
       sum(cache_read_tokens) AS cache_read_tokens,
       sum(cache_write_tokens) AS cache_write_tokens,
       sum(cache_write_1h_tokens) AS cache_write_1h_tokens,
       sum(reasoning_tokens) AS reasoning_tokens, sum(cost) AS cost
FROM usage
GROUP BY session_id, provider, model, day;

-- +goose Down
DROP VIEW usage_daily;
CREATE VIEW usage_daily AS
SELECT session_id, provider, model, substr(created_at, 1, 10) AS day,
       count(*) AS calls,
       sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
       sum(cache_read_tokens) AS cache_read_tokens,
       sum(cache_write_tokens) AS cache_write_tokens,
       sum(reasoning_tokens) AS reasoning_tokens, sum(cost) AS cost
FROM usage
GROUP BY session_id, provider, model, day;

ALTER TABLE usage DROP COLUMN cache_write_1h_tokens;
