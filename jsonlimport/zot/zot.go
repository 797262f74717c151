package zot

// zot (github.com/patriceckhart/zot) keeps one append-only JSONL file per
// session: ZOT_HOME/sessions/<hex(sha256(cwd))[:16]>/<YYYYMMDD-HHMMSS>-<id8>.jsonl.
// Every line is an envelope keyed by "type":
//
//	{"type":"meta","meta":{"id":…,"cwd":…,"model":…,"provider":…,"started":…,"version":…,"parent":…,"fork_point":…}}
//	{"type":"message","message":{"role":…,"content":[…blocks without type tags…],"time":…}}
//	{"type":"usage","usage":{…},"cumulative":{…}}
//	{"title":…,"type":"rename"}
//	{"type":"compaction","messages":[<message>,…]}   (zot versions from 2026-05-09 on)
//
// How the Zot reader maps that onto sessiondb:
//
//   - Entry bodies. A message row becomes one entry of kind "message" whose
//     Body is the exact bytes of the inner message object (the value of the
//     row's "message" key), not the whole row. zot's loader returns message
//     objects, so the effective transcript is then, value for value, what
//     zot's OpenSession returns once those objects are decoded with zot's own
//     rules (see zotHydrate). The only byte change ever made is replacing
//     invalid UTF-8 with U+FFFD, which is also what zot's decoder does, and
//     the stub results described below.
//   - Which messages exist follows zot's loader: rows whose message does not
//     decode, or that decode to no content blocks, are skipped (with a
//     Problem). Where the data is recoverable without inventing anything we
//     keep strictly more than zot: a message whose only defect is an
//     unparsable "time" is kept (zot drops it and leaves its tool result
//     orphaned); a row glued onto a torn fragment or behind NUL padding is
//     recovered.
//   - Unpaired tool calls are repaired exactly as zot's
//     repairToolUseResultPairs does on load: a stub tool_result
//     ("tool call was aborted; no result recorded.", is_error true) is merged
//     into the next message when that is a tool message (its body is the
//     original bytes with the stub blocks appended to the content array), and
//     otherwise inserted as a new synthetic tool message entry carrying the
//     assistant's time. Each repair is a Note (zot's loader does the same).
//     A stub for the calls of the LAST message is not a log entry: the
//     result may still come (a live session is running the tool), and an
//     entry cannot be taken back. The transcript then ends with the stub
//     through a compaction whose summary is a copy of every transcript
//     message plus the stub (a view, keeping no log entry); the next import
//     that finds more messages reads the file whole and replaces it.
//   - meta: the last readable meta row wins for model, provider, cwd and
//     version (Session.Attrs, a JSON object with those keys), started
//     (CreatedAt), parent (ParentID) and fork_point (ForkSeq). The session ID
//     is the last non-empty meta id (the file name when there is none) and
//     never changes on an incremental import.
//   - title: as zot's listing (DescribeSessions) computes it, in row order:
//     a meta row sets it to its title (zot never writes one, so a model
//     switch after a rename blanks it), a rename row with a non-empty
//     title sets it.
//   - usage: rows carry cumulative totals only and are repeated at every
//     flush. Each increase of the cumulative totals becomes one Usage row
//     holding the difference (identical rows add nothing), so the usage total
//     equals zot's SessionUsage (the last row's cumulative). zot writes a
//     call's row just before the assistant message the call produced; that
//     message's entry number is the row's Seq (0 when there is none yet).
//     The row's CallID names its line ("zot usage line N"), so that a
//     whole read of a file that grew writes it again in place rather than
//     counting it twice.
//   - compaction: each row is a sessiondb.Compaction whose Summary holds its
//     messages (bodies = their exact bytes) and whose KeepFromSeq is the
//     number of the next message entry; the latest one therefore gives the
//     transcript zot loads (its messages, then later message rows).
//   - Lines: CRLF is accepted, empty lines are ignored, every other defect is
//     a Problem with path and line. A torn last line is not consumed
//     (Parsed.Offset stops before it). A last line without '\n' that is a
//     complete JSON object is read and consumed: it cannot grow any more.
//   - Resume: parsing continues at Resume.Offset with the meta, title, usage
//     totals and pending calls kept in ResumeState, so the work is
//     proportional to the new bytes. Parse returns ErrNotIncremental (the
//     importer reads the file whole again and appends only the new
//     entries) in two cases: messages arrive after an import that ended
//     with a tool call without result, and a resumed read ends with one
//     (both need the whole transcript for the view above).
//
// Export writes the effective transcript as plain message rows (no
// compaction rows, so that zot versions without compaction support load the
// same transcript), then one usage row holding the session's usage totals
// and a rename row for the title.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/jsonscan"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Format reads and writes zot session files.
type Format struct{}

// Name is the format's name.
const Name = "zot"

var _ jsonl.Format = Format{}

// Name returns Name.
func (Format) Name() string { return Name }

// zotStubText is the text of the stub result zot's loader synthesizes for a
// tool call without result.
const zotStubText = "tool call was aborted; no result recorded."

// StubText is the result text zot's loader gives a tool call that has no
// result.
const StubText = zotStubText

// zotExt is the extension of zot's portable session exports.
const zotExt = ".zotsession"

var (
	zotFileRE = regexp.MustCompile(`^[0-9]{8}-[0-9]{6}-[A-Za-z0-9_.-]+\.jsonl$`)
	zotDirRE  = regexp.MustCompile(`^[0-9a-f]{16}$`)
)

// zotMeta is zot's SessionMeta.
type zotMeta struct {
	ID        string    `json:"id"`
	CWD       string    `json:"cwd"`
	Model     string    `json:"model"`
	Provider  string    `json:"provider"`
	Started   time.Time `json:"started"`
	Version   string    `json:"version"`
	Title     string    `json:"title,omitempty"`
	Parent    string    `json:"parent,omitempty"`
	ForkPoint int       `json:"fork_point,omitempty"`
}

// zotUsage is zot's provider.Usage.
type zotUsage struct {
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	CostUSD          float64 `json:"cost_usd"`
}

// zotAttrs is the Session.Attrs document of an imported zot session.
type zotAttrs struct {
	CWD      *string `json:"cwd,omitempty"`
	Model    string  `json:"model,omitempty"`
	Provider string  `json:"provider,omitempty"`
	Version  string  `json:"version,omitempty"`
}

// ---- Claim ----

// Claim takes zot session files: files laid out as in a zot home
// (sessions/<16 hex>/<YYYYMMDD-HHMMSS>-<id>.jsonl), portable .zotsession
// exports, and any other .jsonl file whose first line is a zot meta row.
func (Format) Claim(files []string) (units []jsonl.Unit, rest []string) {
	for _, f := range files {
		if isZotHomeFile(f) || strings.HasSuffix(f, zotExt) || (strings.HasSuffix(f, ".jsonl") && sniffZotMeta(f)) {
			units = append(units, jsonl.Unit{Format: Name, Path: f})
			continue
		}
		rest = append(rest, f)
	}
	return units, rest
}

func isZotHomeFile(path string) bool {
	dir := filepath.Dir(path)
	return zotFileRE.MatchString(filepath.Base(path)) &&
		zotDirRE.MatchString(filepath.Base(dir)) &&
		filepath.Base(filepath.Dir(dir)) == "sessions"
}

// sniffZotMeta reports whether the first line of path is a zot meta row.
func sniffZotMeta(path string) bool {
	f, err := jsonl.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(io.LimitReader(f, 1<<20), 64<<10).ReadBytes('\n')
	if err != nil && err != io.EOF {
		return false
	}
	var row struct {
		Type string                     `json:"type"`
		Meta map[string]json.RawMessage `json:"meta"`
	}
	if json.Unmarshal(jsonl.TrimCR(bytes.TrimSuffix(line, []byte("\n"))), &row) != nil || row.Type != "meta" {
		return false
	}
	_, hasID := row.Meta["id"]
	_, hasStarted := row.Meta["started"]
	return hasID && hasStarted
}

// ---- hydration: zot's own decoding rules ----

// zotMessage is a message as zot's loader returns it. Marshalled, it has the
// shape of the golden files: content blocks are {"kind":…, "value":…}.
type zotMessage struct {
	Role    string     `json:"role"`
	Time    time.Time  `json:"time"`
	Content []zotBlock `json:"content"`
}

// zotBlock is one hydrated content block: Kind is zot's Go type name
// (TextBlock, ImageBlock, ToolCallBlock, ToolResultBlock, ReasoningBlock).
type zotBlock struct {
	Kind  string `json:"kind"`
	Value any    `json:"value"`
}

type zotTextBlock struct {
	Text string `json:"text"`
}

type zotImageBlock struct {
	MimeType string `json:"mime_type"`
	Data     []byte `json:"data"`
}

type zotToolCallBlock struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type zotToolResultBlock struct {
	CallID  string     `json:"call_id"`
	Content []zotBlock `json:"content"`
	IsError bool       `json:"is_error"`
}

type zotReasoningBlock struct {
	ID        string `json:"reasoning_id,omitempty"`
	Summary   string `json:"summary,omitempty"`
	Encrypted string `json:"encrypted_content,omitempty"`
}

// zotWireMessage is the row decode zot's hydrateMessage does.
type zotWireMessage struct {
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
	Time    time.Time         `json:"time"`
}

// zotHydrate decodes one message object exactly as zot's loader does
// (encoding/json with zot's structs, blocks discriminated by the fields
// present). It returns the message and the number of raw content elements;
// an error means zot drops the whole message.
func zotHydrate(obj []byte) (zotMessage, int, error) {
	var w zotWireMessage
	if err := json.Unmarshal(obj, &w); err != nil {
		return zotMessage{}, 0, err
	}
	return zotMessage{Role: w.Role, Time: w.Time, Content: zotHydrateBlocks(w.Content)}, len(w.Content), nil
}

func zotHydrateBlocks(raws []json.RawMessage) []zotBlock {
	var out []zotBlock
	for _, raw := range raws {
		var head struct {
			Text        string `json:"text"`
			MimeType    string `json:"mime_type"`
			Data        []byte `json:"data"`
			ID          string `json:"id"`
			Name        string `json:"name"`
			CallID      string `json:"call_id"`
			ReasoningID string `json:"reasoning_id"`
			Summary     string `json:"summary"`
			Encrypted   string `json:"encrypted_content"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			continue
		}
		switch {
		case head.ReasoningID != "" || head.Encrypted != "":
			out = append(out, zotBlock{"ReasoningBlock", zotReasoningBlock{head.ReasoningID, head.Summary, head.Encrypted}})
		case head.Name != "" && head.ID != "":
			var tc zotToolCallBlock
			_ = json.Unmarshal(raw, &tc)
			out = append(out, zotBlock{"ToolCallBlock", zotToolCallBlock{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}})
		case head.CallID != "":
			var tr struct {
				CallID  string            `json:"call_id"`
				Content []json.RawMessage `json:"content"`
				IsError bool              `json:"is_error"`
			}
			_ = json.Unmarshal(raw, &tr)
			b := zotToolResultBlock{CallID: tr.CallID, IsError: tr.IsError}
			for _, c := range tr.Content {
				var inner struct {
					Text     string `json:"text"`
					MimeType string `json:"mime_type"`
					Data     []byte `json:"data"`
				}
				_ = json.Unmarshal(c, &inner)
				if inner.MimeType != "" {
					b.Content = append(b.Content, zotBlock{"ImageBlock", zotImageBlock{inner.MimeType, inner.Data}})
				} else {
					b.Content = append(b.Content, zotBlock{"TextBlock", zotTextBlock{inner.Text}})
				}
			}
			out = append(out, zotBlock{"ToolResultBlock", b})
		case head.MimeType != "":
			out = append(out, zotBlock{"ImageBlock", zotImageBlock{head.MimeType, head.Data}})
		default:
			out = append(out, zotBlock{"TextBlock", zotTextBlock{head.Text}})
		}
	}
	return out
}

// ---- Parse ----

// zotResumeState is Parsed.ResumeState for zot files.
type zotResumeState struct {
	V        int       `json:"v"`
	ID       string    `json:"id"`
	Meta     *zotMeta  `json:"meta,omitempty"`
	Title    string    `json:"title,omitempty"`
	Usage    zotUsage  `json:"usage"`
	LastTime time.Time `json:"last_time"`
	Created  time.Time `json:"created"`
	Lines    int       `json:"lines"`
	Partial  bool      `json:"partial,omitempty"`
	Pending  []string  `json:"pending,omitempty"`
}

// zotItem is one message of the transcript being built: a log entry or a
// compaction summary message.
type zotItem struct {
	entry   sessiondb.Entry
	time    time.Time // the hydrated time (zero when missing or unparsable)
	badTime bool      // time did not parse (zot's loader drops such a message)
	calls   []string  // ToolCallBlock IDs
	results []string  // ToolResultBlock call IDs
	stub    bool
	summary bool
	line    int
}

type zotComp struct {
	line         int
	at           int // items of this parse before the row
	summary      []*zotItem
	tokensBefore int64
	createdAt    time.Time
}

type zotParser struct {
	ctx      context.Context
	path     string
	resumed  bool
	lineBase int

	problems []jsonl.Problem
	notes    []jsonl.Problem
	meta     zotMeta
	haveMeta bool
	id       string
	title    string
	items    []*zotItem
	comps    []*zotComp
	sum      zotUsage
	usage    []sessiondb.Usage
	awaiting []int            // usage rows written before their assistant message
	producer map[int]*zotItem // usage row → the assistant message of that call
	lastTime time.Time
	created  time.Time // CreatedAt decided by the previous import
	pending  []string

	offset  int64
	lines   int
	partial bool
	rows    int // readable rows seen (any type)

	usageLine, usageOnLine int // rowsOnLine's count

}

func (p *zotParser) problem(line int, format string, args ...any) {
	p.problems = append(p.problems, jsonl.Problem{Path: p.path, Line: line, Reason: fmt.Sprintf(format, args...)})
}

// note records what zot's own loader does too (see Parsed.Notes).
func (p *zotParser) note(line int, format string, args ...any) {
	p.notes = append(p.notes, jsonl.Problem{Path: p.path, Line: line, Reason: fmt.Sprintf(format, args...)})
}

// Parse reads one zot session file (see the package notes on zot above).
func (Format) Parse(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (parsed *jsonl.Parsed, err error) {
	defer func() {
		if r := recover(); r != nil {
			parsed, err = nil, fmt.Errorf("parse zot %s: internal error: %v", u.Path, r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse zot %s: %w", u.Path, err)
	}
	f, err := jsonl.Open(u.Path)
	if err != nil {
		return nil, fmt.Errorf("parse zot %s: %w", u.Path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("parse zot %s: %w", u.Path, err)
	}
	p := &zotParser{ctx: ctx, path: u.Path}
	if from.Offset > 0 {
		var rs zotResumeState
		if from.Offset > st.Size() || len(from.State) == 0 || json.Unmarshal(from.State, &rs) != nil || rs.V != 1 || rs.ID == "" {
			return nil, fmt.Errorf("parse zot %s: %w", u.Path, jsonl.ErrNotIncremental)
		}
		p.resumed = true
		p.id = rs.ID
		if rs.Meta != nil {
			p.meta, p.haveMeta = *rs.Meta, true
		}
		p.title, p.sum, p.lastTime, p.pending, p.created = rs.Title, rs.Usage, rs.LastTime, rs.Pending, rs.Created
		p.lines, p.lineBase, p.partial = rs.Lines, rs.Lines, rs.Partial
		if rs.Partial {
			p.lineBase-- // the first line read continues the last one consumed
		}
		if _, err := f.Seek(from.Offset, io.SeekStart); err != nil {
			return nil, fmt.Errorf("parse zot %s: %w", u.Path, err)
		}
	}
	p.offset = from.Offset
	if err := jsonl.ScanLines(f, from.Offset, p.line); err != nil {
		return nil, fmt.Errorf("parse zot %s: %w", u.Path, err)
	}
	if !p.resumed && p.rows == 0 && len(p.items) == 0 {
		reason := "no readable zot row"
		if st.Size() == 0 {
			reason = "empty file"
		}
		return nil, fmt.Errorf("parse zot %s: %w: %s", u.Path, sessiondb.ErrInvalid, reason)
	}
	return p.finish(u, from)
}

// line handles one physical line from scanLines.
func (p *zotParser) line(line []byte, n int, start, end int64, complete bool) error {
	if n%256 == 0 {
		if err := p.ctx.Err(); err != nil {
			return err
		}
	}
	lineNo := p.lineBase + n
	consume := func(partial bool) {
		p.offset, p.lines, p.partial = end, lineNo, partial
	}
	if jsonl.Oversized(line) {
		p.problem(lineNo, "oversized line: longer than %d bytes; skipped", jsonl.MaxLineSize)
		if complete {
			consume(false)
		}
		return nil
	}
	line = jsonl.TrimCR(line)
	if !complete {
		// A torn tail is left for the next import, unless it is already a
		// whole row that only misses its '\n' (zot writes long rows and
		// their newline in two calls).
		if len(line) == 0 {
			consume(true)
			return nil
		}
		clean := jsonl.ValidUTF8(line)
		if !jsonl.IsBlank(clean) && jsonscan.Valid(clean) && bytes.HasPrefix(bytes.TrimSpace(clean), []byte("{")) {
			p.row(line, lineNo)
			consume(true)
			return nil
		}
		p.problem(lineNo, "torn last line (%d bytes, no trailing newline, not valid JSON): not imported; it is read again once complete", len(line))
		return nil
	}
	consume(false)
	if len(line) == 0 {
		return nil
	}
	p.row(line, lineNo)
	return nil
}

var zotRowStart = []byte(`{"type":"`)

// row handles one non-empty line.
func (p *zotParser) row(line []byte, lineNo int) {
	if !utf8.Valid(line) {
		p.problem(lineNo, "invalid UTF-8: invalid bytes replaced with U+FFFD (as zot's decoder reads them)")
		line = jsonl.ValidUTF8(line)
	}
	if jsonl.IsBlank(line) {
		p.problem(lineNo, "blank line (whitespace only); skipped")
		return
	}
	if jsonscan.Valid(line) {
		p.dispatch(line, lineNo)
		return
	}
	// Damaged line: NUL padding, a torn fragment (possibly with the next row
	// glued onto it), or plain garbage. Recover whole rows it still holds.
	hasNUL := bytes.IndexByte(line, 0) >= 0
	body := bytes.TrimLeft(line, "\x00")
	var segs [][]byte
	for len(body) > 0 {
		next := bytes.Index(body[1:], zotRowStart)
		if next < 0 {
			segs = append(segs, body)
			break
		}
		segs = append(segs, body[:next+1])
		body = body[next+1:]
	}
	var good [][]byte
	for _, s := range segs {
		s = bytes.TrimRight(s, "\x00 \t")
		if len(s) > 0 && s[0] == '{' && jsonscan.Valid(s) {
			good = append(good, s)
		}
	}
	switch {
	case hasNUL && len(good) == 0:
		p.problem(lineNo, "NUL padding: line of %d bytes holds no readable row; skipped", len(line))
	case hasNUL:
		p.problem(lineNo, "NUL padding: %d row(s) recovered from the line", len(good))
	case len(good) == 0:
		p.problem(lineNo, "invalid JSON (torn or corrupt row, %d bytes); skipped", len(line))
	default:
		p.problem(lineNo, "invalid JSON: torn row with %d complete row(s) glued after it; the torn part is skipped, the complete row(s) recovered", len(good))
	}
	for _, s := range good {
		p.dispatch(s, lineNo)
	}
}

// dispatch handles one syntactically valid row.
func (p *zotParser) dispatch(line []byte, lineNo int) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		p.problem(lineNo, "not a zot row (%v); skipped", err)
		return
	}
	switch head.Type {
	case "meta":
		var row struct {
			Meta zotMeta `json:"meta"`
		}
		if err := json.Unmarshal(line, &row); err != nil {
			reason := "unreadable meta row"
			var pe *time.ParseError
			if errors.As(err, &pe) {
				reason = "bad time in meta row"
			}
			p.problem(lineNo, "%s (%v); ignored, as zot does", reason, err)
			return
		}
		p.rows++
		p.meta, p.haveMeta = row.Meta, true
		if row.Meta.ID != "" && !p.resumed {
			p.id = row.Meta.ID
		}
		// zot's listing (DescribeSessions) takes every meta row's title,
		// empty included: a model switch after a rename blanks the title
		// zot shows until the next rename. We show what zot shows.
		p.title = row.Meta.Title
	case "message":
		var row struct {
			Message json.RawMessage `json:"message"`
		}
		_ = json.Unmarshal(line, &row)
		p.rows++
		if it := p.message(row.Message, lineNo, "message"); it != nil {
			p.items = append(p.items, it)
			// zot writes a call's usage row just before the assistant
			// message the call produced.
			if it.entry.Role == "assistant" {
				for _, k := range p.awaiting {
					if p.producer == nil {
						p.producer = map[int]*zotItem{}
					}
					p.producer[k] = it
				}
			}
			p.awaiting = nil
		}
	case "usage":
		var row struct {
			Cumulative zotUsage `json:"cumulative"`
		}
		if err := json.Unmarshal(line, &row); err != nil {
			p.problem(lineNo, "unreadable usage row (%v); ignored, as zot does", err)
			return
		}
		p.rows++
		p.addUsage(row.Cumulative, lineNo)
	case "rename":
		var row struct {
			Title string `json:"title"`
		}
		if err := json.Unmarshal(line, &row); err != nil {
			p.problem(lineNo, "unreadable rename row (%v); ignored", err)
			return
		}
		p.rows++
		if row.Title != "" {
			p.title = row.Title
		}
	case "compaction":
		var row struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(line, &row); err != nil {
			p.problem(lineNo, "unreadable compaction row (%v); ignored, as zot does", err)
			return
		}
		p.rows++
		c := &zotComp{line: lineNo, at: len(p.items), createdAt: p.lastTime}
		for i, raw := range row.Messages {
			it := p.message(raw, lineNo, fmt.Sprintf("compaction message %d", i+1))
			if it == nil {
				continue
			}
			it.summary, it.entry.Summary = true, true
			if it.time.After(c.createdAt) {
				c.createdAt = it.time
			}
			if c.tokensBefore == 0 {
				var m struct {
					Meta map[string]string `json:"meta"`
				}
				if json.Unmarshal(raw, &m) == nil {
					c.tokensBefore, _ = strconv.ParseInt(m.Meta["tokens_before"], 10, 64)
				}
			}
			c.summary = append(c.summary, it)
		}
		p.comps = append(p.comps, c)
	case "":
		p.problem(lineNo, "row without type; skipped")
	default:
		p.problem(lineNo, "unknown row type %q; ignored, as zot does", head.Type)
	}
}

// message turns one message object into an item, or reports why zot's
// loader would not return it.
func (p *zotParser) message(body json.RawMessage, lineNo int, what string) *zotItem {
	if len(body) == 0 || string(body) == "null" {
		p.problem(lineNo, "%s without message object; skipped", what)
		return nil
	}
	msg, raws, err := zotHydrate(body)
	badTime := false
	if err != nil {
		var alt struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
			Time    json.RawMessage   `json:"time"`
		}
		if json.Unmarshal(body, &alt) != nil {
			p.problem(lineNo, "unreadable %s (%v); skipped, as zot does", what, err)
			return nil
		}
		badTime = true
		msg = zotMessage{Role: alt.Role, Content: zotHydrateBlocks(alt.Content)}
		raws = len(alt.Content)
		if len(msg.Content) > 0 {
			p.problem(lineNo, "bad time %s in %s: kept with the previous message's time (zot's loader drops this message)", clip(alt.Time, 60), what)
		}
	}
	if len(msg.Content) == 0 {
		p.problem(lineNo, "%s without readable content blocks; skipped, as zot does", what)
		return nil
	}
	if d := raws - len(msg.Content); d > 0 {
		p.problem(lineNo, "%s: %d content block(s) unreadable (for example image data that is not base64); zot's loader drops them, the stored body keeps them", what, d)
	}
	created := msg.Time
	if created.IsZero() || badTime {
		created = p.lastTime
		if created.IsZero() {
			created = p.meta.Started
		}
	} else if created.After(p.lastTime) {
		p.lastTime = created
	}
	it := &zotItem{
		line:    lineNo,
		entry:   sessiondb.Entry{Kind: sessiondb.KindMessage, Role: msg.Role, CreatedAt: created, Body: body},
		time:    msg.Time,
		badTime: badTime,
	}
	for _, b := range msg.Content {
		switch v := b.Value.(type) {
		case zotToolCallBlock:
			it.calls = append(it.calls, v.ID)
		case zotToolResultBlock:
			it.results = append(it.results, v.CallID)
		}
	}
	return it
}

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// addUsage records the increase of the cumulative totals as one Usage row.
func (p *zotParser) addUsage(c zotUsage, lineNo int) {
	d := sessiondb.Usage{
		Provider:         p.meta.Provider,
		Model:            p.meta.Model,
		InputTokens:      c.InputTokens - p.sum.InputTokens,
		OutputTokens:     c.OutputTokens - p.sum.OutputTokens,
		CacheReadTokens:  c.CacheReadTokens - p.sum.CacheReadTokens,
		CacheWriteTokens: c.CacheWriteTokens - p.sum.CacheWriteTokens,
		Cost:             c.CostUSD - p.sum.CostUSD,
		CreatedAt:        p.lastTime,
		// The row's line names it, so that a re-read of the file that
		// finds it again replaces it rather than counting it twice.
		CallID: zotCallID(lineNo, p.rowsOnLine(lineNo)),
	}
	// Make the running float sum land exactly on the cumulative value.
	for i := 0; i < 8 && p.sum.CostUSD+d.Cost != c.CostUSD; i++ {
		d.Cost = math.Nextafter(d.Cost, math.Inf(sign(c.CostUSD-(p.sum.CostUSD+d.Cost))))
	}
	if d.InputTokens == 0 && d.OutputTokens == 0 && d.CacheReadTokens == 0 && d.CacheWriteTokens == 0 && d.Cost == 0 {
		return // a repeated flush row
	}
	if d.InputTokens < 0 || d.OutputTokens < 0 || d.CacheReadTokens < 0 || d.CacheWriteTokens < 0 || d.Cost < 0 {
		p.problem(lineNo, "cumulative usage decreased; recorded as a negative correction so that the total equals zot's")
	}
	p.usage = append(p.usage, d)
	p.awaiting = append(p.awaiting, len(p.usage)-1)
	p.sum = zotUsage{
		InputTokens:      c.InputTokens,
		OutputTokens:     c.OutputTokens,
		CacheReadTokens:  c.CacheReadTokens,
		CacheWriteTokens: c.CacheWriteTokens,
		CostUSD:          p.sum.CostUSD + d.Cost,
	}
}

// zotCallID names the usage row read as the k-th row (0-based) of line n.
func zotCallID(n, k int) string {
	if k == 0 {
		return fmt.Sprintf("zot usage line %d", n)
	}
	return fmt.Sprintf("zot usage line %d.%d", n, k)
}

// rowsOnLine returns how many usage rows line n already gave (more than
// one only when rows glued onto a torn line were recovered).
func (p *zotParser) rowsOnLine(n int) int {
	if p.usageLine != n {
		p.usageLine, p.usageOnLine = n, 0
	}
	p.usageOnLine++
	return p.usageOnLine - 1
}

func sign(f float64) int {
	if f < 0 {
		return -1
	}
	return 1
}

// finish repairs tool-call pairs and assembles the Parsed.
func (p *zotParser) finish(u jsonl.Unit, from jsonl.Resume) (*jsonl.Parsed, error) {
	base := from.Entries
	var last *zotComp
	if len(p.comps) > 0 {
		last = p.comps[len(p.comps)-1]
	}
	if len(p.pending) > 0 && (len(p.items) > 0 || len(p.comps) > 0) {
		// The previous import ended with a tool call without result,
		// whose stub lives in a copy of the transcript (see below): what
		// follows decides where the stub goes, or whether the real
		// result came. The file is read whole again.
		return nil, fmt.Errorf("parse zot %s: %w: messages arrived after a tool call without result", p.path, jsonl.ErrNotIncremental)
	}

	// The transcript zot's loader sees: the latest compaction's messages and
	// the message rows after it (or, without compaction, every row; on a
	// resume only the new rows can change).
	var eff []*zotItem
	from0 := 0
	if last != nil {
		eff = append(eff, last.summary...)
		from0 = last.at
	}
	eff = append(eff, p.items[from0:]...)
	eff = p.repair(eff)
	pending := p.pending
	if last != nil || len(p.items) > 0 {
		pending = nil
		if n := len(eff); n > 0 && eff[n-1].stub {
			pending = eff[n-1].results
		}
	}
	// Rebuild the summary and entries with the stubs in place.
	entries := make([]sessiondb.Entry, 0, len(p.items)+2)
	number := map[*zotItem]int{}
	for _, it := range p.items[:from0] {
		entries = append(entries, it.entry)
		number[it] = base + len(entries)
	}
	// A stub for the last message's tool calls is not a log entry: the
	// result may still come (zot writes it once the tool returns), and a
	// log entry cannot be taken back. The transcript then ends with the
	// stub through a compaction holding a copy of every transcript
	// message (a view), which the next import replaces.
	var tail *zotItem
	if n := len(eff); n > 0 && eff[n-1].stub && !eff[n-1].summary {
		tail = eff[n-1]
	}
	var summary []sessiondb.Entry
	for _, it := range eff {
		if it == tail {
			continue
		}
		if it.summary {
			summary = append(summary, it.entry)
		} else {
			entries = append(entries, it.entry)
			number[it] = base + len(entries)
		}
	}
	for k, it := range p.producer {
		p.usage[k].Seq = int64(number[it])
	}

	out := &jsonl.Parsed{Unit: u, Entries: entries, Usage: p.usage, Problems: p.problems, Notes: p.notes, Offset: p.offset}
	for _, c := range p.comps {
		var sum []sessiondb.Entry
		if c == last {
			sum = summary
		} else {
			for _, it := range c.summary {
				sum = append(sum, it.entry)
			}
		}
		details, _ := json.Marshal(map[string]any{"source": "zot compaction row", "line": c.line})
		out.Compactions = append(out.Compactions, sessiondb.Compaction{
			AtSeq:        int64(base + c.at),
			KeepFromSeq:  int64(base + c.at + 1),
			Summary:      sum,
			TokensBefore: c.tokensBefore,
			Details:      details,
			CreatedAt:    c.createdAt,
		})
	}

	if tail != nil && p.resumed {
		// The copy needs the whole transcript: read the file whole.
		return nil, fmt.Errorf("parse zot %s: %w: the last tool call has no result", p.path, jsonl.ErrNotIncremental)
	}
	if tail != nil {
		var view []sessiondb.Entry
		for _, it := range eff {
			e := it.entry
			e.Summary = true
			view = append(view, e)
		}
		details, _ := json.Marshal(map[string]any{"source": "zot", "reason": "the last tool call has no result yet; zot's loader adds the stub result shown last, and the next import replaces this copy"})
		c := sessiondb.Compaction{KeepFromSeq: int64(base + len(entries) + 1), Summary: view, Details: details, CreatedAt: tail.entry.CreatedAt}
		if last != nil {
			c.TokensBefore = last.tokensBefore
		}
		out.Compactions = append(out.Compactions, c)
	}

	// Session metadata.
	id := p.id
	if id == "" {
		id = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(p.path), ".jsonl"), zotExt)
		p.problem(0, "no meta row with a session id; the session ID %q is taken from the file name", id)
		out.Problems = p.problems
		out.Notes = p.notes
	}
	s := sessiondb.Session{ID: id, Title: p.title}
	if p.haveMeta {
		cwd := p.meta.CWD
		attrs, _ := json.Marshal(zotAttrs{CWD: &cwd, Model: p.meta.Model, Provider: p.meta.Provider, Version: p.meta.Version})
		s.Attrs = attrs
		s.CreatedAt = p.meta.Started
		s.ParentID = p.meta.Parent
		s.ForkSeq = int64(p.meta.ForkPoint)
	}
	if s.CreatedAt.IsZero() {
		s.CreatedAt = p.created
	}
	if s.CreatedAt.IsZero() {
		if t, err := time.Parse("20060102-150405", zotNameTime(p.path)); err == nil {
			s.CreatedAt = t
		} else if len(entries) > 0 {
			s.CreatedAt = entries[0].CreatedAt
		}
	}
	s.UpdatedAt = p.lastTime
	if s.UpdatedAt.Before(s.CreatedAt) {
		s.UpdatedAt = s.CreatedAt
	}
	out.Session = s

	rs := zotResumeState{V: 1, ID: id, Title: p.title, Usage: p.sum, LastTime: p.lastTime, Created: s.CreatedAt, Lines: p.lines, Partial: p.partial, Pending: pending}
	if p.haveMeta {
		m := p.meta
		rs.Meta = &m
	}
	out.ResumeState, _ = json.Marshal(rs)
	return out, nil
}

func zotNameTime(path string) string {
	b := filepath.Base(path)
	if len(b) >= 15 {
		return b[:15]
	}
	return ""
}

// repair applies zot's repairToolUseResultPairs to the transcript.
func (p *zotParser) repair(msgs []*zotItem) []*zotItem {
	out := make([]*zotItem, 0, len(msgs)+2)
	for i, m := range msgs {
		out = append(out, m)
		if m.entry.Role != "assistant" || len(m.calls) == 0 {
			continue
		}
		var next *zotItem
		if i+1 < len(msgs) && msgs[i+1].entry.Role == "tool" {
			next = msgs[i+1]
		}
		have := map[string]bool{}
		if next != nil {
			for _, id := range next.results {
				have[id] = true
			}
		}
		var missing []string
		for _, id := range m.calls {
			if !have[id] {
				missing = append(missing, id)
			}
		}
		if len(missing) == 0 {
			continue
		}
		stubs := zotStubBlocks(missing)
		if next != nil {
			body, ok := appendToArray(next.entry.Body, "content", stubs)
			if ok {
				next.entry.Body = body
				next.results = append(next.results, missing...)
				p.note(m.line, "tool call(s) %s without result: stub result(s) merged into the next tool message, as zot's loader does", strings.Join(missing, ", "))
				continue
			}
		}
		// zot's stub message carries the assistant's time as decoded,
		// zero included. Only for a message whose time did not parse
		// (which zot drops, so it makes no stub) is there nothing to
		// copy; the entry's time stands in.
		t := m.time
		if m.badTime {
			t = m.entry.CreatedAt
		}
		tb, _ := t.MarshalJSON()
		body := []byte(`{"role":"tool","content":[` + string(stubs) + `],"time":` + string(tb) + `}`)
		out = append(out, &zotItem{
			entry:   sessiondb.Entry{Kind: sessiondb.KindMessage, Role: "tool", CreatedAt: m.entry.CreatedAt, Body: body, Summary: m.summary},
			time:    t,
			results: missing,
			stub:    true,
			summary: m.summary,
			line:    m.line,
		})
		p.note(m.line, "tool call(s) %s without result: a stub tool message was added, as zot's loader does", strings.Join(missing, ", "))
	}
	return out
}

// zotStubBlocks returns the comma-separated wire form of stub results.
func zotStubBlocks(ids []string) []byte {
	var b bytes.Buffer
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		q, _ := json.Marshal(id)
		b.WriteString(`{"call_id":`)
		b.Write(q)
		b.WriteString(`,"content":[{"text":"` + zotStubText + `"}],"is_error":true}`)
	}
	return b.Bytes()
}

// valueSpan returns the byte range of the value of the last top-level key of
// JSON object obj that matches key the way encoding/json does (exact match,
// else case-insensitive).
func valueSpan(obj []byte, key string) (start, end int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, 0, false
	}
	exact := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return 0, 0, false
		}
		k, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return 0, 0, false
		}
		e := int(dec.InputOffset())
		switch {
		case k == key:
			start, end, ok, exact = e-len(raw), e, true, true
		case !exact && strings.EqualFold(k, key):
			start, end, ok = e-len(raw), e, true
		}
	}
	return start, end, ok
}

// appendToArray appends the comma-separated JSON values elems to the array
// stored under key in obj, leaving every other byte as it was. A null or
// missing array is not touched (ok false).
func appendToArray(obj []byte, key string, elems []byte) ([]byte, bool) {
	start, end, ok := valueSpan(obj, key)
	if !ok || obj[start] != '[' || obj[end-1] != ']' {
		return nil, false
	}
	j := end - 1 // insert after the last element, before any whitespace
	for j > start+1 && strings.IndexByte(" \t\r\n", obj[j-1]) >= 0 {
		j--
	}
	out := make([]byte, 0, len(obj)+len(elems)+1)
	out = append(out, obj[:j]...)
	if j > start+1 {
		out = append(out, ',')
	}
	out = append(out, elems...)
	out = append(out, obj[j:]...)
	return out, true
}

// replaceValue replaces the value under key in obj (adding the key when it
// is missing), leaving every other byte as it was.
func replaceValue(obj []byte, key string, val []byte) []byte {
	start, end, ok := valueSpan(obj, key)
	if ok {
		out := make([]byte, 0, len(obj)+len(val))
		out = append(out, obj[:start]...)
		out = append(out, val...)
		return append(out, obj[end:]...)
	}
	i := bytes.LastIndexByte(obj, '}')
	k, _ := json.Marshal(key)
	sep := ","
	if len(bytes.TrimSpace(obj[1:i])) == 0 {
		sep = ""
	}
	out := append([]byte{}, obj[:i]...)
	out = append(out, sep...)
	out = append(out, k...)
	out = append(out, ':')
	out = append(out, val...)
	return append(out, obj[i:]...)
}

// ---- Export ----

// Export writes session id as a zot session file under dir, at
// sessions/<hex(sha256(cwd))[:16]>/<YYYYMMDD-HHMMSS>-<id8>.jsonl, where cwd,
// model, provider and version come from the session's Attrs. It writes the
// meta row, one message row per message of the effective transcript (entries
// of other kinds have no zot representation and are left out), one usage row
// with the session's usage totals (reasoning tokens have no zot field) and a
// rename row when the session has a title. Bodies are written as stored;
// a body zot could not load is adapted: string content becomes one text
// block, an unparsable time is replaced by the entry's time, and a
// multi-line body is compacted onto one line.
func (z Format) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	return jsonl.ExportDir(ctx, z, s, id, dir)
}

// ExportFiles implements jsonl.Exporter.
func (Format) ExportFiles(ctx context.Context, s sessiondb.Store, id string) ([]jsonl.File, error) {
	full, err := s.LoadFull(ctx, id, sessiondb.LoadOptions{})
	if err != nil {
		return nil, fmt.Errorf("export zot %s: %w", id, err)
	}
	totals, err := s.UsageTotals(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("export zot %s: %w", id, err)
	}
	sess := full.Session
	var attrs struct {
		CWD      string `json:"cwd"`
		Model    string `json:"model"`
		Provider string `json:"provider"`
		Version  string `json:"version"`
	}
	if len(sess.Attrs) > 0 {
		_ = json.Unmarshal(sess.Attrs, &attrs)
	}
	if attrs.Version == "" {
		attrs.Version = "sessiondb"
	}
	meta := zotMeta{
		ID: sess.ID, CWD: attrs.CWD, Model: attrs.Model, Provider: attrs.Provider,
		Started: sess.CreatedAt.UTC(), Version: attrs.Version,
		Parent: sess.ParentID, ForkPoint: int(sess.ForkSeq),
	}

	var buf bytes.Buffer
	row := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
		return nil
	}
	if err := row(struct {
		Type string   `json:"type"`
		Meta *zotMeta `json:"meta"`
	}{"meta", &meta}); err != nil {
		return nil, fmt.Errorf("export zot %s: %w", id, err)
	}
	for _, e := range full.Transcript {
		if e.Kind != "" && e.Kind != sessiondb.KindMessage {
			continue
		}
		body, err := zotWireBody(e)
		if err != nil {
			return nil, fmt.Errorf("export zot %s: entry %d: %w", id, e.Seq, err)
		}
		buf.WriteString(`{"type":"message","message":`)
		buf.Write(body)
		buf.WriteString("}\n")
	}
	if totals.Calls > 0 {
		u := zotUsage{totals.InputTokens, totals.OutputTokens, totals.CacheReadTokens, totals.CacheWriteTokens, totals.Cost}
		if err := row(struct {
			Type       string    `json:"type"`
			Usage      *zotUsage `json:"usage"`
			Cumulative *zotUsage `json:"cumulative"`
		}{"usage", &u, &u}); err != nil {
			return nil, fmt.Errorf("export zot %s: %w", id, err)
		}
	}
	if sess.Title != "" {
		if err := row(map[string]string{"type": "rename", "title": sess.Title}); err != nil {
			return nil, fmt.Errorf("export zot %s: %w", id, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("export zot %s: %w", id, err)
	}

	sum := sha256.Sum256([]byte(attrs.CWD))
	name := sess.CreatedAt.UTC().Format("20060102-150405") + "-" + zotFileID(sess.ID) + ".jsonl"
	return []jsonl.File{jsonl.BytesFile("sessions/"+hex.EncodeToString(sum[:8])+"/"+name, buf.Bytes())}, nil
}

// zotFileID is the id part of an exported file name: zot's uuid[:8] for
// UUID-like IDs, else the ID with unsafe characters replaced.
func zotFileID(id string) string {
	if len(id) >= 8 {
		if _, err := hex.DecodeString(id[:8]); err == nil {
			return id[:8]
		}
	}
	if id == "" {
		return "session"
	}
	return jsonl.FileSafe(id, 64)
}

// zotWireBody returns the message object to write for e, such that zot's
// loader reads it back.
func zotWireBody(e sessiondb.Entry) ([]byte, error) {
	body := []byte(e.Body)
	if bytes.ContainsAny(body, "\r\n") {
		var c bytes.Buffer
		if err := json.Compact(&c, body); err != nil {
			return nil, err
		}
		body = c.Bytes()
	}
	msg, _, err := zotHydrate(body)
	if err == nil && len(msg.Content) > 0 {
		return body, nil
	}
	var alt struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Time    json.RawMessage `json:"time"`
	}
	if json.Unmarshal(body, &alt) != nil || alt.Role == "" {
		return nil, fmt.Errorf("%w: body is not a message object zot can load", sessiondb.ErrInvalid)
	}
	fixed := body
	var text string
	if json.Unmarshal(alt.Content, &text) == nil {
		blocks, _ := json.Marshal([]zotTextBlock{{text}})
		fixed = replaceValue(fixed, "content", blocks)
	}
	if _, _, err := zotHydrate(fixed); err != nil {
		tb, _ := e.CreatedAt.MarshalJSON()
		fixed = replaceValue(fixed, "time", tb)
	}
	msg, _, err = zotHydrate(fixed)
	if err != nil || len(msg.Content) == 0 {
		return nil, fmt.Errorf("%w: message has no content zot can load", sessiondb.ErrInvalid)
	}
	return fixed, nil
}

// Understand implements jsonl.MessageReader. A zot entry is one message
// whose content blocks are untyped: {"text"}, a call {"id", "name",
// "arguments"}, and a tool message answers several calls with {"call_id",
// "content", "is_error"} blocks, which jsonl.MessageObject reads.
func (Format) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	if obj["role"] == nil {
		return jsonl.Extracted(e)
	}
	return jsonl.MessageObject(obj)
}
