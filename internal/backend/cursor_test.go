package backend

import (
	"errors"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// TestOrderCursor: a cursor reads back in the order that wrote it and in
// no other; the default order's cursors are the ones EncodeCursor always
// wrote.
func TestOrderCursor(t *testing.T) {
	for _, tag := range []string{"", "updated-a", "created-d", "id-a"} {
		key, id, err := DecodeOrderCursor(EncodeOrderCursor(tag, "2026-01-02T03:04:05.000000000Z", "s/1:x"), tag)
		if err != nil || key != "2026-01-02T03:04:05.000000000Z" || id != "s/1:x" {
			t.Errorf("tag %q: round trip = %q, %q, %v", tag, key, id, err)
		}
	}
	if EncodeOrderCursor("", "k", "i") != EncodeCursor("k", "i") {
		t.Error("the default order's cursor is not EncodeCursor's")
	}
	for _, c := range []struct{ wrote, read string }{{"", "id-a"}, {"id-a", ""}, {"id-a", "id-d"}, {"created-a", "updated-a"}} {
		_, _, err := DecodeOrderCursor(EncodeOrderCursor(c.wrote, "k", "i"), c.read)
		if !errors.Is(err, sessiondb.ErrInvalid) {
			t.Errorf("cursor of %q read as %q: %v, want ErrInvalid", c.wrote, c.read, err)
		}
	}
}

// FuzzDecodeOrderCursor: any text is a cursor or ErrInvalid, never a
// panic, and what EncodeOrderCursor writes reads back.
func FuzzDecodeOrderCursor(f *testing.F) {
	f.Add("", "id-a", "k", "i")
	f.Add("AWlkLWEAAHM", "id-a", "", "s")
	f.Add("not a cursor!", "", "2026", "x\x00y")
	f.Fuzz(func(t *testing.T, c, tag, key, id string) {
		if _, _, err := DecodeOrderCursor(c, tag); err != nil && !errors.Is(err, sessiondb.ErrInvalid) {
			t.Fatalf("DecodeOrderCursor(%q) = %v, not ErrInvalid", c, err)
		}
		if strings.ContainsRune(tag+key, 0) || strings.HasPrefix(key, "\x01") && tag == "" {
			return // not what List writes: tags are names, keys are times
		}
		k, i, err := DecodeOrderCursor(EncodeOrderCursor(tag, key, id), tag)
		if err != nil || k != key || i != id {
			t.Fatalf("round trip of %q %q %q = %q %q %v", tag, key, id, k, i, err)
		}
	})
}
