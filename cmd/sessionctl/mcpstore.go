package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/sessiondb/sessiondb"
)

// lateStore is what mcp serves when its database does not exist yet (the
// server was registered with an agent before the first import): an empty
// database in a temporary directory, so that every tool answers (nothing
// found) instead of the server failing to start, until the database
// appears; from then on the database, opened read-only like every mcp
// store. Nothing is ever created at the database's path: the first import
// creates it as it would have anyway.
//
// It overrides the read methods the MCP server uses; any other method
// reaches the empty database (the server calls none).
type lateStore struct {
	sessiondb.Store // the empty database
	done            func()
	loc             string
	open            func() (sessiondb.Store, error) // the database, read-only
	log             io.Writer

	mu   sync.Mutex
	real sessiondb.Store // the database, to close
	view sessiondb.Store // what is served of it: its Redacted view
}

// current returns the database once it exists and opens, else the empty
// one. A database that exists but does not open yet (an import is
// creating it) is tried again on the next call.
func (l *lateStore) current() sessiondb.Store {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.real != nil {
		return l.view
	}
	if _, err := os.Stat(l.loc); err != nil {
		return l.Store
	}
	st, err := l.open()
	if err != nil {
		return l.Store
	}
	// mcpserver.New redacts the store it is given, which is this
	// lateStore, not a sessiondb.SecretKeeper: the database that appears
	// later is served through its Redacted view here, so that a model never
	// reads its secrets either.
	l.real, l.view = st, redactedView(st)
	fmt.Fprintf(l.log, "sessionctl mcp: %s exists now; serving it\n", displayLocation(l.loc))
	return l.view
}

// status is the sentence the server adds to its answers while the
// database does not exist ("" once it does).
func (l *lateStore) status() string {
	if l.current() != l.Store {
		return ""
	}
	return fmt.Sprintf("The sessiondb database %s does not exist yet: nothing has been imported, so there is nothing to find. "+
		"The user creates it with `sessionctl import` (for example `sessionctl import ~/.claude/projects ~/.codex/sessions`); "+
		"this server serves it as soon as it exists.", displayLocation(l.loc))
}

func (l *lateStore) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var err error
	if l.real != nil {
		err = l.real.Close()
	}
	l.done()
	return err
}

func (l *lateStore) Get(ctx context.Context, id string) (sessiondb.Session, error) {
	return l.current().Get(ctx, id)
}

func (l *lateStore) List(ctx context.Context, opts sessiondb.ListOptions) ([]sessiondb.SessionInfo, string, error) {
	return l.current().List(ctx, opts)
}

func (l *lateStore) Resolve(ctx context.Context, idOrAlias string) (string, error) {
	return l.current().Resolve(ctx, idOrAlias)
}

func (l *lateStore) Entries(ctx context.Context, id string, from, to int64) ([]sessiondb.Entry, error) {
	return l.current().Entries(ctx, id, from, to)
}

// EntriesClipped implements sessiondb.EntryClipper when the store it
// reaches does (else it cuts what Entries read).
func (l *lateStore) EntriesClipped(ctx context.Context, id string, from, to int64, max int) ([]sessiondb.ClippedEntry, error) {
	return sessiondb.EntriesClipped(ctx, l.current(), id, from, to, max)
}

func (l *lateStore) Compactions(ctx context.Context, id string) ([]sessiondb.Compaction, error) {
	return l.current().Compactions(ctx, id)
}

func (l *lateStore) ListCheckpoints(ctx context.Context, sessionID string) ([]sessiondb.Checkpoint, error) {
	return l.current().ListCheckpoints(ctx, sessionID)
}

func (l *lateStore) Search(ctx context.Context, query string, opts sessiondb.SearchOptions) ([]sessiondb.Hit, error) {
	return l.current().Search(ctx, query, opts)
}

func (l *lateStore) UsageTotals(ctx context.Context, id string) (sessiondb.UsageTotals, error) {
	return l.current().UsageTotals(ctx, id)
}

func (l *lateStore) UsageReport(ctx context.Context, q sessiondb.UsageQuery) ([]sessiondb.UsageRow, error) {
	return l.current().UsageReport(ctx, q)
}

// Lookup implements sessiondb.SessionLookup when the store it reaches
// does.
func (l *lateStore) Lookup(ctx context.Context, idOrAlias string) (sessiondb.Session, error) {
	st := l.current()
	if lk, ok := st.(sessiondb.SessionLookup); ok {
		return lk.Lookup(ctx, idOrAlias)
	}
	id, err := st.Resolve(ctx, idOrAlias)
	if err != nil {
		return sessiondb.Session{}, err
	}
	return st.Get(ctx, id)
}

// Location names the database the server is for, even before it exists.
func (l *lateStore) Location() string { return displayLocation(l.loc) }

// openMCP opens mcp's store: the database read-only; when it is a file
// that does not exist yet, a lateStore (and status says so).
func (a *app) openMCP() (st sessiondb.Store, status func() string, err error) {
	loc := a.dbPath()
	if loc == "" || isServerURL(loc) {
		st, err = a.openRead(&openOptions{ServerReadOnly: true, Serving: true})
		return st, nil, err
	}
	if _, serr := os.Stat(loc); serr == nil || !errors.Is(serr, os.ErrNotExist) {
		st, err = a.openRead(&openOptions{ServerReadOnly: true, Serving: true})
		return st, nil, err
	}
	empty, done, err := openEmpty()
	if err != nil {
		return nil, nil, fmt.Errorf("mcp: %w", err)
	}
	l := &lateStore{Store: empty, done: done, loc: loc, log: a.stderr,
		open: func() (sessiondb.Store, error) {
			return openBackend(a.ctx, loc, modeRead, openOptions{ServerReadOnly: true, Serving: true})
		}}
	a.store = l // closed by run
	fmt.Fprintf(a.stderr, "sessionctl mcp: %s does not exist yet (nothing imported): serving no sessions until 'sessionctl import' creates it\n", displayLocation(loc))
	return l, l.status, nil
}
