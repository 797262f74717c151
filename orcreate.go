package sessiondb

import (
	"context"
	"encoding/json"
)

// Create-on-write versions of Store.Append, Store.SetHistory,
// Store.SaveState and PromoteHistory: each is one Commit with
// CreateIfMissing, so the first write to a new session creates it in the
// same transaction, race-free, as picoclaw's store does on its first
// write.

// OrCreate says how the create-on-write helpers create a session that
// does not exist yet: with Session's fields (its ID is ignored: the
// helper's id is used) and, with ShadowAliases, even when other sessions
// list that ID as an alias (see Commit.ShadowAliases). An adapter that
// gives a new session its scope and aliases sets them here, so the first
// write needs no second commit. The zero OrCreate creates a session with
// default metadata.
//
// Meta, when non-nil, is applied to the session by every write through
// o, in that write's commit, whether the session was created or already
// there: the scope and aliases an adapter keeps on its sessions stay set
// by the writes themselves, with no second commit (an equal patch costs
// nothing, see Commit). PromoteHistory applies it to the target in the
// move's CommitMany.
type OrCreate struct {
	Session       Session
	ShadowAliases bool
	Meta          *MetaPatch
}

// commit returns c with the create-on-write fields set.
func (o OrCreate) commit(c Commit) Commit {
	s := o.Session
	s.ID = ""
	c.CreateIfMissing = &s
	c.ShadowAliases = o.ShadowAliases
	if o.Meta != nil && c.Meta == nil {
		m := *o.Meta
		c.Meta = &m
	}
	return c
}

// Commit applies c to session id, creating the session when missing (as
// o says) in the same transaction: any write an adapter makes, with
// create-on-write. c must not have Create, CreateIfMissing or Delete of
// its own, nor a Meta when o has one (ErrInvalid: say it in one place).
func (o OrCreate) Commit(ctx context.Context, store Store, id string, c Commit) (Session, error) {
	switch {
	case c.Create != nil || c.CreateIfMissing != nil:
		return Session{}, invalidf("commit %s or create: the commit creates on its own", id)
	case c.Delete:
		return Session{}, invalidf("commit %s or create: a delete does not create", id)
	case c.Meta != nil && o.Meta != nil:
		return Session{}, invalidf("commit %s or create: both the commit and OrCreate patch the metadata", id)
	}
	return store.Commit(ctx, id, o.commit(c))
}

// Append appends entries to session id, creating it when missing.
func (o OrCreate) Append(ctx context.Context, store Store, id string, entries ...Entry) (Session, error) {
	return store.Commit(ctx, id, o.commit(Commit{Append: entries}))
}

// SetHistory replaces the transcript of session id (see
// Store.SetHistory), creating the session when missing.
func (o OrCreate) SetHistory(ctx context.Context, store Store, id string, messages []Entry) (Session, error) {
	if messages == nil {
		messages = []Entry{}
	}
	return store.Commit(ctx, id, o.commit(Commit{History: messages}))
}

// SaveState replaces the state document of session id, creating the
// session when missing.
func (o OrCreate) SaveState(ctx context.Context, store Store, id string, state json.RawMessage) (Session, error) {
	if state == nil {
		return Session{}, invalidf("save state of %s: nil state", id)
	}
	return store.Commit(ctx, id, o.commit(Commit{State: state}))
}

// AppendOrCreate appends entries to session id, creating it (with default
// metadata) when missing: OrCreate{}.Append.
func AppendOrCreate(ctx context.Context, store Store, id string, entries ...Entry) (Session, error) {
	return OrCreate{}.Append(ctx, store, id, entries...)
}

// SetHistoryOrCreate replaces the transcript of session id (see
// Store.SetHistory), creating the session when missing:
// OrCreate{}.SetHistory.
func SetHistoryOrCreate(ctx context.Context, store Store, id string, messages []Entry) (Session, error) {
	return OrCreate{}.SetHistory(ctx, store, id, messages)
}

// SaveStateOrCreate replaces the state document of session id, creating
// the session when missing: OrCreate{}.SaveState.
func SaveStateOrCreate(ctx context.Context, store Store, id string, state json.RawMessage) (Session, error) {
	return OrCreate{}.SaveState(ctx, store, id, state)
}
