// Command goose writes testdata/corpus/goose: goose session stores and
// legacy session files CONSTRUCTED by following goose's own schema SQL
// and serialization, statement by statement, because too few real ones
// are public (one real store, with no message, is copied by copy.sh).
// Each statement names the goose source file and commit it comes from.
//
// Run from the module root: go run ./testdata/gen/goose
//
// Every file is the same at every run except constructed-v13's -wal,
// whose header salts SQLite draws at random; its frames hold the same
// pages.
//
// Sources (github.com/block/goose):
//
//	S5  crates/goose/src/session/session_manager.rs @ 0164300649cf5e4ab327105d9155779ab8bfde4b
//	    (CURRENT_SCHEMA_VERSION 5: create(), add_message(), replace_conversation())
//	M13 crates/goose/src/session/migrations.rs @ 865e4a030a67eb0c51869874b9c758cb1eb10595
//	    (CURRENT_SCHEMA_VERSION 13: apply_migration 6..13)
//	MSG crates/goose/src/conversation/message/{mod,content_types,tool_types}.rs @ 865e4a03…
//	    (Message, MessageContent tags, MessageMetadata, ToolRequest, ToolResponse)
//	LEG crates/goose/src/session/storage.rs @ 01a262b229f12e7684a8d596d89480546c8231cc
//	    (legacy JSONL: SessionMetadata first line, one Message per line)
//
// The ledger store (ledger/) follows the v1.53.0 schema as a third-party
// project quotes it (usage_ledger, cache columns, parent_session_id); that
// schema was NOT read in goose's own source here: it is marked so in the
// manifest and in the package doc.
package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite"
)

const out = "testdata/corpus/goose"

// S5: create() — the schema a fresh goose 5 store gets.
var schemaV5 = []string{
	`CREATE TABLE schema_version (
                version INTEGER PRIMARY KEY,
                applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
            )`,
	`CREATE TABLE sessions (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL DEFAULT '',
                description TEXT NOT NULL DEFAULT '',
                user_set_name BOOLEAN DEFAULT FALSE,
                session_type TEXT NOT NULL DEFAULT 'user',
                working_dir TEXT NOT NULL,
                created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
                updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
                extension_data TEXT DEFAULT '{}',
                total_tokens INTEGER,
                input_tokens INTEGER,
                output_tokens INTEGER,
                accumulated_total_tokens INTEGER,
                accumulated_input_tokens INTEGER,
                accumulated_output_tokens INTEGER,
                schedule_id TEXT,
                recipe_json TEXT,
                user_recipe_values_json TEXT
            )`,
	`CREATE TABLE messages (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                session_id TEXT NOT NULL REFERENCES sessions(id),
                role TEXT NOT NULL,
                content_json TEXT NOT NULL,
                created_timestamp INTEGER NOT NULL,
                timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
                tokens INTEGER,
                metadata_json TEXT
            )`,
	"CREATE INDEX idx_messages_session ON messages(session_id)",
	"CREATE INDEX idx_messages_timestamp ON messages(timestamp)",
	"CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC)",
	"CREATE INDEX idx_sessions_type ON sessions(session_type)",
}

// M13: apply_migration(6..13), in order (11, the provider inventory's
// tables, is left out: nothing here reads them).
var migrations = map[int][]string{
	6: {"ALTER TABLE sessions ADD COLUMN provider_name TEXT", "ALTER TABLE sessions ADD COLUMN model_config_json TEXT"},
	7: {"ALTER TABLE messages ADD COLUMN message_id TEXT", "UPDATE messages SET message_id = 'msg_' || session_id || '_' || id", "CREATE INDEX idx_messages_message_id ON messages(message_id)"},
	8: {"ALTER TABLE sessions ADD COLUMN goose_mode TEXT NOT NULL DEFAULT 'auto'"},
	9: {"UPDATE sessions SET session_type = 'acp' WHERE session_type = 'user' AND name = 'ACP Session' AND user_set_name = FALSE"},
	10: {"ALTER TABLE sessions ADD COLUMN thread_id TEXT", "CREATE INDEX IF NOT EXISTS idx_sessions_thread ON sessions(thread_id)",
		`CREATE TABLE IF NOT EXISTS threads (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT 'New Chat', user_set_name BOOLEAN DEFAULT FALSE, working_dir TEXT, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, archived_at TIMESTAMP, metadata_json TEXT DEFAULT '{}')`,
		`CREATE TABLE IF NOT EXISTS thread_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, thread_id TEXT NOT NULL REFERENCES threads(id), session_id TEXT, message_id TEXT, role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, metadata_json TEXT DEFAULT '{}')`},
	12: {"ALTER TABLE sessions ADD COLUMN archived_at TIMESTAMP", "ALTER TABLE sessions ADD COLUMN project_id TEXT"},
	13: {"ALTER TABLE sessions ADD COLUMN accumulated_cost REAL"},
}

// The v1.53.0 schema as quoted by a third party (see the package doc):
// used only for the ledger store.
var schemaLedger = []string{
	`CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)`,
	`CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '', user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER, cache_read_tokens INTEGER, cache_write_tokens INTEGER, accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER, accumulated_cache_read_tokens INTEGER, accumulated_cache_write_tokens INTEGER, accumulated_cost REAL, schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT, goose_mode TEXT NOT NULL DEFAULT 'auto', archived_at TIMESTAMP, project_id TEXT, parent_session_id TEXT)`,
	`CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT)`,
	`CREATE TABLE usage_ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, created_timestamp INTEGER NOT NULL, model TEXT, input_tokens INTEGER, output_tokens INTEGER, total_tokens INTEGER, cache_read_tokens INTEGER, cache_write_tokens INTEGER, cost REAL, cost_source TEXT, is_compaction INTEGER DEFAULT 0)`,
	`CREATE INDEX idx_messages_session ON messages(session_id)`,
	`CREATE INDEX idx_usage_ledger_session ON usage_ledger(session_id)`,
}

// ---- MSG: goose's serialization of MessageContent (serde, camelCase tags) ----

func j(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		log.Fatal(err)
	}
	return string(b)
}

type obj = map[string]any

// Map keys marshal sorted; goose writes fields in declaration order. The
// order does not matter to any reader, but to keep goose's, items are
// written by hand.
func text(t string) string { return `{"type":"text","text":` + j(t) + `}` }
func thinking(t, sig string) string {
	return `{"type":"thinking","thinking":` + j(t) + `,"signature":` + j(sig) + `}`
}
func image(data, mime string) string {
	return `{"type":"image","data":` + j(data) + `,"mimeType":` + j(mime) + `}`
}
func request(id, name string, args obj) string {
	return `{"type":"toolRequest","id":` + j(id) + `,"toolCall":{"status":"success","value":{"name":` + j(name) + `,"arguments":` + j(args) + `}}}`
}
func badRequest(id, msg string) string {
	return `{"type":"toolRequest","id":` + j(id) + `,"toolCall":{"status":"error","error":` + j(msg) + `}}`
}

// response: a CallToolResult (rmcp) as value, the current shape.
func response(id, out string, isErr bool) string {
	return `{"type":"toolResponse","id":` + j(id) + `,"toolResult":{"status":"success","value":{"content":[{"type":"text","text":` + j(out) + `}],"isError":` + j(isErr) + `}}}`
}

// legacyResponse: before CallToolResult, value was the list of content.
func legacyResponse(id, out string) string {
	return `{"type":"toolResponse","id":` + j(id) + `,"toolResult":{"status":"success","value":[{"type":"text","text":` + j(out) + `}]}}`
}
func errResponse(id, msg string) string {
	return `{"type":"toolResponse","id":` + j(id) + `,"toolResult":{"status":"error","error":` + j(msg) + `}}`
}
func notice(msg string) string {
	return `{"type":"systemNotification","notificationType":"inlineMessage","msg":` + j(msg) + `}`
}
func list(items ...string) string { return "[" + strings.Join(items, ",") + "]" }

// MessageMetadata (MSG): both flags, camelCase.
func meta(user, agent bool) string {
	return fmt.Sprintf(`{"userVisible":%v,"agentVisible":%v}`, user, agent)
}

// ---- stores ----

type msg struct {
	role, content string
	created       int64
	meta          string // "" for NULL (schema 5 before metadata was written)
}

func exec(db *sql.DB, q string, args ...any) {
	if _, err := db.Exec(q, args...); err != nil {
		log.Fatalf("%s: %v", q, err)
	}
}

func open(path string, wal bool) *sql.DB {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		log.Fatal(err)
	}
	for _, s := range []string{"", "-wal", "-shm"} {
		os.Remove(path + s)
	}
	dsn := "file:" + path
	if wal {
		dsn += "?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		log.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

// addMessage is S5 add_message() with M13's message_id (migration 7).
func addMessage(db *sql.DB, sid string, withID bool, i int, m msg) {
	var md any
	if m.meta != "" {
		md = m.meta
	}
	// The insert time (timestamp) is fixed, so that the generator writes
	// the same rows at every run: one second per message.
	ts := fmt.Sprintf("2026-03-0%d 10:%02d:%02d", 1+i/3600, (i/60)%60, i%60)
	if withID {
		exec(db, `INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			fmt.Sprintf("msg_%s_%d", sid, i), sid, m.role, m.content, m.created, md, ts)
		return
	}
	exec(db, `INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json, timestamp) VALUES (?, ?, ?, ?, ?, ?)`,
		sid, m.role, m.content, m.created, md, ts)
}

const t0 = 1772359200 // 2026-03-01T10:00:00Z

// conversation is a session with a text prompt, a thinking answer with
// two tool calls (one failing), their results, an image, and a closing
// answer.
func conversation(t int64) []msg {
	return []msg{
		{"user", list(text("List the Go files in the project and tell me which one is largest.")), t, meta(true, true)},
		{"assistant", list(thinking("The user wants the largest Go file; run a shell command.", "sig-AAAA"), text("I'll look."),
			request("toolu_01", "developer__shell", obj{"command": "ls -S *.go | head -1"})), t + 2, meta(true, true)},
		{"user", list(response("toolu_01", "store.go", false)), t + 3, meta(true, true)},
		{"assistant", list(request("toolu_02", "developer__text_editor", obj{"command": "view", "path": "/work/alpha/store.go"})), t + 5, meta(true, true)},
		{"user", list(response("toolu_02", "permission denied", true)), t + 6, meta(true, true)},
		{"user", list(text("Here is a screenshot."), image("iVBORw0KGgo=", "image/png")), t + 30, meta(true, true)},
		{"assistant", list(text("store.go is the largest file; I could not open it (permission denied).")), t + 33, meta(true, true)},
	}
}

// compacted is a session goose compacted: the old messages hidden from
// the model (agentVisible false), a summary hidden from the user, then
// the conversation going on.
func compacted(t int64) []msg {
	return []msg{
		{"user", list(text("Refactor the loader to stream its input.")), t, meta(false, true)},
		{"assistant", list(text("Done: the loader now reads line by line."), request("call_9", "developer__shell", obj{"command": "go test ./..."})), t + 10, meta(false, true)},
		{"user", list(response("call_9", "ok  \tloader\t0.4s", false)), t + 11, meta(false, true)},
		{"assistant", list(notice("Compacting the conversation")), t + 20, meta(true, false)},
		{"user", list(text("Summary: the loader was refactored to stream its input; tests pass.")), t + 21, meta(false, true)},
		{"user", list(text("Now add a benchmark for it.")), t + 40, meta(true, true)},
		{"assistant", list(text("Added BenchmarkLoader in loader_test.go.")), t + 45, meta(true, true)},
	}
}

// hide marks the first n messages as goose does on compaction
// (with_agent_invisible keeps userVisible).
func hide(ms []msg, n int) []msg {
	for i := range ms[:n] {
		ms[i].meta = strings.Replace(ms[i].meta, `"agentVisible":true`, `"agentVisible":false`, 1)
	}
	return ms
}

func v13(path string) {
	db := open(path, true)
	for _, q := range schemaV5 {
		exec(db, q)
	}
	exec(db, "INSERT INTO schema_version (version, applied_at) VALUES (5, '2026-03-01 09:00:00')")
	for v := 6; v <= 13; v++ {
		for _, q := range migrations[v] {
			exec(db, q)
		}
		exec(db, "INSERT INTO schema_version (version, applied_at) VALUES (?, '2026-03-01 09:00:00')", v)
	}
	// Session 1: named by the model, usage and cost recorded.
	exec(db, `INSERT INTO sessions (id, name, user_set_name, session_type, working_dir, created_at, updated_at, extension_data,
		total_tokens, input_tokens, output_tokens, accumulated_total_tokens, accumulated_input_tokens, accumulated_output_tokens,
		provider_name, model_config_json, accumulated_cost) VALUES
		('20260301_1', 'Largest Go file', FALSE, 'user', '/work/alpha', '2026-03-01 10:00:00', '2026-03-01 10:00:33', '{}',
		 2460, 2400, 60, 9650, 9480, 170, 'anthropic', '{"model_name":"claude-sonnet-4-5","context_limit":200000}', 0.031)`)
	for i, m := range conversation(t0) {
		addMessage(db, "20260301_1", true, i, m)
	}
	// Session 2: compacted.
	exec(db, `INSERT INTO sessions (id, name, user_set_name, session_type, working_dir, created_at, updated_at,
		accumulated_input_tokens, accumulated_output_tokens, accumulated_total_tokens, provider_name, model_config_json, accumulated_cost) VALUES
		('20260301_2', 'Stream the loader', TRUE, 'user', '/work/beta', '2026-03-01 11:00:00', '2026-03-01 11:00:45',
		 30100, 800, 30900, 'openai', '{"model_name":"gpt-4.1"}', 0.0666)`)
	for i, m := range hide(compacted(t0+3600), 3) {
		addMessage(db, "20260301_2", true, 100+i, m)
	}
	// Session 3: a scheduled session goose has not named (CLI Session),
	// no usage yet, with a damaged row and a row of another role.
	exec(db, `INSERT INTO sessions (id, name, user_set_name, session_type, working_dir, created_at, updated_at, schedule_id) VALUES
		('20260301_3', 'CLI Session', FALSE, 'scheduled', '/work/gamma', '2026-03-01 12:00:00', '2026-03-01 12:00:00', 'nightly')`)
	addMessage(db, "20260301_3", true, 200, msg{"user", list(text("Check the nightly build log for failures.")), t0 + 7200, meta(true, true)})
	addMessage(db, "20260301_3", true, 201, msg{"assistant", `[{"type":"text","text":"torn`, t0 + 7201, meta(true, true)})
	addMessage(db, "20260301_3", true, 202, msg{"system", list(text("not a goose role")), t0 + 7202, ""})
	addMessage(db, "20260301_3", true, 203, msg{"assistant", list(badRequest("call_x", "Could not interpret tool use parameters")), t0 + 7203, meta(true, true)})
	addMessage(db, "20260301_3", true, 204, msg{"user", list(errResponse("call_x", "-32602: Could not interpret tool use parameters")), t0 + 7204, meta(true, true)})
	// Checkpoint what is there so far into the main file; what follows
	// stays in the -wal only (the copy is taken while goose would still
	// hold the database open).
	exec(db, "PRAGMA wal_checkpoint(TRUNCATE)")
	addMessage(db, "20260301_3", true, 205, msg{"assistant", list(text("The nightly build failed in TestStore: a timeout.")), t0 + 7260, meta(true, true)})
	exec(db, `UPDATE sessions SET updated_at = '2026-03-01 12:01:00', accumulated_input_tokens = 1200, accumulated_output_tokens = 40, accumulated_total_tokens = 1240, accumulated_cost = 0.0042 WHERE id = '20260301_3'`)
	snapshot(path)
	db.Close()
}

// v5 writes a store as goose 5 created it (S5: no message_id, metadata
// written by add_message).
func v5(path string) {
	db := open(path, false)
	for _, q := range schemaV5 {
		exec(db, q)
	}
	exec(db, "INSERT INTO schema_version (version, applied_at) VALUES (5, '2026-02-01 09:00:00')")
	exec(db, `INSERT INTO sessions (id, name, user_set_name, session_type, working_dir, created_at, updated_at, extension_data,
		input_tokens, output_tokens, total_tokens, accumulated_input_tokens, accumulated_output_tokens, accumulated_total_tokens) VALUES
		('20260201_1', '', FALSE, 'user', '/work/delta', '2026-02-01 10:00:00', '2026-02-01 10:00:33', '{}', 2400, 60, 2460, 9480, 170, 9650)`)
	for i, m := range conversation(t0 - 28*86400) {
		addMessage(db, "20260201_1", false, i, m)
	}
	db.Close()
}

// ledger writes a store of the third-party-quoted v1.53.0 schema: one
// usage_ledger row per model call.
func ledger(path string) {
	db := open(path, false)
	for _, q := range schemaLedger {
		exec(db, q)
	}
	exec(db, "INSERT INTO schema_version (version, applied_at) VALUES (16, '2026-04-01 09:00:00')")
	exec(db, `INSERT INTO sessions (id, name, user_set_name, working_dir, created_at, updated_at, accumulated_input_tokens, accumulated_output_tokens,
		accumulated_cache_read_tokens, accumulated_cost, provider_name, model_config_json) VALUES
		('20260401_1', 'Largest Go file', TRUE, '/work/alpha', '2026-04-01 10:00:00', '2026-04-01 10:00:33', 7300, 140, 5000, 0.024, 'anthropic', '{"model_name":"claude-sonnet-4-5"}')`)
	exec(db, `INSERT INTO sessions (id, name, user_set_name, working_dir, created_at, updated_at, parent_session_id) VALUES
		('20260401_2', 'sub-agent', TRUE, '/work/alpha', '2026-04-01 10:00:10', '2026-04-01 10:00:20', '20260401_1')`)
	for i, m := range conversation(t0 + 31*86400) {
		addMessage(db, "20260401_1", true, 300+i, m)
	}
	addMessage(db, "20260401_2", true, 400, msg{"user", list(text("Find the largest file.")), t0 + 31*86400 + 10, meta(true, true)})
	for i, r := range [][5]any{{"claude-sonnet-4-5", 2400, 40, 0, 0.0081}, {"claude-sonnet-4-5", 2450, 50, 2400, 0.0079}, {"claude-sonnet-4-5", 2450, 50, 2600, 0.008}} {
		exec(db, `INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cost, cost_source)
			VALUES ('20260401_1', ?, ?, ?, ?, ?, ?, 0, ?, 'estimated')`, t0+31*86400+int64(2+15*i), r[0], r[1], r[2], r[1].(int)+r[2].(int), r[3], r[4])
	}
	db.Close()
}

// snapshot copies a database open in WAL mode (main file and -wal) aside
// and back over itself once the writer has closed, as a copy of a store
// in use would be taken.
func snapshot(path string) {
	for _, s := range []string{"", "-wal"} {
		copyFile(path+s, path+s+".snap")
	}
}

func restore(path string) {
	os.Remove(path + "-shm")
	for _, s := range []string{"", "-wal"} {
		if err := os.Rename(path+s+".snap", path+s); err != nil {
			log.Fatal(err)
		}
	}
}

func copyFile(from, to string) {
	in, err := os.Open(from)
	if err != nil {
		log.Fatal(err)
	}
	defer in.Close()
	o, err := os.Create(to)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := io.Copy(o, in); err != nil {
		log.Fatal(err)
	}
	if err := o.Close(); err != nil {
		log.Fatal(err)
	}
}

// ---- LEG: legacy session files ----

func writeLines(path string, lines ...string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		log.Fatal(err)
	}
}

// legacyMessage is a Message as the goose of the legacy files serialized
// it: role, created, content (no id, no metadata).
func legacyMessage(role string, created int64, content string) string {
	return `{"role":` + j(role) + `,"created":` + j(created) + `,"content":` + content + "}\n"
}

func legacy(dir string) {
	t := int64(t0 - 60*86400)
	// SessionMetadata's fields in declaration order (LEG).
	metaLine := `{"working_dir":"/work/epsilon","description":"Fix the flaky test","schedule_id":null,"message_count":4,"total_tokens":1900,"input_tokens":1850,"output_tokens":50,"accumulated_total_tokens":3700,"accumulated_input_tokens":3600,"accumulated_output_tokens":100}` + "\n"
	writeLines(filepath.Join(dir, "20260101_090000.jsonl"), metaLine,
		legacyMessage("user", t, list(text("Why does TestFlaky fail one time in ten?"))),
		legacyMessage("assistant", t+4, list(text("Let me run it a few times."), request("toolu_L1", "developer__shell", obj{"command": "go test -count=20 -run TestFlaky"}))),
		legacyMessage("user", t+9, list(legacyResponse("toolu_L1", "--- FAIL: TestFlaky (0.01s)\nFAIL"))),
		legacyMessage("assistant", t+15, list(text("It depends on map iteration order; sort the keys first."))))
	// An older file: no working_dir in its metadata, an unreadable line,
	// and a torn last line (goose killed mid-write).
	writeLines(filepath.Join(dir, "named-session.jsonl"),
		`{"description":"","message_count":3,"total_tokens":null,"input_tokens":null,"output_tokens":null,"accumulated_total_tokens":null,"accumulated_input_tokens":null,"accumulated_output_tokens":null}`+"\n",
		legacyMessage("user", t+86400, list(text("Summarize CHANGELOG.md for the release notes."))),
		"{\"role\":\"assistant\",\"created\":\n",
		legacyMessage("assistant", t+86405, list(text("Three fixes and one new flag: --dry-run."))),
		`{"role":"user","created":`+j(t+86500)+`,"content":[{"type":"text","text":"and the da`)
	// A file goose wrote without a metadata line (read_messages takes a
	// first line that is not metadata as a message).
	writeLines(filepath.Join(dir, "no-metadata.jsonl"),
		legacyMessage("user", t+2*86400, list(text("Print the Go version."))),
		legacyMessage("assistant", t+2*86400+3, list(request("toolu_L2", "developer__shell", obj{"command": "go version"}))),
		legacyMessage("user", t+2*86400+4, list(legacyResponse("toolu_L2", "go version go1.24.1 linux/amd64"))),
		legacyMessage("assistant", t+2*86400+6, list(text("Go 1.24.1."))))
}

func main() {
	v13(filepath.Join(out, "constructed-v13", "sessions", "sessions.db"))
	restore(filepath.Join(out, "constructed-v13", "sessions", "sessions.db"))
	v5(filepath.Join(out, "constructed-v5", "sessions", "sessions.db"))
	ledger(filepath.Join(out, "constructed-ledger", "sessions", "sessions.db"))
	legacy(filepath.Join(out, "constructed-legacy", "sessions"))
	fmt.Println("wrote", out)
}
