package sqlstore

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// damagedEntriesDB writes a database of 30 sessions of 12 entries (the
// torture suite's base file, smaller bodies), closed and checkpointed
// into the main file, with the search index off so that its cursor stays
// 0 (as in a copy of the file without its -search file), then applies
// damage to the page bytes of the entries table's rightmost leaf (the
// page SQLite's max(id) reads) and returns the path and the largest id.
func damagedEntriesDB(t *testing.T, damage func(page []byte, hdr int)) (string, int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "damaged.db")
	s, err := Open(path, &Options{IndexDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 30 {
		sid := fmt.Sprintf("s%02d", i)
		msgs := make([]sessiondb.Entry, 12)
		for j := range msgs {
			msgs[j] = sessiondb.Message(fmt.Sprintf(`{"role":"user","content":"%s message %d %s"}`, sid, j, strings.Repeat("x", 200)))
		}
		if _, err := s.SaveFull(ctx, sessiondb.Session{ID: sid}, msgs, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	var root int
	var maxID int64
	if err := db.QueryRow(`SELECT rootpage FROM sqlite_schema WHERE name = 'entries'`).Scan(&root); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT max(id) FROM entries`).Scan(&maxID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ps := int(binary.BigEndian.Uint16(data[16:18]))
	p := root
	for {
		page := data[(p-1)*ps : p*ps]
		hdr := 0
		if p == 1 {
			hdr = 100
		}
		switch page[hdr] {
		case 0x05: // interior table page: follow the rightmost child
			p = int(binary.BigEndian.Uint32(page[hdr+8:]))
			continue
		case 0x0d:
			damage(page, hdr)
		default:
			t.Fatalf("page %d: type %#x, not a table b-tree page", p, page[hdr])
		}
		break
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, maxID
}

// TestDamagedLastLeafDoesNotReuseIDs (issue 36 item 4, torture seed
// 1796552175591336711, page-flip-0): one flipped byte raised the cell
// count of the entries table's rightmost leaf from 5 to 138. SQLite reads
// max(id) from the last cell pointer of that page without checking it
// (a pointer of 0: garbage, read as id 0), so the next entry id was one
// that existed and the append failed with "UNIQUE constraint failed:
// entries.id", which matched no sentinel. With cell_size_check on, SQLite
// checks a page's cells when it loads it: the damage is ErrCorrupt, and
// nothing is written. And a damaged id that passes that check (the last
// cell's key rewritten lower) still makes the store pick an id that
// exists; that collision, on an id the store chose under the write lock,
// is damage too: ErrCorrupt.
func TestDamagedLastLeafDoesNotReuseIDs(t *testing.T) {
	for name, damage := range map[string]func(page []byte, hdr int){
		"cell-count": func(page []byte, hdr int) {
			n := binary.BigEndian.Uint16(page[hdr+3:])
			binary.BigEndian.PutUint16(page[hdr+3:], n^0x8f) // the seed's flip: 5 -> 138
		},
		"last-key": func(page []byte, hdr int) {
			n := int(binary.BigEndian.Uint16(page[hdr+3:]))
			cell := int(binary.BigEndian.Uint16(page[hdr+8+2*(n-1):]))
			i := cell
			for page[i]&0x80 != 0 { // payload size
				i++
			}
			i++
			l := 0
			for page[i+l]&0x80 != 0 { // the rowid's varint bytes
				l++
			}
			l++
			// The same length, holding 1 (as 0x80 … 0x01): the key
			// of an entry that exists in the first leaf.
			for k := range l - 1 {
				page[i+k] = 0x80
			}
			page[i+l-1] = 0x01
		},
	} {
		t.Run(name, func(t *testing.T) {
			path, maxID := damagedEntriesDB(t, damage)
			s, err := Open(path, &Options{IndexDelay: -1, NoBackup: true})
			if err != nil {
				if !errors.Is(err, sessiondb.ErrCorrupt) {
					t.Fatalf("Open: %v, want success or ErrCorrupt", err)
				}
				return
			}
			defer s.Close()
			ctx := context.Background()
			_, err = s.SaveFull(ctx, sessiondb.Session{ID: "after-damage"}, []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"x"}`)}, nil)
			t.Logf("first append: %v", err)
			if !errors.Is(err, sessiondb.ErrCorrupt) {
				t.Fatalf("append after damage: %v, want ErrCorrupt", err)
			}
			if _, err := s.Get(ctx, "after-damage"); !errors.Is(err, sessiondb.ErrNotFound) {
				t.Errorf("the failed append left its session: %v", err)
			}
			_, err = s.Append(ctx, "s29", sessiondb.Message(`{"role":"user","content":"y"}`))
			if err != nil && !errors.Is(err, sessiondb.ErrCorrupt) {
				t.Errorf("append to an existing session: %v, want ErrCorrupt", err)
			}
			t.Logf("max id %d; append: %v", maxID, err)
		})
	}
}

// TestDamagedLastSeqIsCorrupt: a session's last_seq is a record value,
// which SQLite does not checksum; lowered by damage, the next append
// takes a seq that exists. That is ErrCorrupt (storeChosenKey), not an
// error matching no sentinel, and the session is left as it was.
func TestDamagedLastSeqIsCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seq.db")
	s, err := Open(path, &Options{IndexDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	msgs := []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"a"}`), sessiondb.Message(`{"role":"user","content":"b"}`), sessiondb.Message(`{"role":"user","content":"c"}`)}
	if _, err := s.SaveFull(ctx, sessiondb.Session{ID: "s"}, msgs, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE sessions SET last_seq = 1 WHERE id = 's'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err = Open(path, &Options{IndexDelay: -1, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Append(ctx, "s", sessiondb.Message(`{"role":"user","content":"d"}`)); !errors.Is(err, sessiondb.ErrCorrupt) {
		t.Fatalf("append after last_seq damage: %v, want ErrCorrupt", err)
	}
	got, err := s.Entries(ctx, "s", 0, 0)
	if err != nil || len(got) != 3 {
		t.Errorf("entries after the refused append: %d, %v", len(got), err)
	}
}
