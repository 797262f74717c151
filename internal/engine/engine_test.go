package engine

import (
	"reflect"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// TestMethodsAreStoreMethods: a backend embeds *Engine in its Store, so
// every exported method of Engine becomes part of the backend's public
// API. Only methods of sessiondb.Store may be exported here; what the
// backends call besides is a function of this package.
func TestMethodsAreStoreMethods(t *testing.T) {
	store := reflect.TypeFor[sessiondb.Store]()
	eng := reflect.TypeFor[*Engine]()
	for i := range eng.NumMethod() {
		m := eng.Method(i)
		sm, ok := store.MethodByName(m.Name)
		if !ok {
			t.Errorf("Engine.%s is not a method of sessiondb.Store: it would leak into sqlstore's and pgstore's API", m.Name)
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
