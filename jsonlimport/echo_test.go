package jsonlimport

import (
	"testing"

	"github.com/sessiondb/sessiondb"
)

func TestDropEchoes(t *testing.T) {
	hits := []sessiondb.Hit{
		{SessionID: "a", Seq: 7, Kind: "event_msg", Snippet: "the **prompt**"},
		{SessionID: "a", Seq: 6, Kind: "message", Snippet: "the **prompt**"},
		{SessionID: "b", Seq: 3, Kind: "event_msg", Snippet: "only an echo"},
		{SessionID: "c", Seq: 2, Kind: "event_msg", Snippet: "the **prompt**"},
	}
	got := DropEchoes(hits)
	if len(got) != 3 || got[0].Seq != 6 || got[1].SessionID != "b" || got[2].SessionID != "c" {
		t.Errorf("DropEchoes = %+v", got)
	}
	if len(hits) != 4 || hits[0].Seq != 7 {
		t.Error("DropEchoes changed its argument")
	}
}
