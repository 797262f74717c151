-- Usage rows say how many of their cache writes were cached for one hour:
-- cache_write_1h_tokens, the part of cache_write_tokens written for one
-- hour (see the SQLite migration 00009_cache_write_1h.sql for the rules).
-- usage_daily gains the column's sum, after cache_write_tokens.

-- +goose Up
ALTER TABLE usage ADD COLUMN cache_write_1h_tokens bigint NOT NULL DEFAULT 0
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
       sum(reasoning_tokens) AS reasoning_tokens, sum(cost)::numeric AS cost
FROM usage
GROUP BY session_id, provider, model, substr(created_at, 1, 10);

-- +goose Down
DROP VIEW usage_daily;
CREATE VIEW usage_daily AS
SELECT session_id, provider, model, substr(created_at, 1, 10) AS day,
       count(*) AS calls,
       sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
       sum(cache_read_tokens) AS cache_read_tokens,
       sum(cache_write_tokens) AS cache_write_tokens,
       sum(reasoning_tokens) AS reasoning_tokens, sum(cost)::numeric AS cost
FROM usage
GROUP BY session_id, provider, model, substr(created_at, 1, 10);

ALTER TABLE usage DROP COLUMN cache_write_1h_tokens;
