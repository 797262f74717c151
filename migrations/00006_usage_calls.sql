-- Usage rows name the model call they account for, and say whether their
-- cost was estimated from a price table.
--
-- call_id: a call reported several times (Claude Code writes a streamed
-- response as several lines, partial usage on the early ones and the final
-- usage on the last) keeps one row: a row written with the call_id of a
-- row already in the session replaces it. NULL for rows without an ID.
--
-- cost_estimated: 1 when sessiondb computed the cost from its price table
-- (tools such as Claude Code and Codex record none), 0 when the cost is
-- the one the tool (or the caller) recorded. `sessionctl reprice`
-- recomputes only estimated costs.

-- +goose Up
ALTER TABLE usage ADD COLUMN call_id TEXT;
ALTER TABLE usage ADD COLUMN cost_estimated INTEGER NOT NULL DEFAULT 0 CHECK (cost_estimated IN (0, 1));
CREATE UNIQUE INDEX usage_by_call ON usage (session_id, call_id) WHERE call_id IS NOT NULL;

-- +goose Down
DROP INDEX usage_by_call;
ALTER TABLE usage DROP COLUMN cost_estimated;
ALTER TABLE usage DROP COLUMN call_id;
