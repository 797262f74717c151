-- The full-text index moves to its own file (issue 26). Indexing a batch
-- of rows (FTS5's trigram tokenizer) held the database's one write lock
-- for as long as it took, about half of what 16 concurrent writers asked
-- of the committer. The index is now written to <database>-search, an
-- SQLite file attached to sessiondb's connections as the schema "search"
-- (search.entries_fts, search.summary_fts, and the cursor
-- search.indexed), by a connection that only reads the database: appends
-- commit while a batch is indexed. sqlstore creates and fills that file;
-- it is derived data, rebuilt from the log when missing or damaged.
--
-- search_index stays, with a narrower meaning: the reservation. Row ids at
-- or below indexed_through may be in the index file; the indexer moves it
-- (to the highest id of the table) before it indexes past it, and new
-- rows take ids above it (sqlstore's nextEntryID, the entries_after_cursor
-- trigger), so an id that may be in the index is never given again. The
-- unindex triggers still record deleted rows at or below it in
-- search_deleted; the indexer removes them from the index file, then from
-- search_deleted. The file's own cursor (search.indexed.through) is never
-- above the reservation; when it is, the database is older than its index
-- (restored from a copy) and the index is built again.
--
-- index_file names the index file this database's index belongs to: a
-- random token, new here and in every backup (sqlstore's Backup gives the
-- copy its own), which the index file records. An index file built for
-- another database, or for this one before a backup of it was put back in
-- its place, holds another token and is built again.
--
-- Down: the tables come back empty and the reservation goes to 0, which
-- the previous version reads as "nothing indexed": it indexes every row
-- again. The index file is left beside the database; that version does
-- not read it.

-- +goose Up
DROP TABLE entries_fts;
DROP TABLE summary_fts;
ALTER TABLE search_index ADD COLUMN index_file TEXT NOT NULL DEFAULT '';
UPDATE search_index SET index_file = lower(hex(randomblob(16)));

-- +goose Down
ALTER TABLE search_index DROP COLUMN index_file;
CREATE VIRTUAL TABLE entries_fts USING fts5 (
    text,
    content = '',
    contentless_delete = 1,
    detail = none,
    tokenize = 'trigram'
);
CREATE VIRTUAL TABLE summary_fts USING fts5 (
    text,
    content = '',
    contentless_delete = 1,
    detail = none,
    tokenize = 'trigram'
);
INSERT INTO entries_fts (entries_fts, rank) VALUES ('automerge', 0);
INSERT INTO summary_fts (summary_fts, rank) VALUES ('automerge', 0);
UPDATE search_index SET indexed_through = 0;
DELETE FROM search_deleted;
