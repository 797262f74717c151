package torture

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/sessiondb/sessiondb"
)

// This file holds what the workers write and the checker verifies: the
// self-describing bodies, state and interrupt documents, transcript digests
// and the oracle log records.

// tag is the header every document the workload writes carries. It names
// the operation that wrote it and where, so that any document found in the
// database can be traced back to an intent in an oracle log.
type tag struct {
	Op  string `json:"op"`
	Sid string `json:"sid"`
	K   int    `json:"k,omitempty"`
	N   int    `json:"n,omitempty"`
	Sum bool   `json:"sum,omitempty"`
}

// words feed the body texts, so that Search has something to find.
var words = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
	"india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo"}

func hash16(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// padLen derives a body's padding from its identity: mostly small, now and
// then tens of KiB so that rows spill onto overflow pages.
func padLen(op string, k int) int {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", op, k)))
	v := binary.BigEndian.Uint32(h[:4])
	if v%41 == 0 {
		return 8<<10 + int(v>>8)%(40<<10)
	}
	return int(v>>8) % 160
}

// makeBody returns the exact bytes of body k of n written by op into
// session sid (a summary message when sum). The bytes are a pure function
// of the arguments, so the checker regenerates them and compares byte for
// byte: any lost, torn or re-encoded body is caught.
func makeBody(op, sid string, k, n int, sum bool) []byte {
	role := "user"
	if k%2 == 0 {
		role = "assistant"
	}
	if sum {
		role = "system"
	}
	h := hash16(op, sid, fmt.Sprint(k), fmt.Sprint(n), fmt.Sprint(sum))
	w1 := words[int(h[0])%len(words)]
	w2 := words[int(h[1])%len(words)]
	t, _ := json.Marshal(tag{Op: op, Sid: sid, K: k, N: n, Sum: sum})
	pad := strings.Repeat(h[:8], padLen(op, k)/8+1)[:padLen(op, k)]
	return []byte(fmt.Sprintf(`{"role":%q,"content":"torture %s part %d of %d %s %s","tt":%s,"h":%q,"pad":%q}`,
		role, op, k, n, w1, w2, t, h, pad))
}

// bodies returns n fresh entries of op for sid.
func freshEntries(op, sid string, n int) []sessiondb.Entry {
	out := make([]sessiondb.Entry, n)
	for k := 1; k <= n; k++ {
		out[k-1] = sessiondb.Entry{Kind: sessiondb.KindMessage, Body: makeBody(op, sid, k, n, false)}
	}
	return out
}

func freshSummary(op, sid string, n int) []sessiondb.Entry {
	out := make([]sessiondb.Entry, n)
	for k := 1; k <= n; k++ {
		out[k-1] = sessiondb.Entry{Kind: sessiondb.KindMessage, Body: makeBody(op, sid, k, n, true)}
	}
	return out
}

// parseBody reads the tag of a body and checks that the body is exactly
// what makeBody writes for it.
func parseBody(b []byte) (tag, error) {
	var v struct {
		TT tag `json:"tt"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return tag{}, fmt.Errorf("body is not the workload's JSON: %v: %.200q", err, b)
	}
	t := v.TT
	if t.Op == "" || t.K < 1 || t.K > t.N {
		return t, fmt.Errorf("body has a bad tag %+v: %.200q", t, b)
	}
	if want := makeBody(t.Op, t.Sid, t.K, t.N, t.Sum); !bytes.Equal(want, b) {
		return t, fmt.Errorf("body of %s k=%d differs from what was written:\n got %.300q\nwant %.300q", t.Op, t.K, b, want)
	}
	return t, nil
}

// digest fingerprints a transcript: every body, in order, length-prefixed.
func digest(bodies [][]byte) string {
	h := sha256.New()
	for _, b := range bodies {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}

func entryBodies(es []sessiondb.Entry) [][]byte {
	out := make([][]byte, len(es))
	for i, e := range es {
		out[i] = e.Body
	}
	return out
}

// stateDoc is the state document. For paired sessions ("p-"), TLen and
// TDig describe the effective transcript committed in the same
// transaction, and Seq the session Sequence of that commit (0: unknown).
type stateDoc struct {
	TT   tag    `json:"tt"`
	TLen int    `json:"tlen"`
	TDig string `json:"tdig"`
	Seq  int64  `json:"seq"`
	H    string `json:"h"`
}

func makeState(op, sid string, tlen int, tdig string, seq int64) []byte {
	d := stateDoc{TT: tag{Op: op, Sid: sid}, TLen: tlen, TDig: tdig, Seq: seq}
	d.H = hash16(op, sid, fmt.Sprint(tlen), tdig, fmt.Sprint(seq))
	b, _ := json.Marshal(d)
	return b
}

func parseState(b []byte) (stateDoc, error) {
	var d stateDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("state is not the workload's JSON: %v: %.200q", err, b)
	}
	if d.TT.Op == "" || d.H != hash16(d.TT.Op, d.TT.Sid, fmt.Sprint(d.TLen), d.TDig, fmt.Sprint(d.Seq)) {
		return d, fmt.Errorf("state document fails its hash: %.300q", b)
	}
	if want := makeState(d.TT.Op, d.TT.Sid, d.TLen, d.TDig, d.Seq); !bytes.Equal(want, b) {
		return d, fmt.Errorf("state document differs from what was written: %.300q", b)
	}
	return d, nil
}

// makeInterrupt returns an interrupt document (pending tool calls).
func makeInterrupt(op, sid string) []byte {
	h := hash16(op, sid, "interrupt")
	return []byte(fmt.Sprintf(`{"tt":{"op":%q,"sid":%q},"pending":[{"id":"call_%s","name":"shell"}],"h":%q}`, op, sid, h[:8], h))
}

func parseInterrupt(b []byte) (tag, error) {
	var v struct {
		TT tag `json:"tt"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return tag{}, fmt.Errorf("interrupt is not the workload's JSON: %v: %.200q", err, b)
	}
	if want := makeInterrupt(v.TT.Op, v.TT.Sid); !bytes.Equal(want, b) {
		return v.TT, fmt.Errorf("interrupt differs from what was written: %.300q", b)
	}
	return v.TT, nil
}

// Op kinds recorded in the oracle.
const (
	opSaveFull  = "savefull"  // SaveFull (create or replace), fresh or extended messages
	opAppend    = "append"    // Append
	opCommitX   = "commitx"   // Commit with ExpectSequence: append (+state, +interrupt, +usage)
	opPStep     = "pstep"     // paired read-modify-write Commit (append/compact/interrupt + state)
	opTruncate  = "truncate"  // Truncate
	opCompact   = "compact"   // Compact with summary
	opFork      = "fork"      // Fork
	opDelete    = "delete"    // Delete
	opSaveState = "savestate" // SaveState
	opSetIntr   = "setintr"   // SaveInterrupt
	opClearIntr = "clearintr" // ClearInterrupt
	opImport    = "import"    // jsonlimport.Import of a sample file
)

// record is one line of an oracle log.
type record struct {
	T    string `json:"t"` // intent, ack, fail, violation, note
	Op   string `json:"op,omitempty"`
	Kind string `json:"kind,omitempty"`
	Sid  string `json:"sid,omitempty"`
	New  string `json:"new,omitempty"` // the session a fork creates
	// N fresh log bodies (the last N appended by the op); M summary bodies.
	N int `json:"n,omitempty"`
	M int `json:"m,omitempty"`
	// What the op writes besides entries.
	State  bool   `json:"state,omitempty"`
	Intr   string `json:"intr,omitempty"` // "set" or "clear"
	Keep   int64  `json:"keep,omitempty"` // KeepFromSeq of the compaction it records
	AtSeq  int64  `json:"at,omitempty"`   // fork position asked for
	Expect int64  `json:"expect,omitempty"`
	Path   string `json:"path,omitempty"` // import source file
	// Results (ack): the returned Sequence and LastSeq, the fork's ForkSeq,
	// and the transcript the op produced when it is known.
	Seq     int64  `json:"seq,omitempty"`
	Last    int64  `json:"last,omitempty"`
	ForkSeq int64  `json:"forkseq,omitempty"`
	TDig    string `json:"tdig,omitempty"`
	TLen    int    `json:"tlen,omitempty"`
	Err     string `json:"err,omitempty"`
	Class   string `json:"class,omitempty"` // fail: conflict, notfound, invalid, exists, unexpected
	Time    int64  `json:"time"`            // unix nanoseconds
}

// oracleWriter appends records to a worker's oracle log, fsyncing each.
type oracleWriter struct {
	f *os.File
}

func (w *oracleWriter) write(r record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if _, err := w.f.Write(b); err != nil {
		return err
	}
	return w.f.Sync()
}

// readOracle reads an oracle log. A last line without its newline (the
// worker was killed or stopped while writing it) is ignored; any other bad
// line is an error.
func readOracle(path string) ([]record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []record
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	complete := len(data) > 0 && data[len(data)-1] == '\n'
	lines := bytes.Split(data, []byte("\n"))
	for i, line := range lines {
		if len(line) == 0 {
			continue
		}
		if i == len(lines)-1 && !complete {
			break // torn last line
		}
		var r record
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("%s line %d: %v", path, i+1, err)
		}
		out = append(out, r)
	}
	return out, nil
}
