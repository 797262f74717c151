-- The usage_quarters triggers again, without table aliases. Version 17
-- wrote them with "INSERT INTO usage_quarters AS q", "UPDATE usage_quarters
-- AS q" and "DELETE FROM usage_quarters AS q". The SQLite of many systems
-- does not parse an alias on the table a statement inside a trigger
-- writes (3.40.1, Debian 12's sqlite3 and Python's sqlite3 module there,
-- and older), and an SQLite that cannot parse one object of a schema
-- refuses the whole file: "malformed database schema
-- (usage_quarters_insert) - near "AS": syntax error" for any query, on any
-- table. The triggers below do what version 17's did, statement for
-- statement, with the table's own name where the alias was. The oldest
-- SQLite that reads the schema is again 3.37.0, the first with STRICT
-- tables (TestSchemaReadableByOlderSQLite in package sqlstore runs the
-- system's sqlite3 on a database at the latest version).

-- +goose Up
DROP TRIGGER usage_quarters_update;
DROP TRIGGER usage_quarters_delete;
DROP TRIGGER usage_quarters_insert;

-- +goose StatementBegin
CREATE TRIGGER usage_quarters_insert AFTER INSERT ON usage BEGIN
    INSERT INTO usage_quarters
    VALUES (substr(new.created_at, 1, 13), CAST(substr(new.created_at, 15, 2) AS INTEGER) / 15, new.provider, new.model, 1,
            new.input_tokens, new.output_tokens, new.cache_read_tokens, new.cache_write_tokens, new.reasoning_tokens,
            (CASE WHEN new.cost BETWEEN -1e15 AND 1e15 THEN new.cost ELSE 0.0 END), 0.0, (CASE WHEN new.cost_estimated AND new.cost = 0 AND new.input_tokens + new.output_tokens + new.cache_read_tokens + new.cache_write_tokens > 0 THEN 1 ELSE 0 END), new.created_at, new.created_at)
    ON CONFLICT (hour, quarter, provider, model) DO UPDATE SET
        calls = usage_quarters.calls + 1,
        input_tokens = usage_quarters.input_tokens + excluded.input_tokens,
        output_tokens = usage_quarters.output_tokens + excluded.output_tokens,
        cache_read_tokens = usage_quarters.cache_read_tokens + excluded.cache_read_tokens,
        cache_write_tokens = usage_quarters.cache_write_tokens + excluded.cache_write_tokens,
        reasoning_tokens = usage_quarters.reasoning_tokens + excluded.reasoning_tokens,
        cost = usage_quarters.cost + excluded.cost,
        cost_err = usage_quarters.cost_err + CASE WHEN abs(usage_quarters.cost) > abs(excluded.cost)
            THEN (usage_quarters.cost - (usage_quarters.cost + excluded.cost)) + excluded.cost
            ELSE (excluded.cost - (usage_quarters.cost + excluded.cost)) + usage_quarters.cost END,
        unpriced = usage_quarters.unpriced + excluded.unpriced,
        first_at = min(usage_quarters.first_at, excluded.first_at),
        last_at = max(usage_quarters.last_at, excluded.last_at);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER usage_quarters_delete AFTER DELETE ON usage BEGIN
    DELETE FROM usage_quarters
    WHERE usage_quarters.hour = substr(old.created_at, 1, 13) AND usage_quarters.quarter = CAST(substr(old.created_at, 15, 2) AS INTEGER) / 15
      AND usage_quarters.provider = old.provider AND usage_quarters.model = old.model AND usage_quarters.calls <= 1;
    UPDATE usage_quarters SET
        calls = usage_quarters.calls - 1,
        input_tokens = usage_quarters.input_tokens - old.input_tokens,
        output_tokens = usage_quarters.output_tokens - old.output_tokens,
        cache_read_tokens = usage_quarters.cache_read_tokens - old.cache_read_tokens,
        cache_write_tokens = usage_quarters.cache_write_tokens - old.cache_write_tokens,
        reasoning_tokens = usage_quarters.reasoning_tokens - old.reasoning_tokens,
        cost = usage_quarters.cost + -(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END),
        cost_err = usage_quarters.cost_err + CASE WHEN abs(usage_quarters.cost) > abs(-(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END))
            THEN (usage_quarters.cost - (usage_quarters.cost + -(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END))) + -(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END)
            ELSE (-(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END) - (usage_quarters.cost + -(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END))) + usage_quarters.cost END,
        unpriced = usage_quarters.unpriced - (CASE WHEN old.cost_estimated AND old.cost = 0 AND old.input_tokens + old.output_tokens + old.cache_read_tokens + old.cache_write_tokens > 0 THEN 1 ELSE 0 END),
        first_at = CASE WHEN usage_quarters.first_at < old.created_at THEN usage_quarters.first_at ELSE
            coalesce((SELECT min(u.created_at) FROM usage u WHERE u.provider = usage_quarters.provider AND u.model = usage_quarters.model
               AND u.created_at >= usage_quarters.hour AND u.created_at < usage_quarters.hour || '~'
               AND substr(u.created_at, 1, 13) = usage_quarters.hour AND CAST(substr(u.created_at, 15, 2) AS INTEGER) / 15 = usage_quarters.quarter), usage_quarters.first_at) END,
        last_at = CASE WHEN usage_quarters.last_at > old.created_at THEN usage_quarters.last_at ELSE
            coalesce((SELECT max(u.created_at) FROM usage u WHERE u.provider = usage_quarters.provider AND u.model = usage_quarters.model
               AND u.created_at >= usage_quarters.hour AND u.created_at < usage_quarters.hour || '~'
               AND substr(u.created_at, 1, 13) = usage_quarters.hour AND CAST(substr(u.created_at, 15, 2) AS INTEGER) / 15 = usage_quarters.quarter), usage_quarters.last_at) END
    WHERE usage_quarters.hour = substr(old.created_at, 1, 13) AND usage_quarters.quarter = CAST(substr(old.created_at, 15, 2) AS INTEGER) / 15
      AND usage_quarters.provider = old.provider AND usage_quarters.model = old.model;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER usage_quarters_update AFTER UPDATE OF provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost, cost_estimated, created_at ON usage BEGIN
    DELETE FROM usage_quarters
    WHERE usage_quarters.hour = substr(old.created_at, 1, 13) AND usage_quarters.quarter = CAST(substr(old.created_at, 15, 2) AS INTEGER) / 15
      AND usage_quarters.provider = old.provider AND usage_quarters.model = old.model AND usage_quarters.calls <= 1;
    UPDATE usage_quarters SET
        calls = usage_quarters.calls - 1,
        input_tokens = usage_quarters.input_tokens - old.input_tokens,
        output_tokens = usage_quarters.output_tokens - old.output_tokens,
        cache_read_tokens = usage_quarters.cache_read_tokens - old.cache_read_tokens,
        cache_write_tokens = usage_quarters.cache_write_tokens - old.cache_write_tokens,
        reasoning_tokens = usage_quarters.reasoning_tokens - old.reasoning_tokens,
        cost = usage_quarters.cost + -(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END),
        cost_err = usage_quarters.cost_err + CASE WHEN abs(usage_quarters.cost) > abs(-(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END))
            THEN (usage_quarters.cost - (usage_quarters.cost + -(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END))) + -(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END)
            ELSE (-(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END) - (usage_quarters.cost + -(CASE WHEN old.cost BETWEEN -1e15 AND 1e15 THEN old.cost ELSE 0.0 END))) + usage_quarters.cost END,
        unpriced = usage_quarters.unpriced - (CASE WHEN old.cost_estimated AND old.cost = 0 AND old.input_tokens + old.output_tokens + old.cache_read_tokens + old.cache_write_tokens > 0 THEN 1 ELSE 0 END),
        first_at = CASE WHEN usage_quarters.first_at < old.created_at THEN usage_quarters.first_at ELSE
            coalesce((SELECT min(u.created_at) FROM usage u WHERE u.provider = usage_quarters.provider AND u.model = usage_quarters.model
               AND u.created_at >= usage_quarters.hour AND u.created_at < usage_quarters.hour || '~'
               AND substr(u.created_at, 1, 13) = usage_quarters.hour AND CAST(substr(u.created_at, 15, 2) AS INTEGER) / 15 = usage_quarters.quarter), usage_quarters.first_at) END,
        last_at = CASE WHEN usage_quarters.last_at > old.created_at THEN usage_quarters.last_at ELSE
            coalesce((SELECT max(u.created_at) FROM usage u WHERE u.provider = usage_quarters.provider AND u.model = usage_quarters.model
               AND u.created_at >= usage_quarters.hour AND u.created_at < usage_quarters.hour || '~'
               AND substr(u.created_at, 1, 13) = usage_quarters.hour AND CAST(substr(u.created_at, 15, 2) AS INTEGER) / 15 = usage_quarters.quarter), usage_quarters.last_at) END
    WHERE usage_quarters.hour = substr(old.created_at, 1, 13) AND usage_quarters.quarter = CAST(substr(old.created_at, 15, 2) AS INTEGER) / 15
      AND usage_quarters.provider = old.provider AND usage_quarters.model = old.model;
    INSERT INTO usage_quarters
    VALUES (substr(new.created_at, 1, 13), CAST(substr(new.created_at, 15, 2) AS INTEGER) / 15, new.provider, new.model, 1,
            new.input_tokens, new.output_tokens, new.cache_read_tokens, new.cache_write_tokens, new.reasoning_tokens,
            (CASE WHEN new.cost BETWEEN -1e15 AND 1e15 THEN new.cost ELSE 0.0 END), 0.0, (CASE WHEN new.cost_estimated AND new.cost = 0 AND new.input_tokens + new.output_tokens + new.cache_read_tokens + new.cache_write_tokens > 0 THEN 1 ELSE 0 END), new.created_at, new.created_at)
    ON CONFLICT (hour, quarter, provider, model) DO UPDATE SET
        calls = usage_quarters.calls + 1,
        input_tokens = usage_quarters.input_tokens + excluded.input_tokens,
        output_tokens = usage_quarters.output_tokens + excluded.output_tokens,
        cache_read_tokens = usage_quarters.cache_read_tokens + excluded.cache_read_tokens,
        cache_write_tokens = usage_quarters.cache_write_tokens + excluded.cache_write_tokens,
        reasoning_tokens = usage_quarters.reasoning_tokens + excluded.reasoning_tokens,
        cost = usage_quarters.cost + excluded.cost,
        cost_err = usage_quarters.cost_err + CASE WHEN abs(usage_quarters.cost) > abs(excluded.cost)
            THEN (usage_quarters.cost - (usage_quarters.cost + excluded.cost)) + excluded.cost
            ELSE (excluded.cost - (usage_quarters.cost + excluded.cost)) + usage_quarters.cost END,
        unpriced = usage_quarters.unpriced + excluded.unpriced,
        first_at = min(usage_quarters.first_at, excluded.first_at),
        last_at = max(usage_quarters.last_at, excluded.last_at);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER usage_quarters_update;
DROP TRIGGER usage_quarters_delete;
DROP TRIGGER usage_quarters_insert;

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
