package pgstore

import (
	"encoding/json"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// TestReindexPreview: Reindex derives the entries' texts again with a new
// extractor, and the previews List returns follow them (issue 44).
func TestReindexPreview(t *testing.T) {
	ctx := t.Context()
	u := newSchema(t)
	s := mustOpenURL(t, u, nil)
	body := `{"role":"user","content":"visible","secret":"hidden walrus"}`
	if _, err := s.Commit(ctx, "r", sessiondb.Commit{Create: &sessiondb.Session{}, Append: []sessiondb.Entry{{Body: []byte(body)}}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	all := func(kind string, body json.RawMessage) (string, string) { return "user", string(body) }
	s = mustOpenURL(t, u, &Options{Extractor: all})
	infos, _, err := s.List(ctx, sessiondb.ListOptions{})
	if err != nil || len(infos) != 1 || infos[0].Preview != "visible" {
		t.Fatalf("preview before Reindex = %+v, %v; want visible", infos, err)
	}
	if err := s.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	infos, _, err = s.List(ctx, sessiondb.ListOptions{})
	if err != nil || len(infos) != 1 || infos[0].Preview != body {
		t.Errorf("preview after Reindex = %+v, %v; want the new extractor's text %q", infos, err, body)
	}
}
