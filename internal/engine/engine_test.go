package engine

import (
	"reflect"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// TestMethodsAreStoreMethods: a backend embeds *Engine in its Store, so
// every exported method of Engine becomes part of the backend's public
// API. Only methods of the interfaces both backends implement
// (sessiondb.Store, SessionLookup, Repricer, Copier, SecretKeeper,
// SourceTracker, EntryClipper) may be exported here; what
// the backends call besides is a function of this package.
func TestMethodsAreStoreMethods(t *testing.T) {
	ifaces := []reflect.Type{reflect.TypeFor[sessiondb.Store](), reflect.TypeFor[sessiondb.SessionLookup](),
		reflect.TypeFor[sessiondb.Repricer](), reflect.TypeFor[sessiondb.Copier](), reflect.TypeFor[sessiondb.SecretKeeper](),
		reflect.TypeFor[sessiondb.SourceTracker](), reflect.TypeFor[sessiondb.EntryClipper]()}
	eng := reflect.TypeFor[*Engine]()
	for i := range eng.NumMethod() {
		m := eng.Method(i)
		var sm reflect.Method
		ok := false
		for _, it := range ifaces {
			if sm, ok = it.MethodByName(m.Name); ok {
				break
			}
		}
		if !ok {
			t.Errorf("Engine.%s is not a method of sessiondb.Store, SessionLookup, Repricer, Copier, SecretKeeper, SourceTracker or EntryClipper: it would leak into sqlstore's and pgstore's API", m.Name)
			continue
		}
		// m.Type has the receiver first; the interface method has none.
		if got, want := m.Type.NumIn()-1, sm.Type.NumIn(); got != want {
			t.Errorf("Engine.%s takes %d arguments, sessiondb.Store's %d", m.Name, got, want)
		}
	}
	if eng.NumMethod() == 0 {
		t.Fatal("Engine has no methods")
	}
}
