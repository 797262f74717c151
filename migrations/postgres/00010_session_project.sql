-- Sessions keep their project: the working directory the agent ran in,
-- as the agent records it (see the SQLite migration
-- 00013_session_project.sql). NULL when unknown. The sessions imported
-- before get it from attrs.cwd; attrs is text that is not always JSON
-- PostgreSQL reads (a NUL escape, text stored escaped by the store), so
-- each row is read on its own and one that does not parse keeps NULL.

-- +goose Up
ALTER TABLE sessions ADD COLUMN project text;

-- +goose StatementBegin
DO $$
DECLARE
    r record;
    cwd text;
BEGIN
    FOR r IN SELECT id, attrs FROM sessions WHERE attrs LIKE '%"cwd"%' LOOP
        BEGIN
            cwd := (r.attrs::json) ->> 'cwd';
            IF cwd IS NOT NULL AND cwd <> '' AND json_typeof((r.attrs::json) -> 'cwd') = 'string' THEN
                UPDATE sessions SET project = cwd WHERE id = r.id;
            END IF;
        EXCEPTION WHEN others THEN
            NULL; -- not JSON PostgreSQL reads: no project
        END;
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE sessions DROP COLUMN project;
