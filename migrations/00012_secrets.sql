-- Secrets found in the log, kept so that reads only apply them (issue 36;
-- see "Secrets" in sessiondb's package doc).
--
--   * secret_spans: where a secret is in an entry's body as stored: the
--     byte range [start_byte, end_byte) inside one JSON string, the rule
--     that found it and the secret's fingerprint (the first 8 bytes of its
--     SHA-256, hex: sessionctl secrets groups sightings by it; the secret
--     itself is never copied out of the body). Deleting an entry (Prune,
--     Delete) deletes its spans.
--   * secret_scans: per session, the seq up to which its entries were
--     scanned, and by which rule set (a newer set scans again). Entries
--     after through_seq are scanned when read.
--   * scrubs: each sessionctl scrub: when, which session (kept after the
--     session is deleted), how many bodies were rewritten and how many
--     secrets they held, by rule (a JSON object). doctor reports them.
--
-- Down drops the three tables: scrubbed bodies stay as they are.

-- +goose Up
CREATE TABLE secret_spans (
    entry_id    INTEGER NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
    start_byte  INTEGER NOT NULL,
    end_byte    INTEGER NOT NULL,
    rule        TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    PRIMARY KEY (entry_id, start_byte)
) STRICT, WITHOUT ROWID;

CREATE TABLE secret_scans (
    session_id  TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    through_seq INTEGER NOT NULL,
    rules       TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE scrubs (
    id          INTEGER PRIMARY KEY,
    session_id  TEXT NOT NULL,
    scrubbed_at TEXT NOT NULL,
    entries     INTEGER NOT NULL,
    secrets     INTEGER NOT NULL,
    rules       TEXT NOT NULL
) STRICT;

-- +goose Down
DROP TABLE scrubs;
DROP TABLE secret_scans;
DROP TABLE secret_spans;
