package sqlstore

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/migrations"
)

// schemaObject is one row of sqlite_schema.
type schemaObject struct {
	Type    string  `db:"type"`
	Name    string  `db:"name"`
	TblName string  `db:"tbl_name"`
	SQL     *string `db:"sql"`
	// columns, for an FTS5 shadow table only, lists its column names: it
	// is compared instead of the text (see fts5Shadows).
	columns string
}

// gooseTable is goose's bookkeeping table. Its text belongs to goose, not
// to our migrations, so it is not compared: a later goose may word it
// differently. readSchemaVersion reads it and reports damage to it.
const gooseTable = "goose_db_version"

// expectedSchemas caches, per schema version, the sqlite_schema rows that
// the embedded migrations produce on an empty database.
var expectedSchemas sync.Map // int64 -> map[string]schemaObject

// CheckSchema checks that the schema holds every table, view, index and
// trigger the migrations up to the recorded version created, with the
// same SQL text, and returns an error wrapping sessiondb.ErrCorrupt that
// names the first one that differs. Open runs it unless
// Options.NoSchemaCheck is set.
func (s *Store) CheckSchema(ctx context.Context) error {
	if s.closed.Load() {
		return sessiondb.ErrClosed
	}
	return s.checkSchema(ctx)
}

// checkSchema compares the schema with what the migrations up to the
// recorded version create. SQLite checksums none of it and parses the
// schema text from the file on every open, so one damaged byte can rename
// a column: every later query would then fail with "no such column", which
// says nothing about the cause. Objects a user added (an index, a view,
// the sqlite_stat tables of ANALYZE, a trigger on a table of their own) are
// allowed; ours must be intact, and no trigger the migrations did not
// create may sit on one of our tables or views (checkForeignTriggers).
//
// The version and the schema are read in one read transaction, so a
// migration committed by another process in between cannot make them
// disagree.
func (s *Store) checkSchema(ctx context.Context) error {
	err := s.read(ctx, func(tx *sqlx.Tx) error {
		version, err := readSchemaVersion(ctx, tx)
		if err != nil || version == 0 {
			return err
		}
		want, err := expectedSchema(ctx, version)
		if err != nil {
			return err
		}
		var rows []schemaObject
		if err := tx.SelectContext(ctx, &rows, `SELECT type, name, tbl_name, sql FROM sqlite_schema`); err != nil {
			return fmt.Errorf("read schema: %w", err)
		}
		have := make(map[string]schemaObject, len(rows))
		for _, r := range rows {
			have[r.Type+" "+r.Name] = r
		}
		for key, w := range want {
			h, ok := have[key]
			if !ok {
				return fmt.Errorf("%w: schema version %d lacks %s (damaged schema)", sessiondb.ErrCorrupt, version, key)
			}
			same := h.TblName == w.TblName
			if w.columns != "" {
				cols, err := tableColumns(ctx, tx, w.Name)
				if err != nil {
					return err
				}
				same = same && cols == w.columns
			} else {
				same = same && sameSQL(h.SQL, w.SQL)
			}
			if !same {
				return fmt.Errorf("%w: %s differs from what migration %d created (damaged schema)", sessiondb.ErrCorrupt, key, version)
			}
		}
		return checkForeignTriggers(rows, want)
	})
	if err != nil {
		return fmt.Errorf("open %s: %w", s.path, err)
	}
	return nil
}

// checkForeignTriggers refuses a trigger on one of sessiondb's tables or
// views that the migrations did not create: such a trigger runs inside
// every write and could rewrite what is stored (a body changed on insert
// breaks the byte-for-byte promise) or copy it elsewhere, unseen. Which
// tables are ours, and which triggers, is derived from the reference
// schema the migrations build (want), not from a fixed list.
func checkForeignTriggers(rows []schemaObject, want map[string]schemaObject) error {
	ours := map[string]bool{}
	for _, w := range want {
		if w.Type == "table" || w.Type == "view" {
			ours[strings.ToLower(w.Name)] = true
		}
	}
	for _, r := range rows {
		if r.Type != "trigger" || !ours[strings.ToLower(r.TblName)] {
			continue
		}
		if _, ok := want["trigger "+r.Name]; ok {
			continue // ours (its text was compared above)
		}
		return fmt.Errorf("%w: trigger %q on sessiondb's table %q was not created by its migrations and could rewrite what is stored; drop it (DROP TRIGGER %q) with the sqlite3 shell", sessiondb.ErrCorrupt, r.Name, r.TblName, r.Name)
	}
	return nil
}

func sameSQL(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// expectedSchema returns the schema the migrations up to version create,
// keyed by "type name": schema_expected.json's for the latest version,
// else migratedSchema's. It runs once per version per process.
func expectedSchema(ctx context.Context, version int64) (map[string]schemaObject, error) {
	if m, ok := expectedSchemas.Load(version); ok {
		return m.(map[string]schemaObject), nil
	}
	m, err := embeddedSchema(version)
	if err != nil {
		return nil, err
	}
	if m == nil {
		if m, err = migratedSchema(ctx, version); err != nil {
			return nil, err
		}
	}
	expectedSchemas.Store(version, m)
	return m, nil
}

// schemaFile is the expected schema of the latest migration, as
// migratedSchema builds it, kept in schema_expected.json: building it
// runs every migration on an in-memory database, ~20 ms of every process
// that opens a store (a cold sessionctl search among them; issue 42).
// TestEmbeddedSchemaIsMigrations fails when the file is not what the
// migrations build (go test ./sqlstore -run TestEmbeddedSchemaIsMigrations
// -update writes it).
//
//go:embed schema_expected.json
var schemaFile []byte

// embeddedSchemaFile is schema_expected.json's layout.
type embeddedSchemaFile struct {
	Version int64            `json:"version"`
	Objects []embeddedObject `json:"objects"`
}

type embeddedObject struct {
	Type    string  `json:"type"`
	Name    string  `json:"name"`
	TblName string  `json:"tbl_name"`
	SQL     *string `json:"sql"`
	Columns string  `json:"columns,omitempty"`
}

// embeddedSchema returns the schema of schema_expected.json when it is
// the one of version, else nil.
func embeddedSchema(version int64) (map[string]schemaObject, error) {
	var f embeddedSchemaFile
	if err := json.Unmarshal(schemaFile, &f); err != nil {
		return nil, fmt.Errorf("schema_expected.json: %w", err)
	}
	if f.Version != version {
		return nil, nil
	}
	m := make(map[string]schemaObject, len(f.Objects))
	for _, o := range f.Objects {
		m[o.Type+" "+o.Name] = schemaObject{Type: o.Type, Name: o.Name, TblName: o.TblName, SQL: o.SQL, columns: o.Columns}
	}
	return m, nil
}

// migratedSchema migrates a private in-memory database to version and
// returns its schema, keyed by "type name".
func migratedSchema(ctx context.Context, version int64) (map[string]schemaObject, error) {
	db, err := sqlx.Open("sqlite", "file:expected-schema?mode=memory")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // an in-memory database lives and dies with its connection
	p, err := migrations.NewProvider(db.DB, nil)
	if err != nil {
		return nil, err
	}
	if _, err := p.UpTo(ctx, version); err != nil {
		return nil, fmt.Errorf("build the expected schema of version %d: %w", version, err)
	}
	var rows []schemaObject
	if err := db.SelectContext(ctx, &rows, `SELECT type, name, tbl_name, sql FROM sqlite_schema`); err != nil {
		return nil, err
	}
	shadow := map[string]bool{}
	for _, r := range rows {
		if r.SQL != nil && strings.HasPrefix(strings.ToUpper(*r.SQL), "CREATE VIRTUAL TABLE") {
			for _, suffix := range fts5Shadows {
				shadow[r.Name+suffix] = true
			}
		}
	}
	m := make(map[string]schemaObject, len(rows))
	for _, r := range rows {
		switch {
		case r.Name == gooseTable || r.TblName == gooseTable:
			continue
		case shadow[r.TblName] && r.Type != "table":
			continue // the shadow tables' own indexes follow their text
		case shadow[r.Name]:
			if r.columns, err = tableColumns(ctx, db, r.Name); err != nil {
				return nil, err
			}
		}
		m[r.Type+" "+r.Name] = r
	}
	return m, nil
}

// tableColumns returns the column names of table, comma-separated.
func tableColumns(ctx context.Context, q sqlx.QueryerContext, table string) (string, error) {
	var names []string
	if err := sqlx.SelectContext(ctx, q, &names, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, table); err != nil {
		return "", fmt.Errorf("columns of %s: %w", table, err)
	}
	return strings.Join(names, ","), nil
}

// fts5Shadows are the suffixes of the tables FTS5 creates for each of its
// virtual tables. Their text is written by the SQLite that created the
// database, not by our migrations, so it is not compared (a SQLite that
// words it differently must not make a database look damaged); their
// column names, which FTS5's own statements depend on, are.
var fts5Shadows = []string{"_data", "_idx", "_content", "_docsize", "_config"}
