package pgstore

import (
	"testing"

	"github.com/sessiondb/sessiondb"
)

// BenchmarkAppend: one writer appends one message per commit to one
// session (the agent's turn), the path whose statement count doc.go
// describes.
func BenchmarkAppend(b *testing.B) {
	s := MustOpenStore(b, nil)
	ctx := b.Context()
	if _, err := s.Create(ctx, sessiondb.Session{ID: "bench"}); err != nil {
		b.Fatal(err)
	}
	e := sessiondb.Message(`{"role":"user","content":"a message of a few words, as an agent's turn has"}`)
	for b.Loop() {
		if _, err := s.Append(ctx, "bench", e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommitNoOp: a commit that changes nothing (an UpdateMeta with
// the stored title), which writes nothing.
func BenchmarkCommitNoOp(b *testing.B) {
	s := MustOpenStore(b, nil)
	ctx := b.Context()
	if _, err := s.Create(ctx, sessiondb.Session{ID: "bench", Title: "t"}); err != nil {
		b.Fatal(err)
	}
	title := "t"
	for b.Loop() {
		if _, err := s.UpdateMeta(ctx, "bench", sessiondb.MetaPatch{Title: &title}); err != nil {
			b.Fatal(err)
		}
	}
}
