package backend

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// ledgerDriver is a database/sql driver that only records the statements
// InsertUsages runs and keeps the call IDs of a session's ledger, enough
// to answer its probe: the test sees which statements run, in which order.
type ledgerDriver struct {
	mu    sync.Mutex
	log   []string        // "INSERT n calls…", "DELETE call", "PROBE call"
	calls map[string]bool // call IDs in the ledger
}

func (d *ledgerDriver) Open(string) (driver.Conn, error) { return ledgerConn{d}, nil }

type ledgerConn struct{ d *ledgerDriver }

func (c ledgerConn) Prepare(q string) (driver.Stmt, error) { return ledgerStmt{c.d, q}, nil }
func (c ledgerConn) Close() error                          { return nil }
func (c ledgerConn) Begin() (driver.Tx, error)             { return ledgerTx{}, nil }

type ledgerTx struct{}

func (ledgerTx) Commit() error   { return nil }
func (ledgerTx) Rollback() error { return nil }

type ledgerStmt struct {
	d *ledgerDriver
	q string
}

func (s ledgerStmt) Close() error  { return nil }
func (s ledgerStmt) NumInput() int { return -1 }

func (s ledgerStmt) Exec(args []driver.Value) (driver.Result, error) {
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	switch {
	case strings.HasPrefix(s.q, "INSERT INTO usage"):
		if len(args)%UsageColumnCount != 0 {
			return nil, fmt.Errorf("%d values for %d columns", len(args), UsageColumnCount)
		}
		entry := fmt.Sprintf("INSERT %d", len(args)/UsageColumnCount)
		for i := 0; i < len(args); i += UsageColumnCount {
			call, _ := args[i+2].(string)
			if call != "" {
				if s.d.calls[call] {
					return nil, fmt.Errorf("UNIQUE constraint failed: usage call %s", call)
				}
				s.d.calls[call] = true
			}
			entry += " " + call
		}
		s.d.log = append(s.d.log, strings.TrimSpace(entry))
	case strings.HasPrefix(s.q, "DELETE FROM usage"):
		call := args[1].(string)
		delete(s.d.calls, call)
		s.d.log = append(s.d.log, "DELETE "+call)
	default:
		return nil, fmt.Errorf("unexpected statement %q", s.q)
	}
	return driver.RowsAffected(1), nil
}

func (s ledgerStmt) Query(args []driver.Value) (driver.Rows, error) {
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	if !strings.HasPrefix(s.q, "SELECT 1 FROM usage") {
		return nil, fmt.Errorf("unexpected query %q", s.q)
	}
	call := args[1].(string)
	s.d.log = append(s.d.log, "PROBE "+call)
	return &ledgerRows{n: map[bool]int{true: 1}[s.d.calls[call]]}, nil
}

type ledgerRows struct{ n int }

func (r *ledgerRows) Columns() []string { return []string{"1"} }
func (r *ledgerRows) Close() error      { return nil }
func (r *ledgerRows) Next(dest []driver.Value) error {
	if r.n == 0 {
		return io.EOF
	}
	r.n--
	dest[0] = int64(1)
	return nil
}

type ledgerConnector struct{ d *ledgerDriver }

func (c ledgerConnector) Connect(context.Context) (driver.Conn, error) { return ledgerConn(c), nil }
func (c ledgerConnector) Driver() driver.Driver                        { return c.d }

// insertUsagesLog runs InsertUsages of us into a ledger that holds the
// call IDs held, and returns the statements it ran.
func insertUsagesLog(t *testing.T, held []string, us []sessiondb.Usage) []string {
	t.Helper()
	d := &ledgerDriver{calls: map[string]bool{}}
	for _, c := range held {
		d.calls[c] = true
	}
	db := sql.OpenDB(ledgerConnector{d})
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // a fake
	if err := InsertUsages(context.Background(), tx, "s", 10, us, func(sessiondb.Usage) string { return "2026-01-01T00:00:00.000000000Z" }); err != nil {
		t.Fatal(err)
	}
	return d.log
}

// TestInsertUsagesBatches: rows without a CallID are written in multi-row
// INSERTs of the fixed chunk sizes, largest first (70 rows: 64, 4, 1, 1),
// not a statement per row.
func TestInsertUsagesBatches(t *testing.T) {
	us := make([]sessiondb.Usage, 70)
	got := insertUsagesLog(t, nil, us)
	want := []string{"INSERT 64", "INSERT 4", "INSERT 1", "INSERT 1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("statements = %q, want %q", got, want)
	}
}

// TestInsertUsagesReplaceOrder: a row with a CallID replaces the ledger's
// row of that CallID at the point where one InsertUsage per row would
// have: the rows waiting are written before the DELETE when the row to
// replace is among them or already in the ledger, and a call nobody
// reported yet costs a probe, not a flush.
func TestInsertUsagesReplaceOrder(t *testing.T) {
	us := []sessiondb.Usage{
		{CallID: "x"}, // nothing waiting: the DELETE runs as InsertUsage's
		{},
		{CallID: "new"},  // not in the ledger: probed, joins the batch
		{CallID: "held"}, // in the ledger: the batch first, then the DELETE
		{},
		{CallID: "x"}, // in the ledger since the flush: probed, flushed
		{},
		{CallID: "x"}, // waiting in the batch: flushed without a probe
	}
	got := insertUsagesLog(t, []string{"held"}, us)
	want := []string{
		"DELETE x",
		"PROBE new",
		"PROBE held", "INSERT 1 x", "INSERT 1", "INSERT 1 new", "DELETE held",
		"PROBE x", "INSERT 1 held", "INSERT 1", "DELETE x",
		"INSERT 1 x", "INSERT 1", "DELETE x",
		"INSERT 1 x",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("statements =\n%q\nwant\n%q", got, want)
	}
}
