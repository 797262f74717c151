package pgstore

import (
	"fmt"
	"testing"
	"time"

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

// BenchmarkCommitUsage is sqlstore's: commits of one message with 1 or
// 100 calls, the writes the usage_quarters trigger (migration 00014) adds
// to.
func BenchmarkCommitUsage(b *testing.B) {
	for _, rows := range []int{1, 100} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			s := MustOpenStore(b, nil)
			ctx := b.Context()
			if _, err := s.Create(ctx, sessiondb.Session{ID: "bench"}); err != nil {
				b.Fatal(err)
			}
			e := sessiondb.Message(`{"role":"user","content":"a message of a few words, as an agent's turn has"}`)
			day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			n := 0
			for b.Loop() {
				c := sessiondb.Commit{Append: []sessiondb.Entry{e}}
				for i := range rows {
					c.Usage = append(c.Usage, sessiondb.Usage{Provider: "anthropic", Model: fmt.Sprintf("model-%d", i%10), InputTokens: 1000,
						OutputTokens: 50, CacheReadTokens: 5000, Cost: 0.0123, CreatedAt: day.Add(time.Duration(n*rows+i) * 7 * time.Second)})
				}
				if _, err := s.Commit(ctx, "bench", c); err != nil {
					b.Fatal(err)
				}
				n++
			}
		})
	}
}
