package sessiondb

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// PromoteHistory moves the history of session from into session to, as
// picoclaw's PromoteAliasHistory does when a conversation moves from a
// legacy key to its canonical session: when to has no transcript and a
// blank summary, and from has a transcript or a summary, to gets from's
// transcript (and summary); when to does not exist, it is created (with
// default metadata; OrCreate.PromoteHistory says how). from is left as it
// is (picoclaw leaves the alias files in place). It reports whether it
// promoted; ErrNotFound when from does not exist.
func PromoteHistory(ctx context.Context, store Store, from, to string) (bool, error) {
	return OrCreate{}.PromoteHistory(ctx, store, from, to)
}

// PromoteHistory is the package's PromoteHistory, creating a missing
// target as o says, in the same transaction as the move. o.Meta is
// applied to the target in the move's commit, whether the target was
// created or already there (picoclaw's target keeps its scope and
// aliases with no second commit); the moved summary is set unless
// o.Meta sets one. When there is nothing to move nothing is written, so
// o.Meta is not applied either: write through o (o.Commit, o.Append, …)
// to set it regardless.
//
// picoclaw calls it on every turn, and almost always there is nothing to
// move: the target already has its conversation. That is decided from
// the kept counts (Get reads the session row only), so the no-op costs
// two row reads, whatever the sessions' lengths; the transcripts are read
// only when a move may happen. The move is one CommitMany expecting both
// sequences it read (or creating the target, which must still be
// missing), so a message appended to from, or anything written to to, in
// between makes it retry instead of losing that message.
func (o OrCreate) PromoteHistory(ctx context.Context, store Store, from, to string) (bool, error) {
	const attempts = 5
	for range attempts {
		ok, err := o.promoteOnce(ctx, store, from, to)
		if !errors.Is(err, ErrConflict) && !errors.Is(err, ErrExists) {
			return ok, err
		}
	}
	return false, fmt.Errorf("promote history of %s to %s: still changing after %d attempts: %w", from, to, attempts, ErrConflict)
}

func (o OrCreate) promoteOnce(ctx context.Context, store Store, from, to string) (bool, error) {
	if from == to {
		return false, fmt.Errorf("promote history of %s: %w: source and target are the same session", from, ErrInvalid)
	}
	src, err := store.Get(ctx, from)
	if err != nil {
		return false, err
	}
	if src.EntryCount == 0 && blank(src.Summary) {
		return false, nil // nothing to move: no log at all
	}
	dst, err := store.Get(ctx, to)
	missing := errors.Is(err, ErrNotFound)
	if err != nil && !missing {
		return false, err
	}
	if !missing {
		if dst.MessageCount > 0 || !blank(dst.Summary) {
			return false, nil // the target already has a conversation
		}
		if dst.EntryCount > 0 {
			// Entries but no message: only the transcript can say
			// whether it is empty (a compaction may have cut them all).
			full, err := store.LoadFull(ctx, to, LoadOptions{})
			if err != nil {
				return false, err
			}
			if len(full.Transcript) > 0 {
				return false, nil
			}
			dst = full.Session
		}
	}
	full, err := store.LoadFull(ctx, from, LoadOptions{})
	if err != nil {
		return false, err
	}
	if len(full.Transcript) == 0 && blank(full.Session.Summary) {
		return false, nil
	}
	history := make([]Entry, len(full.Transcript))
	for i, e := range full.Transcript {
		history[i] = Entry{Kind: e.Kind, Role: e.Role, CreatedAt: e.CreatedAt, Body: e.Body}
	}
	c := Commit{History: history}
	if missing {
		// Created by this commit; ErrExists (someone else created it
		// meanwhile) retries.
		s := o.Session
		s.ID = ""
		c.Create = &s
		c.ShadowAliases = o.ShadowAliases
	} else {
		c.ExpectSequence = Expect(dst.Sequence)
	}
	if o.Meta != nil {
		m := *o.Meta
		c.Meta = &m
	}
	if !blank(full.Session.Summary) && (c.Meta == nil || c.Meta.Summary == nil) {
		if c.Meta == nil {
			c.Meta = &MetaPatch{}
		}
		c.Meta.Summary = &full.Session.Summary
	}
	_, err = store.CommitMany(ctx, []SessionCommit{
		{ID: from, Commit: Commit{ExpectSequence: Expect(full.Session.Sequence)}}, // no-op unless from changed
		{ID: to, Commit: c},
	})
	if err != nil {
		return false, fmt.Errorf("promote history of %s to %s: %w", from, to, err)
	}
	return true, nil
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }
