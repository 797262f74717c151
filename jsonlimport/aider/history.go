package aider

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// The reading of a chat history file into runs and blocks (see the
// package doc, "Blocks").

// Block kinds: the body's "type".
const (
	kindHeader    = "header"
	kindUser      = "user"
	kindAssistant = "assistant"
	kindOutput    = "output"
)

// headerPrefix begins the line that starts a run.
const headerPrefix = "# aider chat started at "

// headerLayout is the time in a run header (local time, no zone).
const headerLayout = "2006-01-02 15:04:05"

// block is one write of aider's as the file shows it: raw bytes
// data[start:end] (lines whole), from line number line on.
type block struct {
	kind       string
	start, end int
	line       int
}

// run is one aider session: a header and the blocks after it, up to the
// next header. A file whose first lines come before any header has a run
// without one (started zero).
type run struct {
	start, end int
	started    time.Time
	stamp      string // the header's time as written
	key        string
	blocks     []block
}

// lineKind classifies a complete line (without its newline).
func lineKind(l []byte) string {
	switch {
	case isBlank(l):
		return ""
	case bytes.HasPrefix(l, []byte(headerPrefix)):
		return kindHeader
	case bytes.HasPrefix(l, []byte("#### ")) || bytes.Equal(trimCR(l), []byte("####")):
		return kindUser
	case bytes.HasPrefix(l, []byte("> ")) || bytes.Equal(trimCR(l), []byte(">")):
		return kindOutput
	}
	return "text"
}

// tornKind classifies the start of a line still being written: as the
// line it may become when it is the start of a header, a prompt or an
// output line.
func tornKind(l []byte) string {
	for _, p := range []struct{ prefix, kind string }{{headerPrefix, kindHeader}, {"#### ", kindUser}, {"> ", kindOutput}} {
		if bytes.HasPrefix(l, []byte(p.prefix)) || bytes.HasPrefix([]byte(p.prefix), l) {
			return p.kind
		}
	}
	if isBlank(l) {
		return ""
	}
	return lineKind(l)
}

func trimCR(l []byte) []byte { return bytes.TrimSuffix(l, []byte("\r")) }

func isBlank(l []byte) bool { return len(bytes.TrimSpace(l)) == 0 }

// split reads data into runs of blocks. Only complete lines are read: a
// last line without its newline is a write in progress, and so is the
// block it would end, which is left out too (held reports it). consumed
// is the end of the last block read.
func split(data []byte) (runs []run, consumed int, held bool) {
	var blocks []block
	var cur *block
	blankStart, blanks := -1, 0
	blankLine := 0
	pos, lineNo := 0, 0
	flush := func() {
		if cur != nil {
			blocks = append(blocks, *cur)
			cur = nil
		}
	}
	for pos < len(data) {
		nl := bytes.IndexByte(data[pos:], '\n')
		var l []byte
		var next int
		var k string
		if nl < 0 {
			// A line aider is writing: it closes the block before it
			// when it opens one (as it will once whole), and the block
			// it is in is left for the next import.
			held = true
			l, next = data[pos:], len(data)
			k = tornKind(l)
		} else {
			l, next = data[pos:pos+nl], pos+nl+1
			k = lineKind(l)
		}
		lineNo++
		if k == "" && held {
			// Spaces of a line being written: the blocks before it
			// stand as at the end of the last whole line.
			if cur != nil {
				cur.end = pos
				flush()
			}
			break
		}
		if k == "" {
			if blanks == 0 {
				blankStart, blankLine = pos, lineNo
			}
			blanks++
			pos = next
			continue
		}
		// start opens a new block at this line, the last blank line
		// before it leading it when lead is set (aider's writes of a
		// header, a prompt and a reply begin with "\n").
		start := func(kind string, lead bool) {
			from, line := pos, lineNo
			if lead && blanks > 0 {
				from, line = pos-1, lineNo-1
				for from > 0 && data[from-1] != '\n' {
					from--
				}
			}
			if cur != nil {
				cur.end = from
			} else if blanks > 0 {
				// Blank lines before the first block lead it.
				from, line = blankStart, blankLine
			}
			flush()
			cur = &block{kind: kind, start: from, line: line}
		}
		switch {
		case k == kindUser && cur != nil && cur.kind == kindUser && blanks == 0:
			// The next line of a prompt of several lines.
		case k == kindHeader || k == kindUser:
			start(k, true)
		case k == kindOutput:
			start(k, false)
		case cur != nil && cur.kind == kindAssistant:
			// A reply's own line, blank lines inside it included.
		case cur != nil && blanks == 0:
			// A tool message of several lines (only its first is
			// quoted), or text glued to a prompt: the same write.
		default:
			start(kindAssistant, true)
		}
		blanks = 0
		if held {
			cur = nil
			break
		}
		pos = next
		cur.end = pos
	}
	// A block is closed by the line that opens the next one; at the end
	// of the file, the last one is whole unless a torn line follows it
	// (aider is writing), and takes the blank lines after it.
	if cur != nil && !held {
		cur.end = pos
		flush()
	}
	if len(blocks) > 0 {
		consumed = blocks[len(blocks)-1].end
	}
	return group(data, blocks), consumed, held
}

// group makes runs of blocks: a header block opens a run.
func group(data []byte, blocks []block) []run {
	var runs []run
	seen := map[string]int{}
	for _, b := range blocks {
		if b.kind == kindHeader || len(runs) == 0 {
			r := run{start: b.start}
			if b.kind == kindHeader {
				r.stamp, r.started = headerTime(data[b.start:b.end])
			}
			key := "aider-run" + strconv.Itoa(len(runs)+1)
			if !r.started.IsZero() {
				key = "aider-" + r.started.Format("2006-01-02T15-04-05")
			}
			seen[key]++
			if n := seen[key]; n > 1 {
				key += "-" + strconv.Itoa(n)
			}
			r.key = key
			runs = append(runs, r)
		}
		r := &runs[len(runs)-1]
		r.blocks = append(r.blocks, b)
		r.end = b.end
	}
	return runs
}

// headerTime reads the time of a header block: as written, and as a time
// (UTC, the zone being unknown; zero when it does not parse).
func headerTime(b []byte) (string, time.Time) {
	for _, l := range bytes.Split(b, []byte("\n")) {
		if s, ok := bytes.CutPrefix(trimCR(l), []byte(headerPrefix)); ok {
			stamp := strings.TrimSpace(string(s))
			t, err := time.Parse(headerLayout, stamp)
			if err != nil {
				return stamp, time.Time{}
			}
			return stamp, t
		}
	}
	return "", time.Time{}
}

// runStamp fingerprints a run's bytes (StoreSession.Stamp).
func runStamp(data []byte, r run, input []byte) string {
	h := sha256.New()
	h.Write([]byte("aider/1\x00"))
	h.Write(data[r.start:r.end])
	h.Write([]byte{0})
	h.Write(input)
	return hex.EncodeToString(h.Sum(nil))
}
