package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sessiondb/sessiondb"
)

func checkpointTests() []testCase {
	return []testCase{
		{name: "SaveLoadDefaults", fn: testCheckpointDefaults},
		{name: "SaveLoadExplicit", fn: testCheckpointExplicit},
		{name: "ListNewestFirst", fn: testCheckpointList},
		{name: "Delete", fn: testCheckpointDelete},
		{name: "CompactionID", fn: testCheckpointCompactionID},
		{name: "Errors", fn: testCheckpointErrors},
	}
}

func mustSaveCheckpoint(t *testing.T, s sessiondb.Store, cp sessiondb.Checkpoint) sessiondb.Checkpoint {
	t.Helper()
	got, err := s.SaveCheckpoint(bg(t), cp)
	if err != nil {
		t.Fatalf("SaveCheckpoint(%+v): %v", cp, err)
	}
	return got
}

func mustLoadCheckpoint(t *testing.T, s sessiondb.Store, id string) sessiondb.Checkpoint {
	t.Helper()
	got, err := s.LoadCheckpoint(bg(t), id)
	if err != nil {
		t.Fatalf("LoadCheckpoint(%q): %v", id, err)
	}
	return got
}

func testCheckpointDefaults(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "cd", 5)
	mustSaveState(t, s, "cd", `{"at":5}`)
	before := time.Now()
	cp := mustSaveCheckpoint(t, s, sessiondb.Checkpoint{SessionID: "cd", Label: "before tool"})
	wantGeneratedID(t, cp.ID, before, time.Now(), "checkpoint ID")
	if cp.SessionID != "cd" || cp.Label != "before tool" || cp.AtSeq != 5 || cp.CompactionID != 0 {
		t.Errorf("SaveCheckpoint returned %+v; want session cd, label, AtSeq 5 (LastSeq), CompactionID 0", cp)
	}
	wantJSON(t, cp.State, `{"at":5}`, "checkpoint State defaulted to the session's state")
	wantNear(t, cp.CreatedAt, before, time.Now(), "checkpoint CreatedAt")
	got := mustLoadCheckpoint(t, s, cp.ID)
	if diff := cmp.Diff(cp, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("LoadCheckpoint differs from SaveCheckpoint's result (-saved +loaded):\n%s", diff)
	}
	// The checkpoint is a snapshot: later state changes do not touch it.
	mustSaveState(t, s, "cd", `{"at":6}`)
	mustAppend(t, s, "cd", msgs(6, 6)...)
	got = mustLoadCheckpoint(t, s, cp.ID)
	if got.AtSeq != 5 {
		t.Errorf("checkpoint AtSeq moved to %d", got.AtSeq)
	}
	wantJSON(t, got.State, `{"at":5}`, "checkpoint state after the session's state changed")
	// Without state in the session, the checkpoint has none.
	mustSession(t, s, "nostate", 1)
	cp2 := mustSaveCheckpoint(t, s, sessiondb.Checkpoint{SessionID: "nostate"})
	if got := mustLoadCheckpoint(t, s, cp2.ID); got.State != nil || got.Metadata != nil {
		t.Errorf("checkpoint of a session without state: State %q Metadata %q, want nil", got.State, got.Metadata)
	}
}

func testCheckpointExplicit(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "ce", 5)
	mustSaveState(t, s, "ce", `{"current":true}`)
	cp := mustSaveCheckpoint(t, s, sessiondb.Checkpoint{
		ID: "cp-explicit", SessionID: "ce", Label: "two", AtSeq: 2,
		State: raw(`{"at": 2}`), Metadata: raw(`{"by":"test", "n":[1]}`),
	})
	got := mustLoadCheckpoint(t, s, "cp-explicit")
	if got.ID != "cp-explicit" || got.SessionID != "ce" || got.Label != "two" || got.AtSeq != 2 || cp.AtSeq != 2 {
		t.Errorf("LoadCheckpoint = %+v", got)
	}
	wantJSON(t, got.State, `{"at": 2}`, "checkpoint state")
	wantJSON(t, got.Metadata, `{"by":"test", "n":[1]}`, "checkpoint metadata")
	// Restoring: a fork at the checkpoint has the transcript as of AtSeq.
	mustFork(t, s, "ce", got.AtSeq, "restored")
	wantTranscript(t, s, "restored", bodies(1, 2))
}

func testCheckpointList(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "cl", 3)
	mustSession(t, s, "other", 1)
	var ids []string
	for i := 1; i <= 3; i++ {
		cp := mustSaveCheckpoint(t, s, sessiondb.Checkpoint{ID: "cl-cp-" + string(rune('0'+i)), SessionID: "cl", AtSeq: int64(i), CreatedAt: base.Add(time.Duration(i) * time.Minute)})
		ids = append(ids, cp.ID)
		// Space the checkpoints so that a store using its own clock still
		// orders them by creation.
		time.Sleep(2 * time.Millisecond)
	}
	mustSaveCheckpoint(t, s, sessiondb.Checkpoint{ID: "other-cp", SessionID: "other"})
	cps, err := s.ListCheckpoints(bg(t), "cl")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, cp := range cps {
		got = append(got, cp.ID)
		if cp.SessionID != "cl" {
			t.Errorf("ListCheckpoints(cl) returned a checkpoint of %q", cp.SessionID)
		}
	}
	if diff := cmp.Diff([]string{ids[2], ids[1], ids[0]}, got); diff != "" {
		t.Errorf("ListCheckpoints order (-want newest first +got):\n%s", diff)
	}
	if len(cps) == 3 && (cps[0].AtSeq != 3 || cps[2].AtSeq != 1) {
		t.Errorf("listed AtSeqs = %d, %d, %d", cps[0].AtSeq, cps[1].AtSeq, cps[2].AtSeq)
	}
	mustCreate(t, s, "none")
	if cps, err := s.ListCheckpoints(bg(t), "none"); err != nil || len(cps) != 0 {
		t.Errorf("ListCheckpoints of a session without checkpoints = %v, %v", cps, err)
	}
}

func testCheckpointDelete(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "cdl", 2)
	a := mustSaveCheckpoint(t, s, sessiondb.Checkpoint{SessionID: "cdl", Label: "a"})
	b := mustSaveCheckpoint(t, s, sessiondb.Checkpoint{SessionID: "cdl", Label: "b"})
	if err := s.DeleteCheckpoint(bg(t), a.ID); err != nil {
		t.Fatalf("DeleteCheckpoint: %v", err)
	}
	_, err := s.LoadCheckpoint(bg(t), a.ID)
	wantErr(t, err, sessiondb.ErrNotFound, "LoadCheckpoint after delete")
	wantErr(t, s.DeleteCheckpoint(bg(t), a.ID), sessiondb.ErrNotFound, "DeleteCheckpoint twice")
	wantErr(t, s.DeleteCheckpoint(bg(t), "never-existed"), sessiondb.ErrNotFound, "DeleteCheckpoint(unknown)")
	cps, err := s.ListCheckpoints(bg(t), "cdl")
	if err != nil || len(cps) != 1 || cps[0].ID != b.ID {
		t.Errorf("ListCheckpoints after delete = %v, %v; want only %s", cps, err, b.ID)
	}
	wantTranscript(t, s, "cdl", bodies(1, 2))
}

func testCheckpointCompactionID(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "cc", 4)
	if _, err := s.Compact(bg(t), "cc", sessiondb.Compaction{KeepFromSeq: 3, Summary: entriesOf(sumA)}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "cc", msgs(5, 6)...)
	cs := mustCompactions(t, s, "cc")
	now := mustSaveCheckpoint(t, s, sessiondb.Checkpoint{SessionID: "cc"})
	if now.CompactionID != cs[0].ID || now.AtSeq != 6 {
		t.Errorf("checkpoint after compaction: CompactionID %d AtSeq %d, want %d and 6", now.CompactionID, now.AtSeq, cs[0].ID)
	}
	early := mustSaveCheckpoint(t, s, sessiondb.Checkpoint{SessionID: "cc", AtSeq: 2})
	if early.CompactionID != 0 {
		t.Errorf("checkpoint at 2 (before the compaction made at 4): CompactionID %d, want 0", early.CompactionID)
	}
	if got := mustLoadCheckpoint(t, s, now.ID); got.CompactionID != now.CompactionID {
		t.Errorf("loaded CompactionID %d, saved %d", got.CompactionID, now.CompactionID)
	}
}

func testCheckpointErrors(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "cx", 3)
	_, err := s.SaveCheckpoint(bg(t), sessiondb.Checkpoint{SessionID: "unknown"})
	wantErr(t, err, sessiondb.ErrNotFound, "SaveCheckpoint for an unknown session")
	_, err = s.SaveCheckpoint(bg(t), sessiondb.Checkpoint{SessionID: "cx", AtSeq: 4})
	wantErr(t, err, sessiondb.ErrInvalid, "SaveCheckpoint beyond LastSeq")
	_, err = s.SaveCheckpoint(bg(t), sessiondb.Checkpoint{SessionID: "cx", State: raw(`{`)})
	wantErr(t, err, sessiondb.ErrInvalid, "SaveCheckpoint with non-JSON state")
	_, err = s.SaveCheckpoint(bg(t), sessiondb.Checkpoint{SessionID: "cx", Metadata: raw(`meta`)})
	wantErr(t, err, sessiondb.ErrInvalid, "SaveCheckpoint with non-JSON metadata")
	_, err = s.SaveCheckpoint(bg(t), sessiondb.Checkpoint{ID: "bad\x00id", SessionID: "cx"})
	wantErr(t, err, sessiondb.ErrInvalid, "SaveCheckpoint with an invalid ID")
	_, err = s.SaveCheckpoint(bg(t), sessiondb.Checkpoint{SessionID: ""})
	wantErr(t, err, sessiondb.ErrInvalid, "SaveCheckpoint without session")
	if cps, err := s.ListCheckpoints(bg(t), "cx"); err != nil || len(cps) != 0 {
		t.Errorf("failed SaveCheckpoints left %v, %v", cps, err)
	}
	_, err = s.LoadCheckpoint(bg(t), "unknown")
	wantErr(t, err, sessiondb.ErrNotFound, "LoadCheckpoint(unknown)")
}
