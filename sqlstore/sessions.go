package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
	"github.com/sessiondb/sessiondb/internal/engine"
)

const sessionColumns = `s.id, s.title, s.summary, s.scope, s.attrs, s.version, s.sequence,
	s.last_seq, s.parent_id, s.fork_seq, s.source_format, s.source_path, s.project, s.machine, s.source_seen_at, s.source_gone_at, s.created_at, s.updated_at,
	s.message_count, s.entry_count,
	(SELECT json_group_array(alias) FROM
		(SELECT alias FROM session_aliases WHERE session_id = s.id ORDER BY id)) AS aliases`

// getSession reads a session inside tx; ErrNotFound when absent.
func getSession(ctx context.Context, tx *sqlx.Tx, id string) (sessiondb.Session, error) {
	return engine.GetSession(ctx, tx, sessionColumns, id)
}

// insertSession creates the row (Sequence 0: the commit that creates it
// bumps it to 1) and its aliases.
func insertSession(ctx context.Context, tx *sqlx.Tx, s sessiondb.Session, now time.Time, shadowAliases bool) error {
	var exists int
	err := tx.GetContext(ctx, &exists, `SELECT count(*) FROM sessions WHERE id = ?`, s.ID)
	if err != nil {
		return err
	}
	if exists > 0 {
		return &engine.IDTakenError{ID: s.ID}
	}
	if !shadowAliases && !sessiondb.IsPathKey(s.ID) {
		// Resolve lets such an ID win over an alias: creating it would
		// silently move the alias away from the sessions listing it.
		var holder string
		err := tx.GetContext(ctx, &holder, `SELECT a.session_id FROM session_aliases a WHERE a.alias = ?
			ORDER BY `+holderOrder+` LIMIT 1`, s.ID)
		if err == nil {
			return fmt.Errorf("create session %q: %w: it is an alias of session %q", s.ID, sessiondb.ErrExists, holder)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
	}
	created := engine.OrNow(s.CreatedAt, now)
	updated := engine.OrNow(s.UpdatedAt, now)
	var forkSeq any
	if s.ParentID != "" {
		forkSeq = s.ForkSeq
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO sessions
		(id, title, summary, scope, attrs, version, sequence, last_seq, parent_id, fork_seq,
		 source_format, source_path, project, machine, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, coalesce((SELECT sequence FROM deleted_sessions WHERE id_hash = ?), 0), 0, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, s.Title, s.Summary, backend.NullJSON(s.Scope), backend.NullJSON(s.Attrs), s.Version, backend.TombstoneKey(s.ID),
		backend.NullString(s.ParentID), forkSeq, backend.NullString(s.SourceFormat), backend.NullString(s.SourcePath),
		backend.NullString(s.Project), backend.NullString(s.Machine), engine.FormatTime(created), engine.FormatTime(updated))
	if err != nil {
		return err
	}
	return setAliases(ctx, tx, s.ID, s.Aliases)
}

// setAliases replaces a session's aliases, in the order given.
// Duplicates and the session's own ID are dropped. An alias may be listed
// by several sessions and may equal another session's ID: Resolve decides
// which session a name means (see engine.ResolveKey).
func setAliases(ctx context.Context, tx *sqlx.Tx, id string, aliases []string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM session_aliases WHERE session_id = ?`, id); err != nil {
		return err
	}
	for _, a := range backend.NormalAliases(id, aliases) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO session_aliases (alias, session_id) VALUES (?, ?)`, a, id); err != nil {
			return err
		}
	}
	return nil
}

// holderOrder is the SQL expression that orders the sessions listing one
// alias: picoclaw's file-name order, the name of session id's meta file
// (the ID with ':', '/' and '\' replaced by '_', then ".meta.json"),
// compared byte for byte. See sessiondb.AliasOrderKey.
const holderOrder = `replace(replace(replace(a.session_id, ':', '_'), '/', '_'), '\', '_') || '.meta.json', a.session_id`
