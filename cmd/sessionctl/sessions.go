package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/sessiondb/sessiondb"
)

// resolve returns the ID of the session named by idOrAlias, with an error
// that tells the user how to find the right name. A session's exact ID
// names that session; other names go through Store.Resolve. (Resolve,
// like picoclaw, lets an alias win over a session ID containing ':', which
// would leave such a session unreachable from the command line.)
func resolve(ctx context.Context, st sessiondb.Store, idOrAlias string) (string, error) {
	if _, err := st.Get(ctx, idOrAlias); err == nil {
		return idOrAlias, nil
	} else if !errors.Is(err, sessiondb.ErrNotFound) && !errors.Is(err, sessiondb.ErrInvalid) {
		return "", err
	}
	id, err := st.Resolve(ctx, idOrAlias)
	if errors.Is(err, sessiondb.ErrNotFound) {
		return "", &notFoundError{what: "session", id: idOrAlias, hint: "run 'sessionctl list' to see sessions"}
	}
	if err != nil {
		return "", err
	}
	return id, nil
}

// openSession opens the existing database and resolves the ID or alias of
// the one session a command works on. It does not create a missing
// database: a command that changes one session has nothing to change in a
// new one, and a typo in --db must not leave an empty file behind.
func (a *app) openSession(idOrAlias string) (sessiondb.Store, string, error) {
	st, err := a.openExisting(nil)
	if err != nil {
		return nil, "", err
	}
	id, err := resolve(a.ctx, st, idOrAlias)
	return st, id, err
}

// openSessionRead is openSession for commands that only read (show,
// checkpoint list): see openRead.
func (a *app) openSessionRead(idOrAlias string) (sessiondb.Store, string, error) {
	st, err := a.openRead(nil)
	if err != nil {
		return nil, "", err
	}
	id, err := resolve(a.ctx, st, idOrAlias)
	return st, id, err
}

// resolveAll resolves every argument before anything is changed, so that a
// typo in the third ID does not leave the first two deleted.
func resolveAll(ctx context.Context, st sessiondb.Store, args []string) ([]string, error) {
	ids := make([]string, 0, len(args))
	seen := make(map[string]bool, len(args))
	for _, arg := range args {
		id, err := resolve(ctx, st, arg)
		if err != nil {
			return nil, err
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// listSessions pages through the sessions, newest first, up to limit
// (0: all of them).
func listSessions(ctx context.Context, st sessiondb.Store, query string, limit int) ([]sessiondb.SessionInfo, error) {
	return listSessionsOpts(ctx, st, sessiondb.ListOptions{Query: query}, limit)
}

// listSessionsOpts is listSessions with every filter of ListOptions
// (Limit and Cursor are its own).
func listSessionsOpts(ctx context.Context, st sessiondb.Store, opts sessiondb.ListOptions, limit int) ([]sessiondb.SessionInfo, error) {
	var out []sessiondb.SessionInfo
	cursor := ""
	for {
		page := sessiondb.MaxListLimit
		if limit > 0 && limit-len(out) < page {
			page = limit - len(out)
		}
		opts.Limit, opts.Cursor = page, cursor
		infos, next, err := st.List(ctx, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, infos...)
		if next == "" || (limit > 0 && len(out) >= limit) {
			return out, nil
		}
		cursor = next
	}
}

// allSessionIDs returns the ID of every session, newest first.
func allSessionIDs(ctx context.Context, st sessiondb.Store) ([]string, error) {
	infos, err := listSessions(ctx, st, "", 0)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	ids := make([]string, len(infos))
	for i, si := range infos {
		ids[i] = si.ID
	}
	return ids, nil
}
