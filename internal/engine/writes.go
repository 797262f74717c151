package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sessiondb/sessiondb"
)

// IDTakenError is InsertSession's sessiondb.ErrExists when the session ID
// itself is taken (not an alias): SaveFull, unlike Create, answers it by
// updating the session.
type IDTakenError struct{ ID string }

func (e *IDTakenError) Error() string {
	return fmt.Sprintf("create session %q: %v", e.ID, sessiondb.ErrExists)
}

// Unwrap makes errors.Is(err, sessiondb.ErrExists) true.
func (e *IDTakenError) Unwrap() error { return sessiondb.ErrExists }

// ErrRaced marks an attempt that lost a race another transaction won (both
// creating one session). It wraps sessiondb.ErrBusy: a driver whose
// transactions can race retries it, and the next attempt sees the winner.
var ErrRaced = fmt.Errorf("%w: concurrent write", sessiondb.ErrBusy)

// Append implements sessiondb.Store.
func (e *Engine) Append(ctx context.Context, id string, entries ...sessiondb.Entry) (sessiondb.Session, error) {
	return e.Commit(ctx, id, sessiondb.Commit{Append: entries})
}

// SaveState implements sessiondb.Store.
func (e *Engine) SaveState(ctx context.Context, id string, state json.RawMessage) (sessiondb.Session, error) {
	if state == nil {
		return sessiondb.Session{}, fmt.Errorf("save state of %s: %w: nil state", id, sessiondb.ErrInvalid)
	}
	return e.Commit(ctx, id, sessiondb.Commit{State: state})
}

// SaveInterrupt implements sessiondb.Store.
func (e *Engine) SaveInterrupt(ctx context.Context, id string, interrupt json.RawMessage) (sessiondb.Session, error) {
	if interrupt == nil {
		return sessiondb.Session{}, fmt.Errorf("save interrupt of %s: %w: nil interrupt", id, sessiondb.ErrInvalid)
	}
	return e.Commit(ctx, id, sessiondb.Commit{Interrupt: interrupt})
}

// ClearInterrupt implements sessiondb.Store.
func (e *Engine) ClearInterrupt(ctx context.Context, id string) (sessiondb.Session, error) {
	return e.Commit(ctx, id, sessiondb.Commit{ClearInterrupt: true})
}

// SaveFull implements sessiondb.Store.
func (e *Engine) SaveFull(ctx context.Context, meta sessiondb.Session, messages []sessiondb.Entry, state json.RawMessage) (sessiondb.Session, error) {
	if meta.ID == "" {
		meta.ID = sessiondb.NewID()
	}
	probe := sessiondb.Commit{Append: messages, State: state, Create: &meta}
	if err := sessiondb.ValidateCommit(meta.ID, probe); err != nil {
		return sessiondb.Session{}, fmt.Errorf("save %s: %w", meta.ID, err)
	}
	var out sessiondb.Session
	err := e.d.Write(ctx, func(tx Tx) error {
		c := sessiondb.Commit{State: state}
		_, err := e.d.LockSession(ctx, tx, meta.ID)
		switch {
		case err == nil:
			if meta.Sequence != 0 {
				c.ExpectSequence = sessiondb.Expect(meta.Sequence)
			}
			aliases := meta.Aliases
			c.Meta = &sessiondb.MetaPatch{Title: &meta.Title, Summary: &meta.Summary, Scope: orNull(meta.Scope),
				Attrs: orNull(meta.Attrs), Aliases: &aliases, Version: &meta.Version, Project: &meta.Project}
		case isNotFound(err):
			c.Create = &meta
		default:
			return err
		}
		c.History = messages
		if c.History == nil {
			c.History = []sessiondb.Entry{}
		}
		out, err = e.applyCommit(ctx, tx, meta.ID, c)
		var taken *IDTakenError
		if c.Create != nil && errors.As(err, &taken) {
			// Another writer created the session since the check above
			// (possible only where writers of different sessions run at
			// once): run again, and this time update it.
			return fmt.Errorf("%w: session %q was created concurrently", ErrRaced, meta.ID)
		}
		return err
	})
	return out, err
}

// LoadFull implements sessiondb.Store: one read transaction, one snapshot.
func (e *Engine) LoadFull(ctx context.Context, id string, opts sessiondb.LoadOptions) (sessiondb.Full, error) {
	if err := sessiondb.ValidateID(id); err != nil {
		return sessiondb.Full{}, fmt.Errorf("load %s: %w", id, err)
	}
	var f sessiondb.Full
	err := e.d.Read(ctx, func(tx Tx) (err error) {
		if f.Session, err = e.d.GetSession(ctx, tx, id); err != nil {
			return err
		}
		if f.Transcript, err = LoadTranscript(ctx, tx, id, opts); err != nil {
			return err
		}
		if f.State, err = GetDoc(ctx, tx, "states", id); err != nil {
			return err
		}
		f.Interrupt, err = GetDoc(ctx, tx, "interrupts", id)
		return err
	})
	return f, err
}

// orNull turns an unset document into JSON null, which a MetaPatch reads
// as "clear": SaveFull replaces the metadata, it does not merge it.
func orNull(doc json.RawMessage) json.RawMessage {
	if doc == nil {
		return json.RawMessage("null")
	}
	return doc
}

// SetHistory implements sessiondb.Store.
func (e *Engine) SetHistory(ctx context.Context, id string, messages []sessiondb.Entry) (sessiondb.Session, error) {
	if messages == nil {
		messages = []sessiondb.Entry{}
	}
	return e.Commit(ctx, id, sessiondb.Commit{History: messages})
}

// Compact implements sessiondb.Store.
func (e *Engine) Compact(ctx context.Context, id string, c sessiondb.Compaction) (sessiondb.Session, error) {
	return e.Commit(ctx, id, sessiondb.Commit{Compactions: []sessiondb.Compaction{c}})
}

// Truncate implements sessiondb.Store.
func (e *Engine) Truncate(ctx context.Context, id string, keepLast int) (sessiondb.Session, error) {
	return e.Commit(ctx, id, sessiondb.Commit{KeepLast: &keepLast})
}
