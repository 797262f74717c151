-- usage_quarters (issue 42): the usage ledger rolled up by UTC quarter
-- hour and model, kept exact by the triggers below on every write to
-- usage, so that a usage report by quarter hour and model (sessionctl
-- usage daily and monthly) reads this table instead of the whole ledger.
--
-- A row is one group of UsageReport{ByQuarterHour, ByModel}: hour is
-- substr(created_at, 1, 13) ('YYYY-MM-DDTHH', UTC) and quarter the
-- quarter of that hour (0 for :00-:14 … 3 for :45-:59), the very
-- expressions the report's scan groups by. calls and the token columns
-- are the group's count and sums; cost + cost_err is the sum of the
-- calls' costs as every total counts them (backend.CostSQL): cost is the
-- running sum and cost_err its Kahan-Babuska-Neumaier compensation, the
-- pair SQLite's own sum() keeps, so that the report's cost is what a scan
-- of the ledger gives. unpriced counts the calls backend.UnpricedSQL
-- counts; first_at and last_at are the earliest and latest created_at.
-- A group without calls has no row. See "Usage rollup" in package
-- sqlstore for why each column stays exact.

-- +goose Up
CREATE TABLE usage_quarters (
    hour               TEXT NOT NULL,          -- 'YYYY-MM-DDTHH', UTC
    quarter            INTEGER NOT NULL,       -- 0-3: minutes 0-14, 15-29, 30-44, 45-59
    provider           TEXT NOT NULL,
    model              TEXT NOT NULL,
    calls              INTEGER NOT NULL,
    input_tokens       INTEGER NOT NULL,
    output_tokens      INTEGER NOT NULL,
    cache_read_tokens  INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    reasoning_tokens   INTEGER NOT NULL,
    cost               REAL NOT NULL,          -- the cost is cost + cost_err
    cost_err           REAL NOT NULL,
    unpriced           INTEGER NOT NULL,
    first_at           TEXT NOT NULL,
    last_at            TEXT NOT NULL,
    PRIMARY KEY (hour, quarter, provider, model)
) STRICT, WITHOUT ROWID;

INSERT INTO usage_quarters
SELECT substr(u.created_at, 1, 13), CAST(substr(u.created_at, 15, 2) AS INTEGER) / 15, u.provider, u.model, count(*),
       sum(u.input_tokens), sum(u.output_tokens), sum(u.cache_read_tokens), sum(u.cache_write_tokens), sum(u.reasoning_tokens),
       sum(CASE WHEN u.cost BETWEEN -1e15 AND 1e15 THEN u.cost ELSE 0.0 END), 0.0,
       sum(CASE WHEN u.cost_estimated AND u.cost = 0 AND u.input_tokens + u.output_tokens + u.cache_read_tokens + u.cache_write_tokens > 0 THEN 1 ELSE 0 END),
       min(u.created_at), max(u.created_at)
FROM usage u
GROUP BY 1, 2, 3, 4;

-- +goose StatementBegin
CREATE TRIGGER usage_quarters_insert AFTER INSERT ON usage BEGIN
    INSERT INTO usage_quarters AS q
    VALUES (substr(new.created_at, 1, 13), CAST(substr(new.created_at, 15, 2) AS INTEGER) / 15, new.provider, new.model, 1,
            new.input_tokens, new.output_tokens, new.cache_read_tokens, new.cache_write_tokens, new.reasoning_tokens,
            (CASE WHEN new.cost BETWEEN -1e15 AND 1e15 THEN new.cost ELSE 0.0 END), 0.0, (CASE WHEN new.cost_estimated AND new.cost = 0 AND new.input_tokens + new.output_tokens + new.cache_read_tokens + new.cache_write_tokens > 0 THEN 1 ELSE 0 END), new.created_at, new.created_at)
    ON CONFLICT (hour, quarter, provider, model) DO UPDATE SET
        calls = q.calls + 1,
        input_tokens = q.input_tokens + excluded.input_tokens,
        output_tokens = q.output_tokens + excluded.output_tokens,
        cache_read_tokens = q.cache_read_tokens + excluded.cache_read_tokens,
        cache_write_tokens = q.cache_write_tokens + excluded.cache_write_tokens,
        reasoning_tokens = q.reasoning_tokens + excluded.reasoning_tokens,
        cost = q.cost + excluded.cost,
        cost_err = q.cost_err + CASE WHEN abs(q.cost) > abs(excluded.cost)
            THEN (q.cost - (q.cost + excluded.cost)) + excluded.cost
            ELSE (excluded.cost - (q.cost + excluded.cost)) + q.cost END,
        unpriced = q.unpriced + excluded.unpriced,
        first_at = min(q.first_at, excluded.first_at),
        last_at = max(q.last_at, excluded.last_at);
END;
-- +goose StatementEnd

-- A deleted call leaves its group (the group's row goes with its last
-- call). When it was the group's first or last call, the new first or
-- last is read from the ledger: the first or last entry of the hour in
-- usage_by_model (provider, model, created_at), one index probe rather
-- than a scan of the group.
-- +goose StatementBegin
CREATE TRIGGER usage_quarters_delete AFTER DELETE ON usage BEGIN
    DELETE FROM usage_quarters AS q
    WHERE q.hour = substr(old.created_at, 1, 13) AND q.quarter = CAST(substr(old.created_at, 15, 2) AS INTEGER) / 15
      AND q.provider = old.provider AND q.model = old.model AND q.calls <= 1;
    UPDATE usage_quarters AS q SET
        calls = q.calls - 1,
        input_tokens = q.input_tokens - old.input_tokens,
        output_tokens = q.output_tokens - old.output_tokens,
        cache_read_tokens = q.cache_read_tokens - old.cache_read_tokens,
        cache_write_tokens = q.cache_write_tokens - old.cache_write_tokens,
        reasoning_tokens = q.reasoning_tokens - old.reasoning_tokens,
        cost = q.cost + -(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END),
        cost_err = q.cost_err + CASE WHEN abs(q.cost) > abs(-(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END))
            THEN (q.cost - (q.cost + -(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END))) + -(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END)
            ELSE (-(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END) - (q.cost + -(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END))) + q.cost END,
        unpriced = q.unpriced - (CASE WHEN old.cost_estimated AND old.cost = 0 AND old.input_tokens + old.output_tokens + old.cache_read_tokens + old.cache_write_tokens > 0 THEN 1 ELSE 0 END),
        first_at = CASE WHEN q.first_at < old.created_at THEN q.first_at ELSE
            coalesce((SELECT min(u.created_at) FROM usage u WHERE u.provider = q.provider AND u.model = q.model
               AND u.created_at >= q.hour AND u.created_at < q.hour || '~'
               AND substr(u.created_at, 1, 13) = q.hour AND CAST(substr(u.created_at, 15, 2) AS INTEGER) / 15 = q.quarter), q.first_at) END,
        last_at = CASE WHEN q.last_at > old.created_at THEN q.last_at ELSE
            coalesce((SELECT max(u.created_at) FROM usage u WHERE u.provider = q.provider AND u.model = q.model
               AND u.created_at >= q.hour AND u.created_at < q.hour || '~'
               AND substr(u.created_at, 1, 13) = q.hour AND CAST(substr(u.created_at, 15, 2) AS INTEGER) / 15 = q.quarter), q.last_at) END
    WHERE q.hour = substr(old.created_at, 1, 13) AND q.quarter = CAST(substr(old.created_at, 15, 2) AS INTEGER) / 15
      AND q.provider = old.provider AND q.model = old.model;
END;
-- +goose StatementEnd

-- An update (Reprice's of cost, or any by hand) takes the old row out of
-- its group and puts the new one in.
-- +goose StatementBegin
CREATE TRIGGER usage_quarters_update AFTER UPDATE OF provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost, cost_estimated, created_at ON usage BEGIN
    DELETE FROM usage_quarters AS q
    WHERE q.hour = substr(old.created_at, 1, 13) AND q.quarter = CAST(substr(old.created_at, 15, 2) AS INTEGER) / 15
      AND q.provider = old.provider AND q.model = old.model AND q.calls <= 1;
    UPDATE usage_quarters AS q SET
        calls = q.calls - 1,
        input_tokens = q.input_tokens - old.input_tokens,
        output_tokens = q.output_tokens - old.output_tokens,
        cache_read_tokens = q.cache_read_tokens - old.cache_read_tokens,
        cache_write_tokens = q.cache_write_tokens - old.cache_write_tokens,
        reasoning_tokens = q.reasoning_tokens - old.reasoning_tokens,
        cost = q.cost + -(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END),
        cost_err = q.cost_err + CASE WHEN abs(q.cost) > abs(-(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END))
            THEN (q.cost - (q.cost + -(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END))) + -(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END)
            ELSE (-(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END) - (q.cost + -(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END))) + q.cost END,
        unpriced = q.unpriced - (CASE WHEN old.cost_estimated AND old.cost = 0 AND old.input_tokens + old.output_tokens + old.cache_read_tokens + old.cache_write_tokens > 0 THEN 1 ELSE 0 END),
        first_at = CASE WHEN q.first_at < old.created_at THEN q.first_at ELSE
            coalesce((SELECT min(u.created_at) FROM usage u WHERE u.provider = q.provider AND u.model = q.model
               AND u.created_at >= q.hour AND u.created_at < q.hour || '~'
               AND substr(u.created_at, 1, 13) = q.hour AND CAST(substr(u.created_at, 15, 2) AS INTEGER) / 15 = q.quarter), q.first_at) END,
        last_at = CASE WHEN q.last_at > old.created_at THEN q.last_at ELSE
            coalesce((SELECT max(u.created_at) FROM usage u WHERE u.provider = q.provider AND u.model = q.model
               AND u.created_at >= q.hour AND u.created_at < q.hour || '~'
               AND substr(u.created_at, 1, 13) = q.hour AND CAST(substr(u.created_at, 15, 2) AS INTEGER) / 15 = q.quarter), q.last_at) END
    WHERE q.hour = substr(old.created_at, 1, 13) AND q.quarter = CAST(substr(old.created_at, 15, 2) AS INTEGER) / 15
      AND q.provider = old.provider AND q.model = old.model;
    INSERT INTO usage_quarters AS q
    VALUES (substr(new.created_at, 1, 13), CAST(substr(new.created_at, 15, 2) AS INTEGER) / 15, new.provider, new.model, 1,
            new.input_tokens, new.output_tokens, new.cache_read_tokens, new.cache_write_tokens, new.reasoning_tokens,
            (CASE WHEN new.cost BETWEEN -1e15 AND 1e15 THEN new.cost ELSE 0.0 END), 0.0, (CASE WHEN new.cost_estimated AND new.cost = 0 AND new.input_tokens + new.output_tokens + new.cache_read_tokens + new.cache_write_tokens > 0 THEN 1 ELSE 0 END), new.created_at, new.created_at)
    ON CONFLICT (hour, quarter, provider, model) DO UPDATE SET
        calls = q.calls + 1,
        input_tokens = q.input_tokens + excluded.input_tokens,
        output_tokens = q.output_tokens + excluded.output_tokens,
        cache_read_tokens = q.cache_read_tokens + excluded.cache_read_tokens,
        cache_write_tokens = q.cache_write_tokens + excluded.cache_write_tokens,
        reasoning_tokens = q.reasoning_tokens + excluded.reasoning_tokens,
        cost = q.cost + excluded.cost,
        cost_err = q.cost_err + CASE WHEN abs(q.cost) > abs(excluded.cost)
            THEN (q.cost - (q.cost + excluded.cost)) + excluded.cost
            ELSE (excluded.cost - (q.cost + excluded.cost)) + q.cost END,
        unpriced = q.unpriced + excluded.unpriced,
        first_at = min(q.first_at, excluded.first_at),
        last_at = max(q.last_at, excluded.last_at);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER usage_quarters_update;
DROP TRIGGER usage_quarters_delete;
DROP TRIGGER usage_quarters_insert;
DROP TABLE usage_quarters;
