package cursor

// The store, read through a foreigndb snapshot (a copy taken aside): only
// the keys a composer needs, by ranges of the key's unique index.

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"

	"github.com/sessiondb/sessiondb/jsonlimport/foreigndb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// itemComposers is the ItemTable key under which Cursor keeps its list of
// composers (with their conversations inline before cursorDiskKV).
const itemComposers = "composer.composerData"

// itemChat is the ItemTable key of the older chat pane's tabs (Cursor
// 0.4x and before): {tabs: [{tabId, chatTitle, lastSendTime, bubbles}]}.
const itemChat = "workbench.panel.aichat.view.aichat.chatdata"

// chatTabs reads the chat pane's tabs that hold bubbles, each as a
// source (its tab object), with a problem when the value is not the
// pane's data.
func chatTabs(ctx context.Context, db *sql.DB, path string) ([]source, []jsonl.Problem, error) {
	var val []byte
	err := db.QueryRowContext(ctx, `SELECT value FROM ItemTable WHERE key = ?`, itemChat).Scan(&val)
	if err == sql.ErrNoRows || (err == nil && len(val) == 0) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, foreigndb.Translate(err)
	}
	var data struct {
		Tabs []json.RawMessage `json:"tabs"`
	}
	if err := json.Unmarshal(val, &data); err != nil {
		return nil, []jsonl.Problem{{Path: path, Reason: fmt.Sprintf("ItemTable %s is not Cursor's chat pane (%v); skipped", itemChat, err)}}, nil
	}
	var out []source
	var problems []jsonl.Problem
	for i, raw := range data.Tabs {
		c, err := decodeComposer(raw)
		if err != nil || c.ID == "" {
			problems = append(problems, jsonl.Problem{Path: path, Reason: fmt.Sprintf("ItemTable %s: tab %d is not a chat tab; skipped", itemChat, i)})
			continue
		}
		if len(c.Conversation) > 0 {
			out = append(out, source{ID: c.ID, Raw: raw, Inline: true})
		}
	}
	return out, problems, nil
}

// tables reports which of Cursor's tables the database holds; one with
// neither is not a Cursor store (foreigndb.ErrNotDatabase).
func tables(ctx context.Context, db *sql.DB) (kv, item bool, err error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		return false, false, foreigndb.Translate(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return false, false, foreigndb.Translate(err)
		}
		kv = kv || name == "cursorDiskKV"
		item = item || name == "ItemTable"
	}
	if err := rows.Err(); err != nil {
		return false, false, foreigndb.Translate(err)
	}
	if !kv && !item {
		return false, false, fmt.Errorf("no table cursorDiskKV nor ItemTable: %w", foreigndb.ErrNotDatabase)
	}
	return kv, item, nil
}

// source is one composer as the store holds it: its composerData value
// (from cursorDiskKV), or its object in ItemTable's list (inline).
type source struct {
	ID     string
	Raw    []byte
	Inline bool
	// Bubbles and BubbleBytes count the composer's bubble rows and their
	// size (cursorDiskKV composers), for the stamp.
	Bubbles, BubbleBytes int64
}

// rangeEnd is the key just past every key that starts with prefix (which
// ends in ':'): the prefix with ':' replaced by ';'.
func rangeEnd(prefix string) string { return prefix[:len(prefix)-1] + ";" }

// composers lists the composers of the database that hold a conversation,
// with problems for values that cannot be read. A composer kept in
// cursorDiskKV wins over its entry in ItemTable's list (which then holds
// only its head).
func composers(ctx context.Context, db *sql.DB, path string) ([]source, []jsonl.Problem, error) {
	kv, item, err := tables(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	var out []source
	var problems []jsonl.Problem
	seen := map[string]bool{}
	if kv {
		rows, err := db.QueryContext(ctx, `SELECT key, value FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;' ORDER BY key`)
		if err != nil {
			return nil, nil, foreigndb.Translate(err)
		}
		for rows.Next() {
			var key string
			var val []byte
			if err := rows.Scan(&key, &val); err != nil {
				rows.Close()
				return nil, nil, foreigndb.Translate(err)
			}
			id := key[len("composerData:"):]
			if val == nil {
				continue // a composer Cursor emptied: nothing to read
			}
			seen[id] = true
			c, err := decodeComposer(val)
			if err != nil {
				problems = append(problems, jsonl.Problem{Path: path, Reason: fmt.Sprintf("composer %s: its composerData is not a JSON object (%v); skipped", id, err)})
				continue
			}
			if len(c.Headers) == 0 && len(c.Conversation) == 0 {
				continue // a composer opened and never used
			}
			out = append(out, source{ID: id, Raw: val})
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, nil, foreigndb.Translate(err)
		}
		for i := range out {
			prefix := "bubbleId:" + out[i].ID + ":"
			err := db.QueryRowContext(ctx, `SELECT count(*), ifnull(sum(length(value)), 0) FROM cursorDiskKV WHERE key > ? AND key < ?`,
				prefix, rangeEnd(prefix)).Scan(&out[i].Bubbles, &out[i].BubbleBytes)
			if err != nil {
				return nil, nil, foreigndb.Translate(err)
			}
		}
	}
	if item {
		var val []byte
		err := db.QueryRowContext(ctx, `SELECT value FROM ItemTable WHERE key = ?`, itemComposers).Scan(&val)
		if err != nil && err != sql.ErrNoRows {
			return nil, nil, foreigndb.Translate(err)
		}
		if len(val) > 0 {
			var list struct {
				All []json.RawMessage `json:"allComposers"`
			}
			if err := json.Unmarshal(val, &list); err != nil {
				problems = append(problems, jsonl.Problem{Path: path, Reason: fmt.Sprintf("ItemTable %s is not Cursor's list of composers (%v); skipped", itemComposers, err)})
			}
			for i, raw := range list.All {
				c, err := decodeComposer(raw)
				if err != nil || c.ID == "" {
					problems = append(problems, jsonl.Problem{Path: path, Reason: fmt.Sprintf("ItemTable %s: composer %d is not a composer object; skipped", itemComposers, i)})
					continue
				}
				if seen[c.ID] || len(c.Conversation) == 0 {
					continue
				}
				seen[c.ID] = true
				out = append(out, source{ID: c.ID, Raw: raw, Inline: true})
			}
		}
		tabs, probs, err := chatTabs(ctx, db, path)
		if err != nil {
			return nil, nil, err
		}
		problems = append(problems, probs...)
		for _, t := range tabs {
			if !seen[t.ID] {
				seen[t.ID] = true
				out = append(out, t)
			}
		}
	}
	return out, problems, nil
}

// Sessions implements jsonl.StoreFormat: the composers of the database
// that hold a conversation, each stamped with its composerData (or inline
// object) and the count and size of its bubble rows.
func (Format) Sessions(ctx context.Context, store jsonl.Unit, c *jsonl.Cache) ([]jsonl.StoreSession, []jsonl.Problem, error) {
	if fi, err := os.Stat(store.Path); err == nil && fi.Size() == 0 {
		return nil, nil, nil // created, nothing written yet
	}
	snap, err := foreigndb.Acquire(ctx, c, store.Path)
	if err != nil {
		return nil, nil, err
	}
	if c == nil {
		defer snap.Close()
	}
	srcs, problems, err := composers(ctx, snap.DB(), store.Path)
	if err != nil {
		return nil, problems, err
	}
	var out []jsonl.StoreSession
	for _, s := range srcs {
		h := sha256.New()
		fmt.Fprintf(h, "cursor/1\x00%s\x00%v\x00%d\x00%d\x00", s.ID, s.Inline, s.Bubbles, s.BubbleBytes)
		h.Write(s.Raw)
		cd, _ := decodeComposer(s.Raw)
		if cd.inFlight() {
			// A bubble is being generated (read.go): the stamp changes
			// once it is done or has been quiet long enough.
			h.Write([]byte("\x00in flight"))
		}
		out = append(out, jsonl.StoreSession{
			Unit:    jsonl.Unit{Format: Name, Path: jsonl.SessionPath(store.Path, s.ID)},
			Stamp:   hex.EncodeToString(h.Sum(nil)),
			Rows:    max(s.Bubbles, int64(len(cd.Conversation))),
			Updated: msTime(max(cd.LastUpdatedAt, cd.CreatedAt)),
			Bytes:   int64(len(s.Raw)) + s.BubbleBytes,
		})
	}
	return out, problems, nil
}

// resumeState is Parsed.ResumeState.
type resumeState struct {
	V int `json:"v"`
	// N is the number of entries imported.
	N int `json:"n"`
	// Title is the title made of the first prompt, for a composer Cursor
	// has not named.
	Title string `json:"title,omitempty"`
}

// parse reads composer id of the store at storePath, always whole: a
// resumed read (Offset > 0) returns ErrNotIncremental, and the importer
// keeps the entries after those imported.
func parse(ctx context.Context, u jsonl.Unit, storePath, id string, from jsonl.Resume) (*jsonl.Parsed, error) {
	var rs resumeState
	db, release, err := foreigndb.Whole(ctx, from, storePath, &rs)
	if err != nil {
		return nil, err
	}
	defer release()
	src, err := composerSource(ctx, db, storePath, id)
	if err != nil {
		return nil, err
	}
	bubbles := map[string][]byte{}
	if !src.Inline {
		prefix := "bubbleId:" + id + ":"
		rows, err := db.QueryContext(ctx, `SELECT key, value FROM cursorDiskKV WHERE key > ? AND key < ?`, prefix, rangeEnd(prefix))
		if err != nil {
			return nil, foreigndb.Translate(err)
		}
		defer rows.Close()
		for rows.Next() {
			var key string
			var val []byte
			if err := rows.Scan(&key, &val); err != nil {
				return nil, foreigndb.Translate(err)
			}
			bubbles[key[len(prefix):]] = val
		}
		if err := rows.Err(); err != nil {
			return nil, foreigndb.Translate(err)
		}
	}
	return build(u, src.Raw, bubbles, workspaceFolder(storePath), rs)
}

// composerSource reads composer id alone: its composerData key, else its
// object in ItemTable's list.
func composerSource(ctx context.Context, db *sql.DB, storePath, id string) (*source, error) {
	kv, item, err := tables(ctx, db)
	if err != nil {
		return nil, err
	}
	if kv {
		var val []byte
		err := db.QueryRowContext(ctx, `SELECT value FROM cursorDiskKV WHERE key = ?`, "composerData:"+id).Scan(&val)
		if err != nil && err != sql.ErrNoRows {
			return nil, foreigndb.Translate(err)
		}
		if val != nil {
			if _, err := decodeComposer(val); err != nil {
				return nil, fmt.Errorf("composer %s: its composerData is not a JSON object: %w", id, err)
			}
			return &source{ID: id, Raw: val}, nil
		}
	}
	if item {
		var val []byte
		err := db.QueryRowContext(ctx, `SELECT value FROM ItemTable WHERE key = ?`, itemComposers).Scan(&val)
		if err != nil && err != sql.ErrNoRows {
			return nil, foreigndb.Translate(err)
		}
		var list struct {
			All []json.RawMessage `json:"allComposers"`
		}
		if len(val) > 0 && json.Unmarshal(val, &list) == nil {
			for _, raw := range list.All {
				if c, err := decodeComposer(raw); err == nil && c.ID == id && len(c.Conversation) > 0 {
					return &source{ID: id, Raw: raw, Inline: true}, nil
				}
			}
		}
		tabs, _, err := chatTabs(ctx, db, storePath)
		if err != nil {
			return nil, err
		}
		for i := range tabs {
			if tabs[i].ID == id {
				return &tabs[i], nil
			}
		}
	}
	return nil, fmt.Errorf("composer %s is no longer in %s", id, storePath)
}
