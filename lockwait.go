package sessiondb

import "context"

// A write that has begun runs to its end: callers that must not leave a
// transaction half done (the watcher's imports, an import flushing what it
// parsed before a SIGTERM) run it with a context that is never cancelled.
// But waiting for another process's write lock is not a transaction that
// has begun: nothing is written yet, and a process told to stop must not
// wait out the lock (with a 30 s busy timeout and its retries, ~2 minutes,
// where systemd kills a service after 30 s). DetachWrites makes such a
// context; a store stops waiting for a lock when LockWait of the write's
// context is done.

type lockWaitKey struct{}

// DetachWrites returns a context that is never cancelled (like
// context.WithoutCancel) but whose LockWait is ctx: a write made with it
// runs to its end once begun, and gives up waiting for another process's
// lock when ctx ends (the error wraps ErrBusy and ctx's error).
func DetachWrites(ctx context.Context) context.Context {
	return context.WithValue(context.WithoutCancel(ctx), lockWaitKey{}, ctx)
}

// LockWait returns the context that bounds a write's wait for another
// process's lock: the one DetachWrites remembered, else ctx itself.
func LockWait(ctx context.Context) context.Context {
	if w, ok := ctx.Value(lockWaitKey{}).(context.Context); ok {
		return w
	}
	return ctx
}
