package pgstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/engine"
)

// translate maps driver errors to the root sentinels at the storage
// boundary, so that callers never see sql.ErrNoRows or a raw SQLSTATE.
// Errors that are already sessiondb errors pass through.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return sessiondb.ErrNotFound
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if strings.Contains(err.Error(), "sql: database is closed") {
		return sessiondb.ErrClosed
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		var sentinel error
		switch {
		case pe.Code == "40001", pe.Code == "40P01", pe.Code == "55P03":
			// serialization_failure, deadlock_detected, lock_not_available:
			// the transaction was rolled back and may run again.
			sentinel = sessiondb.ErrBusy
		case strings.HasPrefix(pe.Code, "57P"), strings.HasPrefix(pe.Code, "08"), pe.Code == "53300":
			// admin/crash shutdown, cannot connect now (starting up),
			// connection exceptions, too many connections: the server
			// is going away or coming back.
			sentinel = sessiondb.ErrBusy
		case pe.Code == "23505":
			sentinel = sessiondb.ErrExists // unique_violation: a racing create
		case pe.Code == "23503":
			sentinel = sessiondb.ErrNotFound // foreign_key_violation: a racing delete
		case strings.HasPrefix(pe.Code, "22"):
			// data exception: text the server cannot hold (U+0000,
			// invalid UTF-8), a number out of range. Nothing was written.
			sentinel = sessiondb.ErrInvalid
		case pe.Code == "53100":
			sentinel = sessiondb.ErrFull // disk_full
		case pe.Code == "25006", pe.Code == "42501":
			sentinel = sessiondb.ErrReadOnly // read_only_sql_transaction, insufficient_privilege
		case pe.Code == "XX001", pe.Code == "XX002":
			sentinel = sessiondb.ErrCorrupt // data_corrupted, index_corrupted
		}
		if sentinel == nil {
			return err
		}
		return fmt.Errorf("%w: %s (SQLSTATE %s)", sentinel, pe.Message, pe.Code)
	}
	if isConnError(err) {
		return fmt.Errorf("%w: %v", errLostConn, err)
	}
	return err
}

// errRace marks an attempt that lost a race another transaction won (both
// creating one session): retried, and the next attempt sees the winner.
var errRace = engine.ErrRaced

// isUniqueViolation reports whether err is a unique violation of the named
// constraint.
func isUniqueViolation(err error, constraint string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505" && pe.ConstraintName == constraint
}

// isConnError reports whether err is a failure of the connection rather
// than an answer of the server: the transaction on it is gone (the server
// rolls back the transaction of a client that disconnects).
func isConnError(err error) bool {
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, sql.ErrConnDone) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	return pgconn.SafeToRetry(err) || strings.Contains(err.Error(), "conn closed") ||
		strings.Contains(err.Error(), "failed to connect")
}

// isServerError reports whether err is an answer of the server to COMMIT
// that says it did not commit, as opposed to a lost connection (outcome
// unknown). A FATAL or PANIC error ends the session and may come after
// the commit was made durable (a backend terminated between its commit
// record and its answer), so it does not count as an answer.
func isServerError(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Severity != "FATAL" && pe.Severity != "PANIC"
}

// isRetryable reports whether an attempt that failed with err (already
// translated) may simply run again.
func isRetryable(err error) bool {
	return errors.Is(err, sessiondb.ErrBusy)
}
