-- Full-text search over the text extracted from every log entry and every
-- compaction summary message, kept in step by triggers, so the index is
-- updated in the same transaction as the write it indexes and rows removed
-- by a delete or a prune leave the index with them.
--
-- Tokenizer: trigram. It finds any substring of three or more characters
-- in any script, which matters for Chinese and Japanese text that has no
-- spaces between words (unicode61 would index a whole CJK run as one
-- token, so a word inside a sentence could not be found), and it is
-- case-insensitive. The costs: the index is larger than with unicode61, and
-- terms shorter than three characters cannot use it (sessiondb answers
-- those with a scan of the extracted text instead).

-- +goose Up
CREATE VIRTUAL TABLE entries_fts USING fts5 (
    text,
    content = 'entries',
    content_rowid = 'id',
    tokenize = 'trigram'
);

CREATE VIRTUAL TABLE summary_fts USING fts5 (
    text,
    content = 'summary_messages',
    content_rowid = 'id',
    tokenize = 'trigram'
);

-- +goose StatementBegin
CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries WHEN new.text <> '' BEGIN
    INSERT INTO entries_fts (rowid, text) VALUES (new.id, new.text);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries WHEN old.text <> '' BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER entries_fts_update AFTER UPDATE OF text ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, text) SELECT 'delete', old.id, old.text WHERE old.text <> '';
    INSERT INTO entries_fts (rowid, text) SELECT new.id, new.text WHERE new.text <> '';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER summary_fts_insert AFTER INSERT ON summary_messages WHEN new.text <> '' BEGIN
    INSERT INTO summary_fts (rowid, text) VALUES (new.id, new.text);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER summary_fts_delete AFTER DELETE ON summary_messages WHEN old.text <> '' BEGIN
    INSERT INTO summary_fts (summary_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER summary_fts_update AFTER UPDATE OF text ON summary_messages BEGIN
    INSERT INTO summary_fts (summary_fts, rowid, text) SELECT 'delete', old.id, old.text WHERE old.text <> '';
    INSERT INTO summary_fts (rowid, text) SELECT new.id, new.text WHERE new.text <> '';
END;
-- +goose StatementEnd

-- Index what the database already holds.
INSERT INTO entries_fts (rowid, text) SELECT id, text FROM entries WHERE text <> '';
INSERT INTO summary_fts (rowid, text) SELECT id, text FROM summary_messages WHERE text <> '';

-- Usage per model over all sessions is a common question: index it.
CREATE INDEX usage_by_model ON usage (provider, model, created_at);

-- +goose Down
DROP INDEX usage_by_model;
DROP TRIGGER summary_fts_update;
DROP TRIGGER summary_fts_delete;
DROP TRIGGER summary_fts_insert;
DROP TRIGGER entries_fts_update;
DROP TRIGGER entries_fts_delete;
DROP TRIGGER entries_fts_insert;
DROP TABLE summary_fts;
DROP TABLE entries_fts;
