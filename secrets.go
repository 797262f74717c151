package sessiondb

import (
	"context"
	"time"
)

// SecretKeeper is implemented by stores that find the secrets in their
// text once, in the background, and mask them on every read of a
// redacted view (see "Secrets" in the package doc). sqlstore and pgstore
// implement it.
type SecretKeeper interface {
	// Redacted returns a view of the store whose reads return text with
	// every secret replaced by [REDACTED:rule]: entry and summary bodies
	// (still valid JSON), search snippets and titles, session titles and
	// summaries, state, interrupt and checkpoint documents. Writes pass
	// through. What is stored never changes.
	Redacted() Store
	// ScanSecrets scans one batch of the entries not yet scanned (or
	// scanned by an older rule set) and records what it finds; more
	// reports whether work is left. A writable store runs it in the
	// background; call it to have the scan complete at a known point.
	ScanSecrets(ctx context.Context) (more bool, err error)
	// SecretStatus counts the entries not scanned yet (reads scan them
	// as they read them).
	SecretStatus(ctx context.Context) (unscanned int64, err error)
	// Secrets lists what was found, one row per secret (by fingerprint)
	// and session, with its first sighting, in session and seq order.
	// Entries not scanned yet are scanned for it. It never returns a
	// secret, only a masked form.
	Secrets(ctx context.Context, q SecretQuery) ([]SecretFound, error)
	// Scrub rewrites, in one transaction, the stored bodies of session
	// id's entries and summary messages that hold secrets, with each
	// secret replaced by [REDACTED:rule], and records it (Scrubs). The
	// original bytes are gone from the tables: an export is no longer
	// byte for byte what was imported. It bumps the Sequence when it
	// changes anything.
	Scrub(ctx context.Context, id string) (ScrubRecord, error)
	// Scrubs lists the scrubs done, oldest first.
	Scrubs(ctx context.Context) ([]ScrubRecord, error)
}

// SecretQuery filters Secrets.
type SecretQuery struct {
	// SessionID restricts the listing to one session (an alias works too).
	SessionID string
	// Rule keeps one rule's findings.
	Rule string
}

// SecretFound is one secret of one session: the rule that found it, its
// fingerprint (the first 8 bytes of its SHA-256, hex), a masked form
// (the first and last four characters of a long secret, the length of a
// short one), how many times the session's log holds it and where it
// was first seen.
type SecretFound struct {
	SessionID   string
	Rule        string
	Fingerprint string
	Masked      string
	Count       int
	// FirstSeq and FirstAt are the entry where the secret was first
	// seen (FirstSeq 0: a summary message of a compaction).
	FirstSeq int64
	FirstAt  time.Time
}

// ScrubRecord is one scrub: when, which session, how many bodies were
// rewritten and how many secrets they held, by rule.
type ScrubRecord struct {
	SessionID string
	At        time.Time
	Entries   int
	Secrets   int
	Rules     map[string]int
}
