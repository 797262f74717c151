package pgstore

import (
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/storetest"
)

// BenchmarkReadCost: Get, LoadFull{LastN: 50} and List against
// Load{LastN: 50} on sessions of 10 to 100,000 entries (see
// storetest.BenchReadCost; $SESSIONDB_BENCH_READ_SIZES adds 1,000,000):
//
//	go test ./pgstore -run '^$' -bench ReadCost -benchtime 200x
func BenchmarkReadCost(b *testing.B) {
	storetest.BenchReadCost(b, func(tb testing.TB) sessiondb.Store {
		return MustOpenStore(tb, nil)
	})
}
