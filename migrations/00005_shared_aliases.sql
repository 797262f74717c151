-- Shared aliases. An alias is a note on a session, not a unique name:
-- several sessions may list the same alias, as picoclaw lists
-- "agent:main:main" on every routed session. session_aliases loses its
-- UNIQUE (alias) and gains UNIQUE (session_id, alias); its id still keeps
-- each session's aliases in the order given. Which holder a name resolves
-- to is decided by Resolve (see sessiondb.Store.Resolve), not by the schema.
--
-- The importer used to register only the first holder of a shared alias
-- and kept the source's full list in attrs.source_aliases; those lists are
-- folded back into real aliases here (when every element is a valid alias)
-- and the member is removed from attrs.

-- +goose Up
ALTER TABLE session_aliases RENAME TO session_aliases_unique;

CREATE TABLE session_aliases (
    id         INTEGER PRIMARY KEY,           -- keeps each session's aliases in the order given
    alias      TEXT NOT NULL,                 -- several sessions may list the same alias
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    UNIQUE (session_id, alias)
) STRICT;

INSERT INTO session_aliases (id, alias, session_id)
SELECT id, alias, session_id FROM session_aliases_unique ORDER BY id;

DROP INDEX session_aliases_by_session;
DROP TABLE session_aliases_unique;

CREATE INDEX session_aliases_by_session ON session_aliases (session_id, id);
CREATE INDEX session_aliases_by_alias ON session_aliases (alias);

-- Sessions whose attrs.source_aliases is an array of valid aliases
-- (non-empty text of at most 512 bytes without control characters).
CREATE TEMP TABLE fold_aliases AS
SELECT s.id AS session_id
FROM sessions s
WHERE json_valid(s.attrs)
  AND json_type(s.attrs, '$.source_aliases') = 'array'
  AND NOT EXISTS (
      SELECT 1 FROM json_each(s.attrs, '$.source_aliases') j
      WHERE j.type <> 'text' OR j.value = '' OR length(CAST(j.value AS BLOB)) > 512
         OR j.value GLOB ('*[' || char(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
                                          20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 127) || ']*')
         OR instr(j.value, char(0)) > 0);

DELETE FROM session_aliases WHERE session_id IN (SELECT session_id FROM fold_aliases);

-- In list order, first occurrence kept, the session's own ID left out.
INSERT OR IGNORE INTO session_aliases (alias, session_id)
SELECT j.value, s.id
FROM sessions s
JOIN fold_aliases f ON f.session_id = s.id, json_each(s.attrs, '$.source_aliases') j
WHERE j.value <> s.id
ORDER BY s.id, j.key;

UPDATE sessions
SET attrs = nullif(json_remove(attrs, '$.source_aliases'), '{}')
WHERE id IN (SELECT session_id FROM fold_aliases);

DROP TABLE fold_aliases;

-- +goose Down
-- Back to one holder per alias: the first holder in Resolve's order keeps
-- it; every session that loses one keeps its full list in
-- attrs.source_aliases, as the importer of that schema did.
UPDATE sessions
SET attrs = json_set(CASE WHEN json_valid(attrs) AND json_type(attrs) = 'object' THEN attrs ELSE '{}' END,
                     '$.source_aliases',
                     json((SELECT json_group_array(alias) FROM
                        (SELECT alias FROM session_aliases WHERE session_id = sessions.id ORDER BY id))))
WHERE id IN (
    SELECT a.session_id FROM session_aliases a
    WHERE EXISTS (SELECT 1 FROM session_aliases b WHERE b.alias = a.alias AND b.session_id <> a.session_id
                  AND (replace(replace(replace(b.session_id, ':', '_'), '/', '_'), '\', '_') || '.meta.json', b.session_id)
                    < (replace(replace(replace(a.session_id, ':', '_'), '/', '_'), '\', '_') || '.meta.json', a.session_id))
       OR EXISTS (SELECT 1 FROM sessions t WHERE t.id = a.alias));

ALTER TABLE session_aliases RENAME TO session_aliases_shared;

CREATE TABLE session_aliases (
    id         INTEGER PRIMARY KEY,           -- keeps the aliases in the order given
    alias      TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE
) STRICT;

INSERT OR IGNORE INTO session_aliases (id, alias, session_id)
SELECT a.id, a.alias, a.session_id FROM session_aliases_shared a
WHERE NOT EXISTS (SELECT 1 FROM sessions t WHERE t.id = a.alias)
ORDER BY replace(replace(replace(a.session_id, ':', '_'), '/', '_'), '\', '_') || '.meta.json', a.session_id, a.id;

DROP INDEX session_aliases_by_session;
DROP INDEX session_aliases_by_alias;
DROP TABLE session_aliases_shared;

CREATE INDEX session_aliases_by_session ON session_aliases (session_id);
