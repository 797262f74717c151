package sessioncopy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// dump is a session whose log holds the given seqs, entry n saying word n.
func dump(seq, lastSeq int64, word string, seqs ...int64) sessiondb.SessionDump {
	d := sessiondb.SessionDump{Session: sessiondb.Session{ID: "agent:main:cli:direct:alice", CreatedAt: t0,
		SourceFormat: "picoclaw", SourcePath: "/home/u/.picoclaw/workspace/sessions/agent_main_cli_direct_alice.jsonl",
		Sequence: seq, LastSeq: lastSeq}}
	for _, s := range seqs {
		d.Entries = append(d.Entries, sessiondb.Entry{Seq: s, Kind: sessiondb.KindMessage, CreatedAt: t0.Add(time.Duration(s) * time.Second),
			Body: []byte(fmt.Sprintf(`{"role":"user","content":"%s %d"}`, word, s))})
	}
	return d
}

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		name     string
		src, dst sessiondb.SessionDump
		want     Relation
	}{
		{"same", dump(2, 4, "a", 1, 2, 3, 4), dump(2, 4, "a", 1, 2, 3, 4), Same},
		{"target behind", dump(3, 6, "a", 1, 2, 3, 4, 5, 6), dump(2, 4, "a", 1, 2, 3, 4), Behind},
		{"target appended since", dump(2, 4, "a", 1, 2, 3, 4), dump(3, 5, "a", 1, 2, 3, 4, 5), Diverged},
		{"target renamed since", dump(2, 4, "a", 1, 2, 3, 4), dump(3, 4, "a", 1, 2, 3, 4), Diverged},
		{"source pruned since", dump(4, 6, "a", 3, 4, 5, 6), dump(2, 4, "a", 1, 2, 3, 4), Behind},
		{"source pruned everything the target holds", dump(4, 8, "a", 7, 8), dump(2, 4, "a", 1, 2, 3, 4), Behind},
		{"other conversation, equal counters", dump(2, 4, "a", 1, 2, 3, 4), dump(2, 4, "b", 1, 2, 3, 4), Conflict},
		{"other conversation, shorter target", dump(3, 6, "a", 1, 2, 3, 4, 5, 6), dump(2, 4, "b", 1, 2, 3, 4), Conflict},
		{"other conversation, longer target", dump(2, 4, "a", 1, 2, 3, 4), dump(3, 6, "b", 1, 2, 3, 4, 5, 6), Conflict},
		{"last entry differs", dump(3, 4, "a", 1, 2, 3, 4), func() sessiondb.SessionDump {
			d := dump(3, 4, "a", 1, 2, 3, 4)
			d.Entries[3].Body = []byte(`{"role":"user","content":"changed"}`)
			return d
		}(), Conflict},
		{"entry time differs", dump(2, 2, "a", 1, 2), func() sessiondb.SessionDump {
			d := dump(2, 2, "a", 1, 2)
			d.Entries[1].CreatedAt = d.Entries[1].CreatedAt.Add(time.Nanosecond)
			return d
		}(), Conflict},
		{"a hole in the middle", dump(3, 4, "a", 1, 2, 3, 4), dump(3, 4, "a", 1, 3, 4), Conflict},
		{"created at another time", dump(2, 2, "a", 1, 2), func() sessiondb.SessionDump {
			d := dump(2, 2, "a", 1, 2)
			d.Session.CreatedAt = t0.Add(time.Second)
			return d
		}(), Conflict},
		{"another source path", dump(2, 2, "a", 1, 2), func() sessiondb.SessionDump {
			d := dump(2, 2, "a", 1, 2)
			d.Session.SourcePath += ".other"
			return d
		}(), Conflict},
		{"both empty", dump(1, 0, "a"), dump(1, 0, "a"), Same},
	} {
		if got := Compare(tc.src, tc.dst); got != tc.want {
			t.Errorf("%s: Compare = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRenamed(t *testing.T) {
	d := dump(2, 2, "a", 1, 2)
	d.Session.Aliases = []string{"agent:main:main"}
	d.Checkpoints = []sessiondb.Checkpoint{{ID: "cp1", SessionID: d.Session.ID}}
	d.Sources = []sessiondb.SourceFile{{Path: d.Session.SourcePath, SessionID: d.Session.ID}}
	r, dropped := Renamed(d)
	id := r.Session.ID
	if !strings.HasPrefix(id, d.Session.ID+"~") || len(id) != len(d.Session.ID)+13 {
		t.Fatalf("renamed ID %q", id)
	}
	if again, _ := Renamed(d); again.Session.ID != id {
		t.Errorf("RenamedID not deterministic: %q then %q", id, again.Session.ID)
	}
	other := d
	other.Session.CreatedAt = t0.Add(time.Hour)
	if RenamedID(other) == id {
		t.Error("two sessions of one ID, created at different times, get the same renamed ID")
	}
	if len(r.Session.Aliases) != 0 || len(r.Sources) != 0 || len(dropped) != 2 {
		t.Errorf("renamed copy keeps aliases %v, sources %v; dropped %v", r.Session.Aliases, r.Sources, dropped)
	}
	if r.Checkpoints[0].ID != "cp1"+id[len(d.Session.ID):] || r.Checkpoints[0].SessionID != id || d.Checkpoints[0].ID != "cp1" {
		t.Errorf("checkpoint %+v (original %+v)", r.Checkpoints[0], d.Checkpoints[0])
	}
	if err := sessiondb.ValidateDump(r); err != nil {
		t.Errorf("renamed dump invalid: %v", err)
	}
	long := dump(1, 0, "a")
	long.Session.ID = strings.Repeat("é", sessiondb.MaxIDLen/2)
	if got := RenamedID(long); len(got) > sessiondb.MaxIDLen || sessiondb.ValidateID(got) != nil {
		t.Errorf("renamed long ID %q (%d bytes) is not a valid ID", got, len(got))
	}
}
