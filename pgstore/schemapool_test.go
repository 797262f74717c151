package pgstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// The package's tests open about 200 stores, 177 of them for the
// conformance suite's subtests. Migrating a fresh schema makes about 75
// relations (17 tables, their TOAST tables and indexes, 34 indexes, 7
// sequences): 150-250 ms of server CPU each, most of the tests' time on
// two cores. So the schema of a test that passed is emptied and handed to
// a later test, which opens it with Open as any process opens an existing
// database: every schema was built by Open, for the first test that used
// it.
//
// Emptied means as Open left it: every table but goose's is empty and
// every sequence but goose's is back at its start (resetSQL), and the
// schema's catalog (tables, columns, constraints, indexes, views,
// functions, triggers, grants, sequence states, applied versions, the
// reader role: fingerprintSQL) is the one it had right after its
// migration. Otherwise the schema is not reused, and for a conformance
// subtest that is a failure: it only uses the Store API, and a store that
// changed its own schema would be a bug. TestSchemaPool checks the pool
// itself.

// resetSQL empties every table of the current schema but goose's and puts
// every sequence but goose's back at its start, once no other transaction
// holds a lock on them. DELETE, not TRUNCATE: TRUNCATE gives each table,
// index and TOAST table a new file, ~100 ms, nearly what a migration
// costs. A DELETE may run triggers that write other tables (usage's keep
// usage_quarters), so the deletes are repeated until no table holds a
// row.
const resetSQL = `DO $$
DECLARE
	r record;
	left_over text;
BEGIN
	-- Wait out any transaction still writing (a COMMIT whose client
	-- gave up on it), and keep new ones out until the schema is empty.
	EXECUTE (SELECT 'LOCK TABLE ' || string_agg(format('%I', tablename), ', ') || ' IN ACCESS EXCLUSIVE MODE'
		FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'goose_db_version');
	FOR pass IN 1..3 LOOP
		left_over := NULL;
		FOR r IN SELECT tablename FROM pg_tables
				WHERE schemaname = current_schema() AND tablename <> 'goose_db_version' LOOP
			EXECUTE format('DELETE FROM %I', r.tablename);
		END LOOP;
		FOR r IN SELECT tablename FROM pg_tables
				WHERE schemaname = current_schema() AND tablename <> 'goose_db_version' LOOP
			EXECUTE format('SELECT %L FROM %I LIMIT 1', r.tablename, r.tablename) INTO left_over;
			EXIT WHEN left_over IS NOT NULL;
		END LOOP;
		EXIT WHEN left_over IS NULL;
	END LOOP;
	IF left_over IS NOT NULL THEN
		RAISE EXCEPTION 'table % still holds rows', left_over;
	END IF;
	PERFORM setval(format('%I.%I', schemaname, sequencename), start_value, false)
		FROM pg_sequences
		WHERE schemaname = current_schema() AND sequencename <> 'goose_db_version_id_seq';
END
$$`

// fingerprintSQL describes the current schema's catalog and the state of
// its sequences, one line per object, in a stable order.
const fingerprintSQL = `WITH ns AS (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
SELECT coalesce(string_agg(line, E'\n' ORDER BY line COLLATE "C"), '') FROM (
	SELECT format('relation %s %s %s %s %s', c.relname, c.relkind, c.relacl, c.reloptions, c.relpersistence)
		FROM pg_class c WHERE c.relnamespace = (SELECT oid FROM ns) AND c.relkind <> 't'
	UNION ALL
	SELECT format('column %s.%s %s %s %s %s %s %s %s', c.relname, a.attname, a.attnum,
			format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attcollation::regcollation,
			a.attidentity, a.attgenerated, pg_get_expr(d.adbin, d.adrelid))
		FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
		LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		WHERE c.relnamespace = (SELECT oid FROM ns) AND c.relkind <> 't' AND a.attnum > 0 AND NOT a.attisdropped
	UNION ALL
	SELECT format('constraint %s.%s %s', c.relname, k.conname, pg_get_constraintdef(k.oid))
		FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
		WHERE k.connamespace = (SELECT oid FROM ns)
	UNION ALL
	SELECT format('index %s', pg_get_indexdef(i.indexrelid))
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE c.relnamespace = (SELECT oid FROM ns)
	UNION ALL
	SELECT format('view %s %s', c.relname, pg_get_viewdef(c.oid))
		FROM pg_class c WHERE c.relnamespace = (SELECT oid FROM ns) AND c.relkind IN ('v', 'm')
	UNION ALL
	SELECT format('trigger %s %s', t.tgenabled, pg_get_triggerdef(t.oid))
		FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
		WHERE c.relnamespace = (SELECT oid FROM ns) AND NOT t.tgisinternal
	UNION ALL
	SELECT format('function %s %s', p.proacl, pg_get_functiondef(p.oid))
		FROM pg_proc p WHERE p.pronamespace = (SELECT oid FROM ns)
	UNION ALL
	SELECT format('sequence %s %s %s', sequencename, start_value, last_value)
		FROM pg_sequences WHERE schemaname = current_schema()
	UNION ALL
	SELECT format('default privileges %s', a.defaclacl)
		FROM pg_default_acl a WHERE a.defaclnamespace = (SELECT oid FROM ns)
	UNION ALL
	SELECT format('namespace %s', n.nspacl) FROM pg_namespace n WHERE n.oid = (SELECT oid FROM ns)
	UNION ALL
	SELECT format('reader role %s %s %s %s', r.rolname,
			row(r.rolsuper, r.rolinherit, r.rolcreaterole, r.rolcreatedb, r.rolcanlogin, r.rolreplication,
				r.rolconnlimit, r.rolbypassrls, r.rolvaliduntil, r.rolconfig),
			has_database_privilege(r.oid, current_database(), 'CONNECT'),
			ARRAY(SELECT m.roleid::regrole FROM pg_auth_members m WHERE m.member = r.oid ORDER BY 1))
		FROM pg_roles r WHERE r.rolname = 'sessiondb_reader_' || left(encode(sha256(convert_to(
			current_database() || '.' || current_schema(), 'UTF8')), 'hex'), 16)
	UNION ALL
	SELECT format('goose %s %s', version_id, is_applied) FROM goose_db_version
) lines (line)`

// schemaPool hands out schemas of testDB that Open migrated: an emptied
// one when there is one, else a fresh one.
type schemaPool struct {
	mu   sync.Mutex
	free []string
	// built is each schema's fingerprint right after Open migrated it.
	built map[string]string
}

// errSchemaChanged: the catalog of a returned schema differs from the
// one recorded after its migration.
var errSchemaChanged = errors.New("the schema is no longer what Open built")

// schemas is the pool of MustOpenStore and the conformance suite.
var schemas = newSchemaPool()

func newSchemaPool() *schemaPool { return &schemaPool{built: map[string]string{}} }

// open returns a store on an emptied schema of the pool, or on a fresh
// one, which Open migrates; opts that ask Open not to migrate get a fresh
// schema that is not reused. When the test passes, the store is closed
// and its schema emptied, checked and put back; a failed test's schema
// is left as it is. A schema that cannot be put back is an error when
// strict (the conformance suite, which only uses the Store API), and
// otherwise only logged: a test may change its schema with SQL of its
// own.
func (p *schemaPool) open(tb testing.TB, opts *Options, strict bool) *Store {
	tb.Helper()
	if opts != nil && opts.NoMigrate {
		return mustOpenURL(tb, newSchema(tb), opts)
	}
	u, reused := p.take(tb)
	// Registered before mustOpenURL's Close: cleanups run last first, so
	// this one runs once the store is closed.
	tb.Cleanup(func() {
		if tb.Failed() {
			return
		}
		err := p.put(tb, u)
		switch {
		case err != nil && strict:
			tb.Errorf("schema pool: %v (the schema is left as the test left it: %s)", err, u)
		case errors.Is(err, errSchemaChanged):
			tb.Logf("schema pool: not reused: %v", errSchemaChanged)
		case err != nil:
			tb.Logf("schema pool: not reused: %v", err)
		}
	})
	s := mustOpenURL(tb, u, opts)
	if !reused {
		p.record(tb, u)
	}
	return s
}

// take returns the URL of an emptied schema, or of a fresh one (reused
// false), which must then be opened and recorded.
func (p *schemaPool) take(tb testing.TB) (u string, reused bool) {
	tb.Helper()
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		u = p.free[n-1]
		p.free = p.free[:n-1]
	}
	p.mu.Unlock()
	if u != "" {
		return u, true
	}
	return newSchema(tb), false
}

// record reads the catalog of u's schema, which Open has just migrated.
func (p *schemaPool) record(tb testing.TB, u string) {
	tb.Helper()
	var fp string
	err := inSchema(tb, u, func(tx *sql.Tx) error {
		return tx.QueryRow(fingerprintSQL).Scan(&fp)
	})
	if err != nil {
		tb.Fatalf("schema pool: read the catalog of %s: %v", u, err)
	}
	p.mu.Lock()
	p.built[u] = fp
	p.mu.Unlock()
}

// put empties the schema of u and returns it to the pool if its catalog
// is still the one Open built; otherwise the schema is left as the test
// left it (the emptying is rolled back).
func (p *schemaPool) put(tb testing.TB, u string) error {
	p.mu.Lock()
	want, ok := p.built[u]
	p.mu.Unlock()
	if !ok {
		return errors.New("the schema's catalog was not recorded after its migration")
	}
	err := inSchema(tb, u, func(tx *sql.Tx) error {
		if _, err := tx.Exec(resetSQL); err != nil {
			return fmt.Errorf("empty the schema: %w", err)
		}
		var fp string
		if err := tx.QueryRow(fingerprintSQL).Scan(&fp); err != nil {
			return fmt.Errorf("read the schema's catalog: %w", err)
		}
		if fp != want {
			return fmt.Errorf("%w:\n--- after migration\n%s\n--- after the test, emptied\n%s", errSchemaChanged, want, fp)
		}
		return nil
	})
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.free = append(p.free, u)
	p.mu.Unlock()
	return nil
}

// inSchema runs fn in a transaction of testDBPool whose search_path is
// that of u.
func inSchema(tb testing.TB, u string, fn func(tx *sql.Tx) error) error {
	parsed, err := url.Parse(u)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tx, err := testDBPool(tb).BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`SELECT set_config('search_path', $1, true)`, parsed.Query().Get("search_path")); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// TestSchemaPool checks what the tests that draw on schemas rely on: a
// schema comes back from the pool without a row, with its identities
// starting again (the same writes get the same compaction IDs as on the
// fresh schema), and a schema whose catalog changed does not come back.
func TestSchemaPool(t *testing.T) {
	p := newSchemaPool()
	ctx := t.Context()
	// write fills every table a commit reaches (usage_quarters through
	// its trigger) and returns the IDs the store gave the compactions.
	write := func(s *Store) []int64 {
		t.Helper()
		_, err := s.Commit(ctx, "pool", sessiondb.Commit{
			Create:      &sessiondb.Session{ID: "pool", Aliases: []string{"pool-alias"}},
			Append:      []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"key sk-ant-api03-` + strings.Repeat("a", 93) + `AA"}`)},
			Compactions: []sessiondb.Compaction{{KeepFromSeq: 1, Summary: []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"summary"}`)}}},
			State:       json.RawMessage(`{"s":1}`),
			Interrupt:   json.RawMessage(`{"i":1}`),
			Usage:       []sessiondb.Usage{{CallID: "c1", Provider: "p", Model: "m", InputTokens: 10}},
			Source:      &sessiondb.SourceFile{Path: "/tmp/pool.jsonl", Size: 1},
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SaveCheckpoint(ctx, sessiondb.Checkpoint{SessionID: "pool"}); err != nil {
			t.Fatal(err)
		}
		cs, err := s.Compactions(ctx, "pool")
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, c := range cs {
			ids = append(ids, c.ID)
		}
		return ids
	}
	open := func(u string) *Store {
		t.Helper()
		s, err := Open(ctx, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	u, reused := p.take(t)
	if reused {
		t.Fatal("a new pool gave a used schema")
	}
	s := open(u)
	p.record(t, u)
	fresh := write(s)
	s.Close()
	if err := p.put(t, u); err != nil {
		t.Fatalf("put: %v", err)
	}
	rows := func() int {
		t.Helper()
		var n int
		err := inSchema(t, u, func(tx *sql.Tx) error {
			return tx.QueryRow(`SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM entries)
				+ (SELECT count(*) FROM usage) + (SELECT count(*) FROM usage_quarters)
				+ (SELECT count(*) FROM checkpoints) + (SELECT count(*) FROM source_files)`).Scan(&n)
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := rows(); n != 0 {
		t.Fatalf("after put: %d rows left", n)
	}

	if got, reused := p.take(t); got != u || !reused {
		t.Fatalf("take = %s, %v; want the returned schema %s", got, reused, u)
	}
	s = open(u)
	if again := write(s); !slices.Equal(again, fresh) {
		t.Errorf("the same writes on the emptied schema gave compaction IDs %v, on the fresh one %v", again, fresh)
	}
	if _, err := s.DB().ExecContext(ctx, `CREATE INDEX sessions_by_title ON sessions (title)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := p.put(t, u); !errors.Is(err, errSchemaChanged) {
		t.Errorf("put after a schema change = %v, want the schema refused", err)
	}
	if rows() == 0 {
		t.Error("a refused schema was emptied: want it left as the test left it")
	}
	if got, reused := p.take(t); got == u || reused {
		t.Errorf("take after a refused put = %s, %v; want a fresh schema", got, reused)
	}
}
