package agentrun

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // opencode's store
)

// jsonString is s as a JSON string's contents (no quotes), escaped as
// JavaScript's JSON.stringify escapes it (no HTML escapes).
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	out := bytes.TrimSpace(b.Bytes())
	return out[1 : len(out)-1]
}

// EditText replaces old with new wherever the agent's store holds it for
// session id, as a person editing the store by hand would: in the
// session's files (as JSON string contents), or for opencode in the
// session's rows of its database. It returns the number of places
// changed; none is an error.
func (a *Agent) EditText(h *Home, id, old, new string) (int, error) {
	if a.Name == "opencode" {
		return editOpencode(filepath.Join(h.Data, "opencode", "opencode.db"), id, old, new)
	}
	files := a.SessionFiles(h, id)
	if len(files) == 0 {
		return 0, fmt.Errorf("%s: no file of session %s", a.Name, id)
	}
	from, to := jsonString(old), jsonString(new)
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return n, err
		}
		c := bytes.Count(data, from)
		if c == 0 {
			continue
		}
		st, err := os.Stat(f)
		if err != nil {
			return n, err
		}
		if err := os.WriteFile(f, bytes.ReplaceAll(data, from, to), st.Mode()); err != nil {
			return n, err
		}
		n += c
	}
	if n == 0 {
		return 0, fmt.Errorf("%s: %q not found in session %s", a.Name, old, id)
	}
	return n, nil
}

// editOpencode replaces old with new in the JSON data of the session's
// rows (part, message and the event-sourced session_message and event
// tables), in one transaction, with the database's own WAL.
func editOpencode(db, id, old, new string) (int, error) {
	if _, err := os.Stat(db); err != nil {
		return 0, err
	}
	conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	tx, err := conn.Begin()
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	from, to := string(jsonString(old)), string(jsonString(new))
	total := 0
	for _, q := range []string{
		`UPDATE part SET data = replace(data, ?1, ?2) WHERE session_id = ?3 AND instr(data, ?1) > 0`,
		`UPDATE message SET data = replace(data, ?1, ?2) WHERE session_id = ?3 AND instr(data, ?1) > 0`,
		`UPDATE session_message SET data = replace(data, ?1, ?2) WHERE session_id = ?3 AND instr(data, ?1) > 0`,
		`UPDATE event SET data = replace(data, ?1, ?2) WHERE aggregate_id = ?3 AND instr(data, ?1) > 0`,
	} {
		res, err := tx.Exec(q, from, to, id)
		if err != nil {
			return 0, fmt.Errorf("opencode edit: %w", err)
		}
		n, _ := res.RowsAffected()
		total += int(n)
	}
	if total == 0 {
		return 0, fmt.Errorf("opencode: %q not found in session %s", old, id)
	}
	return total, tx.Commit()
}
