package sqlstore

import (
	"cmp"
	"encoding/json"
	"flag"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb/migrations"
)

var updateSchema = flag.Bool("update", false, "rewrite schema_expected.json from the migrations")

// TestEmbeddedSchemaIsMigrations: schema_expected.json, which spares
// every open the in-memory migration run, is what the migrations build
// for the latest version, object for object. After a new migration, run
// this test with -update.
func TestEmbeddedSchemaIsMigrations(t *testing.T) {
	latest, err := migrations.Latest()
	if err != nil {
		t.Fatal(err)
	}
	built, err := migratedSchema(t.Context(), latest)
	if err != nil {
		t.Fatal(err)
	}
	if *updateSchema {
		f := embeddedSchemaFile{Version: latest}
		for _, o := range built {
			f.Objects = append(f.Objects, embeddedObject{Type: o.Type, Name: o.Name, TblName: o.TblName, SQL: o.SQL, Columns: o.columns})
		}
		slices.SortFunc(f.Objects, func(a, b embeddedObject) int {
			return cmp.Or(strings.Compare(a.Type, b.Type), strings.Compare(a.Name, b.Name))
		})
		out, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("schema_expected.json", append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("wrote schema_expected.json; build again to embed it")
		return
	}
	embedded, err := embeddedSchema(latest)
	if err != nil {
		t.Fatal(err)
	}
	if embedded == nil {
		t.Fatalf("schema_expected.json is not of version %d, the latest migration: run go test ./sqlstore -run TestEmbeddedSchemaIsMigrations -update", latest)
	}
	if !reflect.DeepEqual(embedded, built) {
		for k, w := range built {
			if g, ok := embedded[k]; !ok || !reflect.DeepEqual(g, w) {
				t.Errorf("%s differs from the migrations' (or is missing)", k)
			}
		}
		for k := range embedded {
			if _, ok := built[k]; !ok {
				t.Errorf("%s is not in the migrations' schema", k)
			}
		}
		t.Fatal("schema_expected.json is not what the migrations build: run go test ./sqlstore -run TestEmbeddedSchemaIsMigrations -update")
	}
	// An older version is built by migrating, as before.
	old, err := expectedSchema(t.Context(), latest-1)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(old, built) {
		t.Fatal("the schema of the previous version equals the latest's")
	}
}
