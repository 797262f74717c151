package sqlstore

import (
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/storetest"
)

// TestConformance runs the backend-independent suite against file databases
// with the default options (DurabilityFull).
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) sessiondb.Store {
		return MustOpenStore(t, nil)
	})
}
