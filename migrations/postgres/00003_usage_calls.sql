-- Usage rows name the model call they account for, and say whether their
-- cost was estimated from a price table (see the SQLite migration
-- 00006_usage_calls.sql for the rules). cost_estimated is a boolean here
-- and 0/1 in SQLite: `WHERE cost_estimated` and `WHERE NOT cost_estimated`
-- read the same on both.

-- +goose Up
ALTER TABLE usage ADD COLUMN call_id text COLLATE "C";
ALTER TABLE usage ADD COLUMN cost_estimated boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX usage_by_call ON usage (session_id, call_id) WHERE call_id IS NOT NULL;

-- +goose Down
DROP INDEX usage_by_call;
ALTER TABLE usage DROP COLUMN cost_estimated;
ALTER TABLE usage DROP COLUMN call_id;
