package engine

import (
	"reflect"
	"testing"
)

// TestSessionRowFields checks that SessionRow.Fields points at the fields
// whose db tags are SessionColumnNames, in that order, and at every field.
func TestSessionRowFields(t *testing.T) {
	var r SessionRow
	v := reflect.ValueOf(&r).Elem()
	tagAt := map[uintptr]string{}
	for i := range v.NumField() {
		tagAt[v.Field(i).Addr().Pointer()] = v.Type().Field(i).Tag.Get("db")
	}
	fields := r.Fields()
	if len(fields) != v.NumField() || len(fields) != len(SessionColumnNames) {
		t.Fatalf("%d fields scanned, %d columns named, SessionRow has %d", len(fields), len(SessionColumnNames), v.NumField())
	}
	for i, f := range fields {
		if got := tagAt[reflect.ValueOf(f).Pointer()]; got != SessionColumnNames[i] {
			t.Errorf("field %d scans column %q into the field tagged %q", i, SessionColumnNames[i], got)
		}
	}
}
