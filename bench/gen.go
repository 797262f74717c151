package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
)

// gen produces deterministic, picoclaw-shaped message lines: the JSON of a
// providers.Message ({"role","content","model_name","created_at"}), so the
// same bytes can be stored in sessiondb, written to JSONL files and
// imported. Content is drawn from a Zipf-distributed vocabulary of
// pseudo-words, which gives search queries of every selectivity, from a
// word in nearly every entry to one in a handful.
type gen struct {
	rng   *rand.Rand
	zipf  *rand.Zipf
	vocab []string
	t     time.Time
}

// vocabSize is the number of distinct pseudo-words.
const vocabSize = 20000

func newGen(seed uint64) *gen {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return &gen{
		rng:   rng,
		zipf:  rand.NewZipf(rng, 1.07, 2, vocabSize-1),
		vocab: vocabulary(),
		t:     time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC),
	}
}

// vocabulary returns vocabSize distinct pseudo-words of 3 to 10 letters,
// the same on every call (rank 0 is the most frequent word). Letters are
// drawn with English letter frequencies, so that trigrams are skewed like
// those of natural text but not as few as in a syllable language (a
// trigram index is only as selective as the trigrams of the text).
func vocabulary() []string {
	const letters = "etaoinshrdlcumwfgypbvkjxqz"
	freq := []int{127, 91, 82, 75, 70, 67, 63, 61, 60, 43, 40, 28, 28, 24, 24, 22, 20, 20, 19, 15, 10, 8, 2, 2, 1, 1}
	var cum []int
	total := 0
	for _, f := range freq {
		total += f
		cum = append(cum, total)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	letter := func() byte {
		x := rng.IntN(total)
		for i, c := range cum {
			if x < c {
				return letters[i]
			}
		}
		return 'e'
	}
	seen := map[string]bool{}
	out := make([]string, 0, vocabSize)
	for len(out) < vocabSize {
		n := 3 + rng.IntN(8)
		b := make([]byte, n)
		for i := range b {
			b[i] = letter()
		}
		w := string(b)
		if seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// text returns about n bytes of space-separated vocabulary words.
func (g *gen) text(n int) string {
	var b strings.Builder
	b.Grow(n + 16)
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(g.vocab[g.zipf.Uint64()])
	}
	return b.String()
}

// picoMessage mirrors picoclaw's providers.Message field order for the
// fields we emit.
type picoMessage struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	ModelName string `json:"model_name,omitempty"`
	CreatedAt string `json:"created_at,omitempty"`
}

// line returns one message line (without newline) of about size bytes:
// users and assistants alternate by seq.
func (g *gen) line(seq int, size int) []byte {
	g.t = g.t.Add(time.Duration(500+g.rng.IntN(5000)) * time.Millisecond)
	m := picoMessage{Role: "user", CreatedAt: g.t.Format(time.RFC3339Nano)}
	if seq%2 == 0 {
		m.Role, m.ModelName = "assistant", "gpt-5.4-mini"
	}
	overhead := 80
	m.Content = g.text(max(8, size-overhead))
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// sizeAround returns a size drawn uniformly from [mean/4, 7*mean/4].
func (g *gen) sizeAround(mean int) int {
	return mean/4 + g.rng.IntN(3*mean/2+1)
}

// lines returns n lines of mean size meanSize.
func (g *gen) lines(n, meanSize int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = g.line(i+1, g.sizeAround(meanSize))
	}
	return out
}

// entries wraps lines as sessiondb entries (bodies share the bytes).
func entries(lines [][]byte) []sessiondb.Entry {
	out := make([]sessiondb.Entry, len(lines))
	for i, l := range lines {
		out[i] = sessiondb.Entry{Kind: sessiondb.KindMessage, Body: l}
	}
	return out
}

// writeJSONL writes lines to path, one per line.
func writeJSONL(path string, lines [][]byte) (int64, error) {
	var n int64
	for _, l := range lines {
		n += int64(len(l)) + 1
	}
	buf := make([]byte, 0, n)
	for _, l := range lines {
		buf = append(buf, l...)
		buf = append(buf, '\n')
	}
	return n, os.WriteFile(path, buf, 0o600)
}

// picoMeta is picoclaw's SessionMeta (.meta.json).
type picoMeta struct {
	Key       string          `json:"key"`
	Summary   string          `json:"summary"`
	Skip      int             `json:"skip"`
	Count     int             `json:"count"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
	Scope     json.RawMessage `json:"scope,omitempty"`
	Aliases   []string        `json:"aliases,omitempty"`
}

// writePicoclawArchive writes a picoclaw sessions directory of about
// totalBytes: sessions of {key}.jsonl + {key}.meta.json. It returns the
// number of sessions, lines and JSONL bytes.
func writePicoclawArchive(dir string, totalBytes int64, seed uint64) (sessions, lines int, bytes int64, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, 0, 0, err
	}
	g := newGen(seed)
	for bytes < totalBytes {
		key := fmt.Sprintf("agent:main:telegram:direct:user%05d", sessions)
		n := 50 + g.rng.IntN(500)
		ls := g.lines(n, 1000)
		base := strings.NewReplacer(":", "_", "/", "_", `\`, "_").Replace(key)
		w, err := writeJSONL(filepath.Join(dir, base+".jsonl"), ls)
		if err != nil {
			return 0, 0, 0, err
		}
		created, updated := firstLast(ls)
		meta := picoMeta{Key: key, Count: n, CreatedAt: created, UpdatedAt: updated,
			Scope:   json.RawMessage(`{"version":1,"agent_id":"main","channel":"telegram","account":"default"}`),
			Aliases: []string{fmt.Sprintf("telegram:user%05d", sessions)}}
		mb, err := json.MarshalIndent(meta, "", "  ")
		if err != nil {
			return 0, 0, 0, err
		}
		if err := os.WriteFile(filepath.Join(dir, base+".meta.json"), mb, 0o600); err != nil {
			return 0, 0, 0, err
		}
		sessions++
		lines += n
		bytes += w
	}
	return sessions, lines, bytes, nil
}

func firstLast(ls [][]byte) (time.Time, time.Time) {
	var a, b picoMessage
	_ = json.Unmarshal(ls[0], &a)
	_ = json.Unmarshal(ls[len(ls)-1], &b)
	ta, _ := time.Parse(time.RFC3339Nano, a.CreatedAt)
	tb, _ := time.Parse(time.RFC3339Nano, b.CreatedAt)
	return ta, tb
}
