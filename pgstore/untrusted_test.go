package pgstore

import (
	"errors"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// TestCheckUntrusted: the statement and function checks of QueryUntrusted,
// without a server (TestSQLPostgresCannotReachServer in cmd/sessionctl
// runs them against one).
func TestCheckUntrusted(t *testing.T) {
	for _, q := range []string{
		`SELECT 1`, `  -- c
		/* x /* nested */ y */ select count(*) from sessions`, `(SELECT 1)`, `WITH x AS (SELECT 1) SELECT * FROM x`,
		`VALUES (1)`, `TABLE sessions`, `SHOW search_path`, `EXPLAIN SELECT 1`,
		`SELECT 'pg_advisory_lock(1)'`, `SELECT $$set_config(1)$$`, `SELECT $x$ lo_import( $x$`,
		`SELECT E'\'pg_read_file(\''`, `SELECT "analyze" FROM t`, `SELECT lo_x FROM t`,
		`SELECT substr(text, 1, 80) FROM transcript WHERE text LIKE '%lo_import(%'`,
		`SELECT 0x1F, 0o17, 0b101, 1_000, 1.5e-3, 2E+2, .5, 3., a.b FROM t WHERE x IN (1,2) AND y>1`, `SELECT $1, $2::int`,
		"SELECT 1 -- pg_read_file(\n", "SELECT 1 -- pg_read_file(", "SELECT 1 /* -- */ /* pg_read_file( */",
	} {
		if err := checkUntrusted(q); err != nil {
			t.Errorf("checkUntrusted(%q) = %v, want accepted", q, err)
		}
	}
	for _, q := range []string{
		``, `;`, `SET ROLE postgres`, `reset role`, `Set Session Authorization postgres`, `COPY (SELECT 1) TO PROGRAM 'x'`,
		`CHECKPOINT`, `NOTIFY c`, `LISTEN c`, `DO $$ BEGIN END $$`, `CALL p()`, `LOCK sessions`, `DISCARD ALL`,
		`PREPARE p AS SELECT 1`, `EXECUTE p`, `DECLARE c CURSOR FOR SELECT 1`, `FETCH c`, `LOAD 'x'`, `VACUUM`, `ANALYZE`,
		`SELECT pg_advisory_lock(1)`, `select PG_ADVISORY_LOCK(1)`, `SELECT pg_catalog . pg_advisory_lock (1)`,
		`SELECT pg_advisory_lock/**/(1)`, `SELECT pg_advisory_lock
		(1)`, `SELECT "pg_advisory_lock"(1)`, `SELECT pg_try_advisory_xact_lock(1)`, `SELECT set_config('role','x',true)`,
		`SELECT query_to_xml('x', true, true, '')`, `SELECT ts_stat('x')`, `SELECT dblink('x','y')`, `SELECT lo_import('/x')`,
		`SELECT pg_read_file('/x')`, `SELECT pg_terminate_backend(1)`, `SELECT pg_reload_conf()`, `SELECT pg_notify('c','x')`,
		`SELECT U&"\0070g_notify"('c','x')`, `SELECT U&'x'`, `EXPLAIN ANALYZE SELECT 1`, `EXPLAIN (ANALYZE) SELECT 1`,
		`EXPLAIN (analyse true) SELECT 1`, `SELECT 'unterminated`, `SELECT /* unterminated`, `SELECT $a$ x`,
		`SELECT 0pg_advisory_lock(1)`, `SELECT 1.pg_advisory_lock(1)`, `SELECT 1e5pg_advisory_lock(1)`, `SELECT $1pg_advisory_lock(1)`,
		`SELECT 1_pg_advisory_lock(1)`, `SELECT 0xpg_advisory_lock(1)`, `SELECT 1E'x'`, `SELECT 1e`,
		`SELECT ts_rewrite('a'::tsquery, 'SELECT 1')`, `SELECT pg_logical_slot_get_changes('s', NULL, NULL)`,
		`((SET ROLE x))`, `SELECT 1 LIMIT length(pg_advisory_lock(1)::text)`, `VALUES (1), (pg_advisory_lock(1)::text::int)`,
		// Issue 36: PostgreSQL ends a -- comment at \r as well as \n.
		"SELECT 1 --\r, set_config('role', session_user, true)", "SELECT 1 -- x\r\n, pg_read_file('/x')",
		"--\rSET ROLE postgres", "SELECT 1 /* a /* b */ --\r */, pg_read_file('/x')",
	} {
		if err := checkUntrusted(q); !errors.Is(err, sessiondb.ErrInvalid) {
			t.Errorf("checkUntrusted(%q) = %v, want ErrInvalid", q, err)
		}
	}
}

// FuzzCheckUntrusted: the tokenizer never panics or loops, and whatever
// it accepts starts with a reading statement and calls no unsafe function
// by a name written plainly in the query.
func FuzzCheckUntrusted(f *testing.F) {
	for _, s := range []string{`SELECT 1`, `SELECT $$x$$`, `SELECT E'\''`, `SELECT "a""b"(1)`, `/* /* */ */ SELECT`, `SELECT pg_advisory_lock(1)`, `U&"x"`, `$1`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		err := checkUntrusted(q)
		if err == nil && plainCall(q, "pg_advisory_lock(") && !strings.ContainsAny(q, `'$-/"`) {
			t.Errorf("accepted a plain call of pg_advisory_lock: %q", q)
		}
	})
}

// plainCall reports whether q holds call, case aside, where a name begins:
// not inside a longer name (apg_advisory_lock( is another function), but
// after a number (PostgreSQL before 15 reads 0pg_advisory_lock( as 0 and
// a call).
func plainCall(q, call string) bool {
	lower := strings.ToLower(q)
	isName := func(c byte) bool { return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 0x80 }
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	for at := 0; ; {
		i := strings.Index(lower[at:], call)
		if i < 0 {
			return false
		}
		i += at
		j := i
		for j > 0 && isDigit(lower[j-1]) {
			j--
		}
		if j == 0 || !isName(lower[j-1]) {
			return true
		}
		at = i + 1
	}
}

// TestPlainCall: the fuzz oracle flags a call where PostgreSQL sees one,
// and not a longer name that ends with the function's.
func TestPlainCall(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT pg_advisory_lock(": true, "SELECT 0pg_advisory_lock(": true, "(PG_ADVISORY_LOCK(": true, "pg_advisory_lock(": true,
		"SELECT apg_advisory_lock(": false, "SELECT a0pg_advisory_lock(": false, "SELECT $1pg_advisory_lock(": false,
		"SELECT pg_advisory_lock (": false, "SELECT xpg_advisory_lock( pg_advisory_lock(": true,
	} {
		if got := plainCall(q, "pg_advisory_lock("); got != want {
			t.Errorf("plainCall(%q) = %v, want %v", q, got, want)
		}
	}
}
