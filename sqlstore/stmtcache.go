package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"sync"

	"github.com/jmoiron/sqlx"
)

// Prepared statements, reused.
//
// database/sql hands a statement with arguments to the driver as text, and
// the driver prepares (parses and plans) it again at every call: about a
// tenth of the CPU of a small append went to preparing the same few
// statements. Every connection of a Store keeps the statements it has run
// prepared, keyed by their text, so each is parsed once per connection.
// The code above keeps calling tx.ExecContext with plain SQL.
//
// A cached statement is in use while the rows of a query on it are open;
// running the same text again meanwhile (a nested query) prepares a
// one-off statement instead of resetting the one being read.

// stmtCacheSize bounds the statements kept per connection. The write path
// runs a few dozen distinct texts; multi-row INSERTs of varying width and
// ad-hoc texts (search with different filters) would otherwise grow the
// cache without end.
const stmtCacheSize = 128

// openDB opens a pool on dsn whose connections cache prepared statements.
// Each new connection runs setup first (ATTACH of the index file and its
// pragmas, indexfile.go).
func openDB(dsn string, setup ...string) *sqlx.DB {
	return sqlx.NewDb(sql.OpenDB(cachingConnector{dsn: dsn, setup: setup}), "sqlite")
}

type cachingConnector struct {
	dsn   string
	setup []string
}

// sqliteDriver is the driver registered as "sqlite": the one that holds
// the functions registered with modernc.org/sqlite (sessiondb_rank).
var sqliteDriver = func() driver.Driver {
	db, err := sql.Open("sqlite", "")
	if err != nil {
		panic(err) // the driver is linked in: cannot happen
	}
	defer db.Close()
	return db.Driver()
}()

func (c cachingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := sqliteDriver.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	if len(c.setup) > 0 {
		ex, ok := conn.(driver.ExecerContext)
		if !ok {
			_ = conn.Close()
			return nil, errors.New("sqlite driver cannot run statements on a connection")
		}
		for _, q := range c.setup {
			if _, err := ex.ExecContext(ctx, q, nil); err != nil {
				_ = conn.Close()
				return nil, err
			}
		}
	}
	inner, ok := conn.(sqliteConn)
	if !ok { // a driver without the context interfaces: no caching
		return conn, nil
	}
	return &cachingConn{sqliteConn: inner, stmts: map[string]*cachedStmt{}}, nil
}

func (c cachingConnector) Driver() driver.Driver { return sqliteDriver }

// sqliteConn is what modernc.org/sqlite's connection implements and
// database/sql uses.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.SessionResetter
	driver.Validator
	driver.Pinger
}

type cachedStmt struct {
	stmt interface {
		driver.Stmt
		driver.StmtExecContext
		driver.StmtQueryContext
	}
	busy bool // rows of a query on it are open
	used uint64
}

// cachingConn is used by one goroutine at a time (database/sql's
// contract); mu only guards against a Close racing a late rows.Close.
type cachingConn struct {
	sqliteConn
	mu    sync.Mutex
	stmts map[string]*cachedStmt
	clock uint64
}

// get returns the cached statement for query, preparing it if needed; nil
// when it is busy or cannot be cached.
func (c *cachingConn) get(ctx context.Context, query string) (*cachedStmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	if st, ok := c.stmts[query]; ok {
		if st.busy {
			return nil, nil
		}
		st.used = c.clock
		return st, nil
	}
	ds, err := c.sqliteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s, ok := ds.(interface {
		driver.Stmt
		driver.StmtExecContext
		driver.StmtQueryContext
	})
	if !ok {
		_ = ds.Close()
		return nil, nil
	}
	if len(c.stmts) >= stmtCacheSize {
		c.evictLocked()
	}
	st := &cachedStmt{stmt: s, used: c.clock}
	c.stmts[query] = st
	return st, nil
}

// evictLocked closes the least recently used idle statement.
func (c *cachingConn) evictLocked() {
	var oldest string
	var at uint64
	for q, st := range c.stmts {
		if !st.busy && (oldest == "" || st.used < at) {
			oldest, at = q, st.used
		}
	}
	if oldest != "" {
		_ = c.stmts[oldest].stmt.Close()
		delete(c.stmts, oldest)
	}
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	st, err := c.get(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return c.sqliteConn.ExecContext(ctx, query, args)
	}
	return st.stmt.ExecContext(ctx, args)
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	st, err := c.get(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return c.sqliteConn.QueryContext(ctx, query, args)
	}
	rows, err := st.stmt.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	st.busy = true
	c.mu.Unlock()
	return &cachedRows{Rows: rows, release: func() {
		c.mu.Lock()
		st.busy = false
		c.mu.Unlock()
	}}, nil
}

// Close finalizes the cached statements, then closes the connection.
func (c *cachingConn) Close() error {
	c.mu.Lock()
	for q, st := range c.stmts {
		_ = st.stmt.Close()
		delete(c.stmts, q)
	}
	c.mu.Unlock()
	return c.sqliteConn.Close()
}

type cachedRows struct {
	driver.Rows
	release func()
	once    sync.Once
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	r.once.Do(r.release)
	return err
}
