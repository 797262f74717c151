package backend

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

func TestCursorRoundTrip(t *testing.T) {
	for _, c := range [][2]string{{"2026-01-01T00:00:00.000000000Z", "a:b/c"}, {"", ""}, {"x", "id\u00e9"}} {
		u, id, err := DecodeCursor(EncodeCursor(c[0], c[1]))
		if err != nil || u != c[0] || id != c[1] {
			t.Errorf("round trip of %q = %q %q %v", c, u, id, err)
		}
	}
	if _, _, err := DecodeCursor("not a cursor!"); !errors.Is(err, sessiondb.ErrInvalid) {
		t.Errorf("DecodeCursor(garbage) = %v, want ErrInvalid", err)
	}
}

func TestNormalAliases(t *testing.T) {
	got := NormalAliases("s", []string{"b", "s", "a", "b", "c"})
	if want := []string{"b", "a", "c"}; !slices.Equal(got, want) {
		t.Errorf("NormalAliases = %q, want %q", got, want)
	}
	if got := NormalAliases("s", []string{"s"}); got != nil {
		t.Errorf("NormalAliases of only the ID = %q, want nil", got)
	}
}

func TestPatchChanges(t *testing.T) {
	title := "t"
	sess := sessiondb.Session{ID: "s", Title: "t", Attrs: json.RawMessage(`{"a":1}`)}
	if PatchChanges(sess, &sessiondb.MetaPatch{Title: &title}) {
		t.Error("an equal title counts as a change")
	}
	other := "u"
	if !PatchChanges(sess, &sessiondb.MetaPatch{Title: &other}) {
		t.Error("a new title does not count as a change")
	}
	p, err := EffectivePatch(sess, &sessiondb.MetaPatch{AttrsMerge: json.RawMessage(`{"a":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	if PatchChanges(sess, p) {
		t.Errorf("a merge patch that sets a member to its value counts as a change (%s)", p.Attrs)
	}
}

// TestMessageKindsSQLMatchesIsMessageKind: the SQL list that the stores'
// counts and the migrations use names exactly the kinds IsMessageKind
// accepts.
func TestMessageKindsSQLMatchesIsMessageKind(t *testing.T) {
	list := strings.Trim(MessageKindsSQL, "()")
	var kinds []string
	for _, k := range strings.Split(list, ",") {
		kinds = append(kinds, strings.Trim(strings.TrimSpace(k), "'"))
	}
	for _, k := range kinds {
		if !IsMessageKind(k) {
			t.Errorf("MessageKindsSQL lists %q, which IsMessageKind refuses", k)
		}
	}
	for _, k := range []string{sessiondb.KindMessage, sessiondb.KindCustom, sessiondb.KindMessagePart, "progress", "model_change", "label", ""} {
		if IsMessageKind(k) != slices.Contains(kinds, k) {
			t.Errorf("IsMessageKind(%q) = %v, but MessageKindsSQL %s", k, IsMessageKind(k), MessageKindsSQL)
		}
	}
	if IsMessageKind(sessiondb.KindMessagePart) {
		t.Error("a message-part counts as a message")
	}
	es := []sessiondb.Entry{{}, {Kind: sessiondb.KindCustom}, {Kind: sessiondb.KindMessagePart}, {Kind: "progress"}}
	if n := CountMessages(es); n != 2 {
		t.Errorf("CountMessages = %d, want 2 (an empty kind is a message)", n)
	}
}
