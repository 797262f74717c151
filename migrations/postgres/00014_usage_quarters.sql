-- usage_quarters (issue 42): the usage ledger rolled up by UTC quarter
-- hour and model, kept exact by a trigger on every write to usage. See
-- the SQLite migration 00017_usage_quarters.sql for what each column
-- holds, and "Usage rollup" in package sqlstore for why it stays exact.
-- The columns and their meaning are the same; the cost pair is kept
-- with the same Kahan-Babuska-Neumaier steps as SQLite's.

-- +goose Up
CREATE TABLE usage_quarters (
    hour               text COLLATE "C" NOT NULL,  -- 'YYYY-MM-DDTHH', UTC
    quarter            integer NOT NULL,           -- 0-3: minutes 0-14, 15-29, 30-44, 45-59
    provider           text NOT NULL,
    model              text NOT NULL,
    calls              bigint NOT NULL,
    input_tokens       bigint NOT NULL,
    output_tokens      bigint NOT NULL,
    cache_read_tokens  bigint NOT NULL,
    cache_write_tokens bigint NOT NULL,
    reasoning_tokens   bigint NOT NULL,
    cost               double precision NOT NULL,  -- the cost is cost + cost_err
    cost_err           double precision NOT NULL,
    unpriced           bigint NOT NULL,
    first_at           text COLLATE "C" NOT NULL,
    last_at            text COLLATE "C" NOT NULL,
    PRIMARY KEY (hour, quarter, provider, model)
);

INSERT INTO usage_quarters
SELECT substr(u.created_at, 1, 13), CAST(substr(u.created_at, 15, 2) AS integer) / 15, u.provider, u.model, count(*),
       sum(u.input_tokens), sum(u.output_tokens), sum(u.cache_read_tokens), sum(u.cache_write_tokens), sum(u.reasoning_tokens),
       sum((CASE WHEN u.cost BETWEEN -1e15 AND 1e15 THEN u.cost ELSE 0.0 END)), 0.0, sum((CASE WHEN u.cost_estimated AND u.cost = 0 AND u.input_tokens + u.output_tokens + u.cache_read_tokens + u.cache_write_tokens > 0 THEN 1 ELSE 0 END)), min(u.created_at), max(u.created_at)
FROM usage u
GROUP BY 1, 2, 3, 4;

-- One function for the three events: an update takes the old row out of
-- its group and puts the new one in. A group loses its row with its last
-- call; when a removed call was the group's first or last, the new first
-- or last is read from the ledger (as the statement left it: an AFTER
-- trigger runs once the statement is done), one probe of usage_by_model.
-- +goose StatementBegin
-- SET search_path FROM CURRENT: the function keeps the rollup of its own
-- schema whatever search_path the writing session has (two sessiondb
-- schemas in one database, a psql session in another).
CREATE FUNCTION usage_quarters_apply() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    c double precision;
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        c := -(CASE WHEN OLD.cost BETWEEN -1e15 AND 1e15 THEN OLD.cost ELSE 0.0 END);
        -- Lock the group first: a writer adding to it concurrently commits
        -- before the statements below take their snapshots, so the first
        -- or last call read from the ledger counts its call too.
        PERFORM 1 FROM usage_quarters q
        WHERE q.hour = substr(OLD.created_at, 1, 13) AND q.quarter = CAST(substr(OLD.created_at, 15, 2) AS integer) / 15
          AND q.provider = OLD.provider AND q.model = OLD.model FOR UPDATE;
        DELETE FROM usage_quarters q
        WHERE q.hour = substr(OLD.created_at, 1, 13) AND q.quarter = CAST(substr(OLD.created_at, 15, 2) AS integer) / 15
          AND q.provider = OLD.provider AND q.model = OLD.model AND q.calls <= 1;
        UPDATE usage_quarters q SET
            calls = q.calls - 1,
            input_tokens = q.input_tokens - OLD.input_tokens,
            output_tokens = q.output_tokens - OLD.output_tokens,
            cache_read_tokens = q.cache_read_tokens - OLD.cache_read_tokens,
            cache_write_tokens = q.cache_write_tokens - OLD.cache_write_tokens,
            reasoning_tokens = q.reasoning_tokens - OLD.reasoning_tokens,
            cost = q.cost + c,
            cost_err = q.cost_err + CASE WHEN abs(q.cost) > abs(c)
                THEN (q.cost - (q.cost + c)) + c
                ELSE (c - (q.cost + c)) + q.cost END,
            unpriced = q.unpriced - (CASE WHEN OLD.cost_estimated AND OLD.cost = 0 AND OLD.input_tokens + OLD.output_tokens + OLD.cache_read_tokens + OLD.cache_write_tokens > 0 THEN 1 ELSE 0 END),
            first_at = CASE WHEN q.first_at < OLD.created_at THEN q.first_at ELSE
                coalesce((SELECT min(u.created_at) FROM usage u WHERE u.provider = q.provider AND u.model = q.model
                   AND u.created_at >= q.hour AND u.created_at < q.hour || '~'
                   AND substr(u.created_at, 1, 13) = q.hour AND CAST(substr(u.created_at, 15, 2) AS integer) / 15 = q.quarter), q.first_at) END,
            last_at = CASE WHEN q.last_at > OLD.created_at THEN q.last_at ELSE
                coalesce((SELECT max(u.created_at) FROM usage u WHERE u.provider = q.provider AND u.model = q.model
                   AND u.created_at >= q.hour AND u.created_at < q.hour || '~'
                   AND substr(u.created_at, 1, 13) = q.hour AND CAST(substr(u.created_at, 15, 2) AS integer) / 15 = q.quarter), q.last_at) END
        WHERE q.hour = substr(OLD.created_at, 1, 13) AND q.quarter = CAST(substr(OLD.created_at, 15, 2) AS integer) / 15
          AND q.provider = OLD.provider AND q.model = OLD.model;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO usage_quarters AS q
        VALUES (substr(NEW.created_at, 1, 13), CAST(substr(NEW.created_at, 15, 2) AS integer) / 15, NEW.provider, NEW.model, 1,
                NEW.input_tokens, NEW.output_tokens, NEW.cache_read_tokens, NEW.cache_write_tokens, NEW.reasoning_tokens,
                (CASE WHEN NEW.cost BETWEEN -1e15 AND 1e15 THEN NEW.cost ELSE 0.0 END), 0.0, (CASE WHEN NEW.cost_estimated AND NEW.cost = 0 AND NEW.input_tokens + NEW.output_tokens + NEW.cache_read_tokens + NEW.cache_write_tokens > 0 THEN 1 ELSE 0 END), NEW.created_at, NEW.created_at)
        ON CONFLICT (hour, quarter, provider, model) DO UPDATE SET
            calls = q.calls + 1,
            input_tokens = q.input_tokens + EXCLUDED.input_tokens,
            output_tokens = q.output_tokens + EXCLUDED.output_tokens,
            cache_read_tokens = q.cache_read_tokens + EXCLUDED.cache_read_tokens,
            cache_write_tokens = q.cache_write_tokens + EXCLUDED.cache_write_tokens,
            reasoning_tokens = q.reasoning_tokens + EXCLUDED.reasoning_tokens,
            cost = q.cost + EXCLUDED.cost,
            cost_err = q.cost_err + CASE WHEN abs(q.cost) > abs(EXCLUDED.cost)
                THEN (q.cost - (q.cost + EXCLUDED.cost)) + EXCLUDED.cost
                ELSE (EXCLUDED.cost - (q.cost + EXCLUDED.cost)) + q.cost END,
            unpriced = q.unpriced + EXCLUDED.unpriced,
            first_at = least(q.first_at, EXCLUDED.first_at),
            last_at = greatest(q.last_at, EXCLUDED.last_at);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER usage_quarters_insert_delete AFTER INSERT OR DELETE ON usage
    FOR EACH ROW EXECUTE FUNCTION usage_quarters_apply();
CREATE TRIGGER usage_quarters_update AFTER UPDATE OF provider, model, input_tokens, output_tokens, cache_read_tokens,
    cache_write_tokens, reasoning_tokens, cost, cost_estimated, created_at ON usage
    FOR EACH ROW EXECUTE FUNCTION usage_quarters_apply();

-- +goose Down
DROP TRIGGER usage_quarters_update ON usage;
DROP TRIGGER usage_quarters_insert_delete ON usage;
DROP FUNCTION usage_quarters_apply();
DROP TABLE usage_quarters;
