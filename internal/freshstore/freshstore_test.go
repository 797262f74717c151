package freshstore

import (
	"context"
	"errors"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// TestStoresAreIndependent checks that a copied store is a working store of
// its own: a session created in one is not in the next one opened.
func TestStoresAreIndependent(t *testing.T) {
	ctx := context.Background()
	a := Open(t, nil)
	if _, err := a.Create(ctx, sessiondb.Session{ID: "only-in-a"}); err != nil {
		t.Fatal(err)
	}
	b := Open(t, nil)
	if _, err := b.Get(ctx, "only-in-a"); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Errorf("the second store's Get of the first one's session: %v, want ErrNotFound", err)
	}
	if _, err := a.Get(ctx, "only-in-a"); err != nil {
		t.Errorf("the first store lost its session: %v", err)
	}
}
