-- The role `sessionctl sql` (pgstore's Store.QueryUntrusted) runs ad-hoc
-- queries as. A READ ONLY transaction stops table writes, but the session
-- user keeps its other powers: a superuser's query could COPY ... TO
-- PROGRAM (a shell command on the server), pg_read_file, terminate other
-- sessions, reload the configuration. Inside its read-only transaction,
-- QueryUntrusted does SET LOCAL ROLE to this role, which may only read
-- this schema's tables and views.
--
-- Roles are cluster-wide, so there is one per database and schema, named
-- sessiondb_reader_ and the first 16 hex digits of the SHA-256 of
-- "<database>.<schema>" (pgstore.readerRoleSQL computes the same name):
-- two sessiondb schemas never share a reader, and migrations of different
-- schemas never create the same role (those of one schema are serialised
-- by goose's advisory lock). It is NOLOGIN, with no attribute, no
-- membership in any role, and SELECT on this schema's tables and views
-- (now, and on the tables later migrations create: ALTER DEFAULT
-- PRIVILEGES). The migrating user is made a member, so that it may SET
-- ROLE to it; grant it to other users who run sessionctl sql.
--
-- A user that may not create roles (neither superuser nor CREATEROLE) still
-- migrates the schema: the role is then not created (a NOTICE says so),
-- and QueryUntrusted refuses to run until it exists (or the caller asks to
-- run as itself: sessionctl sql --unsafe-role). The statements to create
-- it by hand are in sessionctl sql --help.

-- +goose Up
-- +goose StatementBegin
DO $$
DECLARE
    sch text := current_schema();
    reader text := 'sessiondb_reader_' || left(encode(sha256(convert_to(current_database() || '.' || current_schema(), 'UTF8')), 'hex'), 16);
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = reader) THEN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_user AND (rolsuper OR rolcreaterole)) THEN
            RAISE NOTICE 'sessiondb: role % may not create roles: no read-only role % for sessionctl sql', current_user, reader;
            RETURN;
        END IF;
        EXECUTE format('CREATE ROLE %I NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS', reader);
    END IF;
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', sch, reader);
    EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA %I TO %I', sch, reader);
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT ON TABLES TO %I', sch, reader);
    BEGIN
        EXECUTE format('COMMENT ON ROLE %I IS %L', reader,
            format('sessiondb: reads %s.%s for sessionctl sql', current_database(), sch));
        EXECUTE format('GRANT %I TO %I', reader, current_user);
    EXCEPTION WHEN insufficient_privilege THEN
        -- A role of that name made by someone else: the grants above
        -- are ours to give, its membership is not.
        RAISE NOTICE 'sessiondb: cannot make % a member of %: grant it by hand', current_user, reader;
    END;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
DECLARE
    sch text := current_schema();
    reader text := 'sessiondb_reader_' || left(encode(sha256(convert_to(current_database() || '.' || current_schema(), 'UTF8')), 'hex'), 16);
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = reader) THEN
        RETURN;
    END IF;
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I REVOKE SELECT ON TABLES FROM %I', sch, reader);
    EXECUTE format('REVOKE SELECT ON ALL TABLES IN SCHEMA %I FROM %I', sch, reader);
    EXECUTE format('REVOKE USAGE ON SCHEMA %I FROM %I', sch, reader);
    BEGIN
        EXECUTE format('DROP ROLE %I', reader);
    EXCEPTION WHEN dependent_objects_still_exist OR insufficient_privilege THEN
        RAISE NOTICE 'sessiondb: role % kept: %', reader, SQLERRM;
    END;
END
$$;
-- +goose StatementEnd
