-- The last Sequence of each deleted session, so that a session recreated
-- under the same ID continues its sequence instead of starting again at 1:
-- an ExpectSequence read before the delete must never match a revision of
-- the new session (optimistic concurrency would otherwise accept a write
-- derived from a session that no longer exists). The ID is kept only as
-- its SHA-256, so that a delete still leaves no readable trace of it.

-- +goose Up
CREATE TABLE deleted_sessions (
    id_hash  TEXT PRIMARY KEY, -- hex SHA-256 of the session ID
    sequence INTEGER NOT NULL
) WITHOUT ROWID;

-- +goose Down
DROP TABLE deleted_sessions;
