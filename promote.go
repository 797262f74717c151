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
// transcript (and summary); when to does not exist, it is created first. from
// is left as it is (picoclaw leaves the alias files in place).
//
// It reads both sessions and then writes with one CommitMany expecting
// both sequences it read, so a message appended to from (or anything
// written to to) in between makes it retry instead of losing that message.
// It reports whether it promoted; ErrNotFound when from does not exist.
func PromoteHistory(ctx context.Context, store Store, from, to string) (bool, error) {
	const attempts = 5
	for range attempts {
		ok, err := promoteOnce(ctx, store, from, to)
		if !errors.Is(err, ErrConflict) {
			return ok, err
		}
	}
	return false, fmt.Errorf("promote history of %s to %s: still changing after %d attempts: %w", from, to, attempts, ErrConflict)
}

func promoteOnce(ctx context.Context, store Store, from, to string) (bool, error) {
	if from == to {
		return false, fmt.Errorf("promote history of %s: %w: source and target are the same session", from, ErrInvalid)
	}
	src, err := store.LoadFull(ctx, from, LoadOptions{})
	if err != nil {
		return false, err
	}
	if len(src.Transcript) == 0 && strings.TrimSpace(src.Session.Summary) == "" {
		return false, nil
	}
	dst, err := store.LoadFull(ctx, to, LoadOptions{})
	if errors.Is(err, ErrNotFound) {
		// Create the target first (as picoclaw's UpsertSessionMeta does
		// before promoting), so that the move below can expect its
		// sequence like the source's.
		if _, err := store.Commit(ctx, to, Commit{CreateIfMissing: &Session{}}); err != nil {
			return false, err
		}
		dst, err = store.LoadFull(ctx, to, LoadOptions{})
	}
	if err != nil {
		return false, err
	}
	if len(dst.Transcript) > 0 || strings.TrimSpace(dst.Session.Summary) != "" {
		return false, nil // the target already has a conversation
	}
	history := make([]Entry, len(src.Transcript))
	for i, e := range src.Transcript {
		history[i] = Entry{Kind: e.Kind, Role: e.Role, CreatedAt: e.CreatedAt, Body: e.Body}
	}
	c := Commit{History: history, ExpectSequence: Expect(dst.Session.Sequence)}
	if strings.TrimSpace(src.Session.Summary) != "" {
		c.Meta = &MetaPatch{Summary: &src.Session.Summary}
	}
	_, err = store.CommitMany(ctx, []SessionCommit{
		{ID: from, Commit: Commit{ExpectSequence: Expect(src.Session.Sequence)}}, // no-op unless from changed
		{ID: to, Commit: c},
	})
	if err != nil {
		return false, fmt.Errorf("promote history of %s to %s: %w", from, to, err)
	}
	return true, nil
}
