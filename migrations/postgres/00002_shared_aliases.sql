-- Shared aliases (the PostgreSQL side of SQLite's 00005). An alias is a
-- note on a session, not a unique name: several sessions may list the
-- same alias, as picoclaw lists "agent:main:main" on every routed session.
-- session_aliases loses its UNIQUE (alias) and gains UNIQUE (session_id,
-- alias); its id still keeps each session's aliases in the order given.
-- Which holder a name resolves to is decided by Resolve (see
-- sessiondb.Store.Resolve), not by the schema.
--
-- The importer used to register only the first holder of a shared alias
-- and kept the source's full list in attrs.source_aliases; those lists are
-- folded back into real aliases here (when attrs is a JSON object and every
-- element is a valid alias) and the member is removed from attrs.

-- +goose Up
ALTER TABLE session_aliases DROP CONSTRAINT session_aliases_alias_key;
ALTER TABLE session_aliases ADD CONSTRAINT session_aliases_session_alias_key UNIQUE (session_id, alias);
DROP INDEX session_aliases_by_session;
CREATE INDEX session_aliases_by_session ON session_aliases (session_id, id);
CREATE INDEX session_aliases_by_alias ON session_aliases (alias);

-- attrs is text holding the caller's bytes: parse it without failing on
-- text that is not JSON (or that jsonb refuses, such as \u0000).
-- +goose StatementBegin
CREATE FUNCTION pg_temp.sessiondb_try_jsonb(t text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN t::jsonb;
EXCEPTION WHEN others THEN
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- Sessions whose attrs.source_aliases is an array of valid aliases
-- (non-empty text of at most 512 bytes without control characters).
CREATE TEMP TABLE fold_aliases AS
SELECT s.id AS session_id, pg_temp.sessiondb_try_jsonb(s.attrs) AS attrs
FROM sessions s
WHERE s.attrs IS NOT NULL
  AND jsonb_typeof(pg_temp.sessiondb_try_jsonb(s.attrs)) = 'object'
  AND jsonb_typeof(pg_temp.sessiondb_try_jsonb(s.attrs) -> 'source_aliases') = 'array';

DELETE FROM fold_aliases f
WHERE EXISTS (
    SELECT 1 FROM jsonb_array_elements(f.attrs -> 'source_aliases') j(v)
    WHERE jsonb_typeof(j.v) <> 'string'
       OR j.v #>> '{}' = ''
       OR octet_length(j.v #>> '{}') > 512
       OR j.v #>> '{}' ~ '[\x01-\x1f\x7f]');

DELETE FROM session_aliases WHERE session_id IN (SELECT session_id FROM fold_aliases);

-- In list order, first occurrence kept, the session's own ID left out.
INSERT INTO session_aliases (alias, session_id)
SELECT j.alias, j.session_id FROM (
    SELECT f.session_id, e.v #>> '{}' AS alias, min(e.n) AS n
    FROM fold_aliases f, jsonb_array_elements(f.attrs -> 'source_aliases') WITH ORDINALITY e(v, n)
    WHERE e.v #>> '{}' <> f.session_id
    GROUP BY f.session_id, e.v #>> '{}'
) j
ORDER BY j.session_id, j.n;

UPDATE sessions s
SET attrs = nullif((f.attrs - 'source_aliases')::text, '{}')
FROM fold_aliases f
WHERE f.session_id = s.id;

DROP TABLE fold_aliases;
DROP FUNCTION pg_temp.sessiondb_try_jsonb(text);

-- +goose Down
-- Back to one holder per alias: the first holder in Resolve's order keeps
-- it; every session that loses one keeps its full list in
-- attrs.source_aliases, as the importer of that schema did. An alias equal
-- to a session's ID is dropped (that schema refused it).
-- +goose StatementBegin
CREATE FUNCTION pg_temp.sessiondb_try_jsonb(t text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN t::jsonb;
EXCEPTION WHEN others THEN
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

UPDATE sessions
SET attrs = jsonb_set(
        CASE WHEN jsonb_typeof(pg_temp.sessiondb_try_jsonb(attrs)) = 'object'
             THEN pg_temp.sessiondb_try_jsonb(attrs) ELSE '{}'::jsonb END,
        '{source_aliases}',
        (SELECT coalesce(jsonb_agg(alias ORDER BY id), '[]'::jsonb) FROM session_aliases
         WHERE session_id = sessions.id))::text
WHERE id IN (
    SELECT a.session_id FROM session_aliases a
    WHERE EXISTS (SELECT 1 FROM session_aliases b WHERE b.alias = a.alias AND b.session_id <> a.session_id
                  AND (replace(replace(replace(b.session_id, ':', '_'), '/', '_'), '\', '_') || '.meta.json' COLLATE "C", b.session_id COLLATE "C")
                    < (replace(replace(replace(a.session_id, ':', '_'), '/', '_'), '\', '_') || '.meta.json' COLLATE "C", a.session_id COLLATE "C"))
       OR EXISTS (SELECT 1 FROM sessions t WHERE t.id = a.alias));

DELETE FROM session_aliases a WHERE EXISTS (SELECT 1 FROM sessions t WHERE t.id = a.alias);

DELETE FROM session_aliases a
WHERE EXISTS (SELECT 1 FROM session_aliases b WHERE b.alias = a.alias AND b.session_id <> a.session_id
              AND (replace(replace(replace(b.session_id, ':', '_'), '/', '_'), '\', '_') || '.meta.json' COLLATE "C", b.session_id COLLATE "C")
                < (replace(replace(replace(a.session_id, ':', '_'), '/', '_'), '\', '_') || '.meta.json' COLLATE "C", a.session_id COLLATE "C"));

DROP FUNCTION pg_temp.sessiondb_try_jsonb(text);

DROP INDEX session_aliases_by_alias;
DROP INDEX session_aliases_by_session;
CREATE INDEX session_aliases_by_session ON session_aliases (session_id);
ALTER TABLE session_aliases DROP CONSTRAINT session_aliases_session_alias_key;
ALTER TABLE session_aliases ADD CONSTRAINT session_aliases_alias_key UNIQUE (alias);
