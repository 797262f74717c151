-- The views' columns get types on which the same ad-hoc SQL works on both
-- backends, and sizes count the bytes the caller stored (issue 23).
--
-- cost: SQLite's round(x, n) takes any number; PostgreSQL has
-- round(numeric, int) but no round(double precision, int), so
-- "round(cost, 4)" (the README's examples) failed on PostgreSQL. The cost
-- columns of session_stats and usage_daily are numeric now (the usage
-- table keeps double precision: what the caller gave, to the bit).
--
-- Text PostgreSQL cannot hold as it is (U+0000, bytes that are not UTF-8)
-- is stored escaped by pgstore: the character U+FFFF, then the text in
-- PostgreSQL's "escape" format for bytes (backslash doubled, each byte that
-- text cannot hold as a backslash and three octal digits). Everything
-- else is stored as it is. sessiondb_bytes(value) gives any stored text's
-- exact bytes; session_stats.body_bytes counts them, as SQLite's does.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION sessiondb_bytes(value text) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN starts_with(value, chr(65535))
                THEN decode(substr(value, 2), 'escape')
                ELSE convert_to(value, 'UTF8') END
$$;
-- +goose StatementEnd

DROP VIEW session_stats;
DROP VIEW usage_daily;

-- Usage per session, model and day (UTC).
CREATE VIEW usage_daily AS
SELECT session_id, provider, model, substr(created_at, 1, 10) AS day,
       count(*) AS calls,
       sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
       sum(cache_read_tokens) AS cache_read_tokens,
       sum(cache_write_tokens) AS cache_write_tokens,
       sum(reasoning_tokens) AS reasoning_tokens, sum(cost)::numeric AS cost
FROM usage
GROUP BY session_id, provider, model, substr(created_at, 1, 10);

-- Sessions with their counts, sizes and usage totals. The counts are the
-- kept columns (00006_kept_counts.sql).
CREATE VIEW session_stats AS
SELECT s.id, s.title, s.created_at, s.updated_at, s.sequence, s.source_format,
       s.message_count, s.entry_count,
       (SELECT coalesce(sum(CASE WHEN starts_with(body, chr(65535))
                                 THEN octet_length(sessiondb_bytes(body))
                                 ELSE octet_length(body) END), 0)
          FROM entries e WHERE e.session_id = s.id) AS body_bytes,
       (SELECT count(*) FROM usage u WHERE u.session_id = s.id) AS calls,
       (SELECT coalesce(sum(input_tokens), 0) FROM usage u WHERE u.session_id = s.id) AS input_tokens,
       (SELECT coalesce(sum(output_tokens), 0) FROM usage u WHERE u.session_id = s.id) AS output_tokens,
       (SELECT coalesce(sum(cost), 0)::numeric FROM usage u WHERE u.session_id = s.id) AS cost
FROM sessions s;

-- +goose Down
DROP VIEW session_stats;
DROP VIEW usage_daily;

CREATE VIEW usage_daily AS
SELECT session_id, provider, model, substr(created_at, 1, 10) AS day,
       count(*) AS calls,
       sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
       sum(cache_read_tokens) AS cache_read_tokens,
       sum(cache_write_tokens) AS cache_write_tokens,
       sum(reasoning_tokens) AS reasoning_tokens, sum(cost) AS cost
FROM usage
GROUP BY session_id, provider, model, substr(created_at, 1, 10);

CREATE VIEW session_stats AS
SELECT s.id, s.title, s.created_at, s.updated_at, s.sequence, s.source_format,
       s.message_count, s.entry_count,
       (SELECT coalesce(sum(octet_length(body)), 0) FROM entries e WHERE e.session_id = s.id) AS body_bytes,
       (SELECT count(*) FROM usage u WHERE u.session_id = s.id) AS calls,
       (SELECT coalesce(sum(input_tokens), 0) FROM usage u WHERE u.session_id = s.id) AS input_tokens,
       (SELECT coalesce(sum(output_tokens), 0) FROM usage u WHERE u.session_id = s.id) AS output_tokens,
       (SELECT coalesce(sum(cost), 0) FROM usage u WHERE u.session_id = s.id) AS cost
FROM sessions s;

DROP FUNCTION sessiondb_bytes(text);
