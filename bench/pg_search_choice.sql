-- The measurement behind pgstore's choice of pg_trgm over tsvector for search
-- (pgstore/doc.go, # Search). Run: psql -h 127.0.0.1 -U postgres -d postgres -f bench/pg_search_choice.sql
-- It creates and drops the database sdb_searchbench.
\timing on
DROP DATABASE IF EXISTS sdb_searchbench;
CREATE DATABASE sdb_searchbench;
\c sdb_searchbench
CREATE EXTENSION pg_trgm;
CREATE TABLE words AS SELECT * FROM unnest(string_to_array('the database was locked again and then migration failed because parser module refactor deploy rocket build shipped please session agent tool call result error retry timeout network server client request response token model prompt context window summary compaction checkpoint fork restore search index query ranking phrase exact relevance', ' ')) WITH ORDINALITY w(word, n);
CREATE TABLE t_trgm (id bigserial PRIMARY KEY, text text NOT NULL);
CREATE TABLE t_tsv (id bigserial PRIMARY KEY, text text NOT NULL);
-- 200k entries of ~40 random words; 1 in 100 also holds a Chinese sentence.
CREATE TEMP TABLE src AS
SELECT g, (SELECT string_agg(word, ' ') FROM (SELECT word FROM words ORDER BY random() + g*0 LIMIT 40) x)
   || CASE WHEN g % 100 = 0 THEN ' 我们明天去北京开会，记得带上护照' ELSE '' END AS text
FROM generate_series(1, 200000) g;
CREATE INDEX t_trgm_gin ON t_trgm USING gin (text gin_trgm_ops);
CREATE INDEX t_tsv_gin ON t_tsv USING gin (to_tsvector('simple', text));
\echo insert into trigram-indexed table
INSERT INTO t_trgm (text) SELECT text FROM src;
\echo insert into tsvector-indexed table
INSERT INTO t_tsv (text) SELECT text FROM src;
VACUUM ANALYZE t_trgm; VACUUM ANALYZE t_tsv;
SELECT 'trgm index', pg_size_pretty(pg_relation_size('t_trgm_gin')) UNION ALL SELECT 'tsv index', pg_size_pretty(pg_relation_size('t_tsv_gin')) UNION ALL SELECT 'table', pg_size_pretty(pg_relation_size('t_trgm'));
\echo rare word pair, trigram
SELECT count(*) FROM t_trgm WHERE text ILIKE '%北京开会%';
SELECT count(*) FROM t_trgm WHERE text ILIKE '%北京开会%';
\echo CJK word, tsvector (simple parser)
SELECT count(*) FROM t_tsv WHERE to_tsvector('simple', text) @@ plainto_tsquery('simple', '北京开会');
SELECT count(*) FROM t_tsv WHERE to_tsvector('simple', text) @@ plainto_tsquery('simple', '北京开会');
\echo common English word, top 50 by rank, trigram
SELECT count(*) FROM (SELECT id FROM t_trgm WHERE text ILIKE '%migration%' AND text ILIKE '%locked%' LIMIT 50) x;
SELECT count(*) FROM (SELECT id FROM t_trgm WHERE text ILIKE '%migration%' AND text ILIKE '%locked%' LIMIT 50) x;
\echo common English words, tsvector
SELECT count(*) FROM (SELECT id FROM t_tsv WHERE to_tsvector('simple', text) @@ plainto_tsquery('simple', 'migration locked') LIMIT 50) x;
SELECT count(*) FROM (SELECT id FROM t_tsv WHERE to_tsvector('simple', text) @@ plainto_tsquery('simple', 'migration locked') LIMIT 50) x;
\echo absent substring, trigram
SELECT count(*) FROM t_trgm WHERE text ILIKE '%nothing-like-this%';
\echo absent word, tsvector
SELECT count(*) FROM t_tsv WHERE to_tsvector('simple', text) @@ plainto_tsquery('simple', 'nothinglikethis');
EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*) FROM t_trgm WHERE text ILIKE '%北京开会%';
\c postgres
DROP DATABASE sdb_searchbench;
