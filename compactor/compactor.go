package compactor

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// DefaultMaxAttempts bounds how many times Compact re-reads the session
// after a sequence conflict.
const DefaultMaxAttempts = 5

// SummaryPrefix starts the text of the default summary message.
const SummaryPrefix = jsonl.SummaryHeading + "\n\n"

// DetailsCompactor is the "compactor" value this package writes into the
// details of its compactions; it recognises its own compactions by it.
const DetailsCompactor = "sessiondb/compactor"

// Compactor compacts sessions of a Store. Its fields are read, never
// written, by its methods: one Compactor may serve many goroutines.
type Compactor struct {
	Store      sessiondb.Store
	Summarizer Summarizer
	Policy     Policy
	// MaxAttempts bounds re-reads after a sequence conflict (an append
	// arrived while summarizing). Default DefaultMaxAttempts.
	MaxAttempts int
	// SummaryMessage builds the body of the summary message from the
	// summary text. Default: FormatSummaryMessage for the session's source
	// format (DefaultSummaryMessage for sessions of no agent's own file
	// format).
	SummaryMessage func(text string) json.RawMessage
}

// DefaultSummaryMessage is {"role":"user","content":SummaryPrefix+text}.
func DefaultSummaryMessage(text string) json.RawMessage {
	b, _ := json.Marshal(struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}{"user", SummaryPrefix + text})
	return b
}

// Result reports what Compact did.
type Result struct {
	// Compacted is true when a compaction was recorded.
	Compacted bool
	// Reason says why nothing was done (empty when Compacted).
	Reason string
	// Session is the session after the commit (as read, when nothing was
	// done).
	Session sessiondb.Session
	// Compaction is the recorded compaction (its ID is 0 if the store did
	// not list it back).
	Compaction sessiondb.Compaction
	// TokensBefore and TokensAfter are the estimated transcript sizes.
	TokensBefore, TokensAfter int64
	// Dropped is the number of transcript entries summarized away.
	Dropped int
	// Attempts counts reads of the session (1 without conflicts);
	// Summarized counts summarizer calls (less than Attempts when a
	// summary was reused after a conflict).
	Attempts, Summarized int
}

// Details is the JSON this package stores in Compaction.Details.
type Details struct {
	Compactor  string `json:"compactor"`
	Summarizer string `json:"summarizer"`
	Model      string `json:"model"`
	// Anchor is the number of leading Summary entries that are verbatim
	// copies of the anchor; the summary message follows them.
	Anchor int `json:"anchor"`
	// AnchorSeqs are the log Seqs of those copies (0 when unknown).
	AnchorSeqs []int64 `json:"anchor_seqs"`
	// Tail is the number of Summary entries after the summary message:
	// verbatim copies of the start of the kept tail, which lay among the
	// summary entries of the compaction before (Claude Code, Codex and pi
	// sessions only; see the package doc).
	Tail int `json:"tail,omitempty"`
	// Dropped counts the transcript entries summarized away;
	// DroppedFromSeq and DroppedToSeq bound the log entries among them
	// (0 when none).
	Dropped        int   `json:"dropped"`
	DroppedFromSeq int64 `json:"dropped_from_seq"`
	DroppedToSeq   int64 `json:"dropped_to_seq"`
	// Incremental is true when a previous summary of this package was
	// extended; PreviousCompaction is the compaction it belonged to.
	Incremental        bool  `json:"incremental"`
	PreviousCompaction int64 `json:"previous_compaction,omitempty"`
	Policy             struct {
		KeepTurns  int `json:"keep_turns"`
		KeepTokens int `json:"keep_tokens"`
		Anchor     int `json:"anchor"`
	} `json:"policy"`
	Attempts int `json:"attempts"`
	// SplitTurn, when the kept part starts inside a turn (Plan.Split),
	// says which turn: its beginning was summarized apart.
	SplitTurn *SplitTurn `json:"split_turn,omitempty"`
	// ReadFiles and ModifiedFiles are the files the summarized part read
	// (and did not change) and changed, with those of the previous
	// compaction it extends (files.go; pi's readFiles and modifiedFiles).
	ReadFiles     []string `json:"read_files,omitempty"`
	ModifiedFiles []string `json:"modified_files,omitempty"`
}

// SplitTurn describes the turn a compaction cut into (Details.SplitTurn).
type SplitTurn struct {
	// Prompt is the first line, cut to 200 bytes, of the user prompt that
	// began the turn, and PromptSeq its log Seq (0 for a copy among the
	// summary entries); both are empty when the turn began before the
	// part summarized now (in the previous summary).
	PromptSeq int64  `json:"prompt_seq"`
	Prompt    string `json:"prompt"`
	// Summarized counts the turn's entries summarized apart (its
	// beginning, the prompt included); KeptFromSeq is the first entry of
	// the turn kept verbatim.
	Summarized  int   `json:"summarized"`
	KeptFromSeq int64 `json:"kept_from_seq"`
}

// TurnContextHeading starts the section of a summary that covers the
// beginning of a turn the kept part starts inside (a split turn, as pi
// calls it); the history's summary comes before it.
const TurnContextHeading = "**Turn context (split turn):**"

// noHistory is the history's summary when a split turn's beginning is all
// that is summarized (pi writes "No prior history.").
const noHistory = "No earlier history."

// ParseDetails decodes the details of a compaction made by this package.
// ok is false for other compactions (truncations, SetHistory, other tools).
func ParseDetails(c sessiondb.Compaction) (d Details, ok bool) {
	if len(c.Details) == 0 || json.Unmarshal(c.Details, &d) != nil || d.Compactor != DetailsCompactor {
		return Details{}, false
	}
	if d.Anchor < 0 || d.Tail < 0 || d.Anchor+1+d.Tail > len(c.Summary) {
		return Details{}, false
	}
	return d, true
}

// Compact summarizes what the policy drops from session id's transcript
// and records one compaction. When nothing would be dropped it writes
// nothing and returns a Result with Compacted false and a Reason. A
// summarizer error leaves the session unchanged.
func (c *Compactor) Compact(ctx context.Context, id string) (Result, error) {
	return c.compact(ctx, id, -1)
}

// MaybeCompact is Compact for an agent loop to call every turn: it compacts
// only when the estimated transcript exceeds threshold tokens, and
// otherwise returns Compacted false with ReasonBelowThreshold.
func (c *Compactor) MaybeCompact(ctx context.Context, id string, threshold int64) (Result, error) {
	return c.compact(ctx, id, max(threshold, 0))
}

// snapshot is one consistent read of a session.
type snapshot struct {
	session    sessiondb.Session
	transcript []sessiondb.Entry
	infos      []bodyInfo
	current    *sessiondb.Compaction // nil without compaction
	details    Details
	ours       bool // current was made by this package
	prevIdx    int  // index of our previous summary message, -1 when none
}

func (c *Compactor) read(ctx context.Context, id string) (*snapshot, error) {
	// LoadFull first, Compactions second: if a commit lands in between,
	// the sequence we expect is stale and our commit conflicts, so the
	// compaction list is never trusted beyond the snapshot.
	full, err := c.Store.LoadFull(ctx, id, sessiondb.LoadOptions{})
	if err != nil {
		return nil, fmt.Errorf("compact %s: load: %w", id, err)
	}
	comps, err := c.Store.Compactions(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("compact %s: list compactions: %w", id, err)
	}
	s := &snapshot{session: full.Session, transcript: full.Transcript, prevIdx: -1}
	s.infos = inspectAll(full.Session.SourceFormat, s.transcript)
	lead := 0
	for lead < len(s.transcript) && s.transcript[lead].Seq == 0 {
		lead++
	}
	if len(comps) > 0 {
		cur := comps[len(comps)-1]
		if len(cur.Summary) != lead {
			return nil, errStale
		}
		s.current = &cur
		if d, ok := ParseDetails(cur); ok {
			s.details, s.ours, s.prevIdx = d, true, d.Anchor
		}
	} else if lead != 0 {
		return nil, errStale
	}
	return s, nil
}

// ErrUnfitSummary is returned (wrapped) when the summary message a
// Compactor.SummaryMessage builds for a Claude Code, Codex or pi session
// is not a user message of that format with text: its readers and
// cross-format export would drop or refuse it. Nothing is written. It
// wraps sessiondb.ErrInvalid.
var ErrUnfitSummary = fmt.Errorf("summary message not in the session's format: %w", sessiondb.ErrInvalid)

// fitSummary checks that the summary message of a session of a format
// read through Understand is a user message in the format's envelope (a
// Claude Code "user" line, a Codex response_item message, a pi "message"
// line: what the cross-format export reads; a bare message object it
// refuses or leaves out; a Gemini CLI user record with an id; a Qwen Code
// "user" record; a Copilot CLI user.message event) and reads as a user
// message with text.
func fitSummary(format string, e sessiondb.Entry) error {
	if !ownShape(format) {
		return nil
	}
	var env struct {
		Type    string `json:"type"`
		Message *struct {
			Role string `json:"role"`
		} `json:"message"`
		Payload *struct {
			Type string `json:"type"`
			Role string `json:"role"`
		} `json:"payload"`
		ID      string          `json:"id"`
		Content json.RawMessage `json:"content"`
		Info    *struct {
			Role string `json:"role"`
		} `json:"info"`
		Role  string          `json:"role"`
		Parts json.RawMessage `json:"parts"`
		Data  *struct {
			Content string `json:"content"`
		} `json:"data"`
	}
	enveloped := false
	if json.Unmarshal(e.Body, &env) == nil {
		switch format {
		case jsonlimport.FormatClaudeCode:
			enveloped = env.Type == "user" && env.Message != nil && env.Message.Role == "user"
		case jsonlimport.FormatCodex:
			enveloped = env.Type == "response_item" && env.Payload != nil && env.Payload.Type == "message" && env.Payload.Role == "user"
		case jsonlimport.FormatPi:
			enveloped = env.Type == "message" && env.Message != nil && env.Message.Role == "user"
		case jsonlimport.FormatGemini:
			enveloped = env.Type == "user" && env.ID != "" && len(env.Content) > 0
		case jsonlimport.FormatQwen:
			enveloped = env.Type == "user" && env.Message != nil && env.Message.Role == "user"
		case jsonlimport.FormatOpencode:
			enveloped = env.Info != nil && env.Info.Role == "user"
		case jsonlimport.FormatCrush, jsonlimport.FormatOpencodeGo:
			enveloped = env.Role == "user" && len(env.Parts) > 0
		case jsonlimport.FormatCopilot:
			enveloped = env.Type == "user.message" && env.Data != nil
		}
	}
	m := jsonlimport.Understand(format, e)
	if !enveloped || m.Role != "user" || m.Bookkeeping || strings.TrimSpace(m.Text) == "" {
		return fmt.Errorf("%w: a %s session needs a user message of its own shape (see FormatSummaryMessage), not %.200s", ErrUnfitSummary, format, e.Body)
	}
	return nil
}

// errStale: the compaction list and the transcript were read from
// different revisions; read again.
var errStale = errors.New("session changed between reads")

func (c *Compactor) compact(ctx context.Context, id string, threshold int64) (Result, error) {
	if c.Store == nil || c.Summarizer == nil {
		return Result{}, fmt.Errorf("compact %s: compactor needs a Store and a Summarizer", id)
	}
	attempts := c.MaxAttempts
	if attempts <= 0 {
		attempts = DefaultMaxAttempts
	}
	count := c.Policy.counter()
	var (
		cacheKey   [32]byte
		cached     *summaries
		summarized int
		lastErr    error
	)
	for attempt := 1; attempt <= attempts; attempt++ {
		snap, err := c.read(ctx, id)
		if errors.Is(err, errStale) {
			lastErr = err
			continue
		}
		if err != nil {
			return Result{}, err
		}
		res := Result{Session: snap.session, Attempts: attempt, Summarized: summarized}
		for _, e := range snap.transcript {
			res.TokensBefore += int64(count(e))
		}
		if threshold >= 0 && res.TokensBefore <= threshold {
			res.Reason = ReasonBelowThreshold
			return res, nil
		}
		pl := plan(snap.transcript, snap.infos, c.Policy, snap.prevIdx)
		if !pl.Drop {
			res.Reason = pl.Reason
			return res, nil
		}
		// A split turn whose prompt is among the dropped entries is
		// summarized apart from the history before it (pi's split turn);
		// one that began earlier (its beginning in the previous summary,
		// or the anchor) continues the history: one summary.
		req, prefix := Request{SessionID: id, Format: snap.session.SourceFormat}, Request{}
		apart := pl.Split && pl.TurnStart != snap.prevIdx && snap.infos[pl.TurnStart].userRequest()
		if apart {
			prefix = Request{SessionID: id, Format: snap.session.SourceFormat, TurnPrefix: true}
		}
		dropped := snap.transcript[pl.Anchor:pl.KeepFrom]
		incremental := false
		for i, e := range dropped {
			if pl.Anchor+i == snap.prevIdx {
				req.Previous = summaryText(e.Body)
				if info := snap.infos[pl.Anchor+i]; info.understood {
					req.Previous = strings.TrimPrefix(info.text, SummaryPrefix)
				}
				// The file lists are carried in the details, not the text.
				req.Previous = withoutFileSections(req.Previous)
				incremental = true
				continue
			}
			if apart && pl.Anchor+i >= pl.TurnStart {
				prefix.Entries = append(prefix.Entries, e)
				continue
			}
			req.Entries = append(req.Entries, e)
		}

		key := requestKey(req, prefix)
		var sum summaries
		if cached != nil && key == cacheKey {
			sum = *cached
		} else {
			var calls int
			sum, calls, err = c.summarize(ctx, req, prefix)
			summarized += calls
			res.Summarized = summarized
			if err != nil {
				return Result{}, fmt.Errorf("compact %s: summarize: %w", id, err)
			}
			cached, cacheKey = &sum, key
		}

		comp := c.build(snap, pl, sum, req, prefix, incremental, attempt)
		if err := fitSummary(snap.session.SourceFormat, comp.Summary[pl.Anchor]); err != nil {
			return Result{}, fmt.Errorf("compact %s: %w", id, err)
		}
		for _, e := range comp.Summary {
			res.TokensAfter += int64(count(e))
		}
		for _, e := range snap.transcript[firstLog(snap.transcript, pl.KeepFrom):] {
			res.TokensAfter += int64(count(e))
		}
		comp.TokensBefore, comp.TokensAfter = res.TokensBefore, res.TokensAfter
		if res.TokensAfter >= res.TokensBefore {
			res.Reason = ReasonNoGain
			return res, nil
		}

		commit := sessiondb.Commit{
			ExpectSequence: sessiondb.Expect(snap.session.Sequence),
			Compactions:    []sessiondb.Compaction{comp},
		}
		commit.Usage = sum.usage
		sess, err := c.Store.Commit(ctx, id, commit)
		if errors.Is(err, sessiondb.ErrConflict) {
			lastErr = err
			continue
		}
		if err != nil {
			return Result{}, fmt.Errorf("compact %s: commit: %w", id, err)
		}
		res.Compacted = true
		res.Session = sess
		res.Dropped = pl.KeepFrom - pl.Anchor
		res.Compaction = c.recorded(ctx, id, comp)
		return res, nil
	}
	return Result{}, fmt.Errorf("compact %s: gave up after %d attempts: %w", id, attempts, lastErr)
}

// summaries are what the Summarizer wrote for one compaction: the
// history's summary and, for a split turn, the summary of the turn's
// beginning, with the usage rows of the calls.
type summaries struct {
	history    string
	turn       string
	summarizer string
	model      string
	usage      []sessiondb.Usage
}

// summarize asks the Summarizer for the summary of req (the history) and,
// for a split turn, of prefix (the turn's beginning) apart (build joins
// them as pi does: the history's summary, then the turn context under
// TurnContextHeading). A history with no new entry is the previous
// summary as it was (no call). It returns the number of calls made.
func (c *Compactor) summarize(ctx context.Context, req, prefix Request) (summaries, int, error) {
	calls := 0
	ask := func(r Request) (Summary, error) {
		calls++
		s, err := c.Summarizer.Summarize(ctx, r)
		if err == nil && strings.TrimSpace(s.Text) == "" {
			err = errors.New("empty summary")
		}
		return s, err
	}
	var out summaries
	took := func(s Summary) {
		if out.summarizer == "" {
			out.summarizer, out.model = s.Summarizer, s.Model
		}
		if s.Usage != nil {
			out.usage = append(out.usage, *s.Usage)
		}
	}
	switch {
	case len(req.Entries) > 0 || !prefix.TurnPrefix || strings.Contains(req.Previous, TurnContextHeading):
		// (A previous summary that holds a turn context is summarized
		// again, so that turn contexts do not nest.)
		s, err := ask(req)
		if err != nil {
			return summaries{}, calls, err
		}
		took(s)
		out.history = s.Text
	case req.Previous != "":
		out.history = req.Previous
	default:
		out.history = noHistory
	}
	if prefix.TurnPrefix {
		s, err := ask(prefix)
		if err != nil {
			return summaries{}, calls, err
		}
		took(s)
		out.turn = s.Text
	}
	return out, calls, nil
}

// SplitTurnLine is the sentence that tells which turn a compaction cut
// into, as its summary says it after TurnContextHeading.
func SplitTurnLine(st SplitTurn) string { return turnLine(&st) }

// turnLine is the sentence that tells, after TurnContextHeading, which
// turn the kept part starts inside.
func turnLine(st *SplitTurn) string {
	if st.Prompt != "" {
		at := ""
		if st.PromptSeq > 0 {
			at = fmt.Sprintf("#%d ", st.PromptSeq)
		}
		return fmt.Sprintf("The kept part starts inside the turn begun by the user prompt %s%q; its first %s are summarized here, the rest is kept from #%d.",
			at, st.Prompt, plural(st.Summarized, "entry", "entries"), st.KeptFromSeq)
	}
	return fmt.Sprintf("The kept part starts inside a turn begun before the part summarized now: the summary above holds its beginning and the %s since, the rest is kept from #%d.",
		plural(st.Summarized, "entry", "entries"), st.KeptFromSeq)
}

// build assembles the compaction: the anchor copied verbatim, then the
// summary message; the tail is kept from the first kept log entry.
func (c *Compactor) build(snap *snapshot, pl Plan, sum summaries, req, prefix Request, incremental bool, attempt int) sessiondb.Compaction {
	t := snap.transcript
	msg := c.SummaryMessage
	if msg == nil {
		format := snap.session.SourceFormat
		msg = func(text string) json.RawMessage { return FormatSummaryMessage(format, text) }
	}
	d := Details{
		Compactor:   DetailsCompactor,
		Summarizer:  sum.summarizer,
		Model:       sum.model,
		Anchor:      pl.Anchor,
		AnchorSeqs:  make([]int64, 0, pl.Anchor),
		Dropped:     pl.KeepFrom - pl.Anchor,
		Incremental: incremental,
		Attempts:    attempt,
	}
	if d.Summarizer == "" {
		d.Summarizer = "custom"
	}
	if incremental && snap.current != nil {
		d.PreviousCompaction = snap.current.ID
	}
	d.Policy.KeepTurns, d.Policy.KeepTokens, d.Policy.Anchor = c.Policy.KeepTurns, c.Policy.KeepTokens, c.Policy.Anchor
	var summary []sessiondb.Entry
	for i, e := range t[:pl.Anchor] {
		seq := e.Seq
		if seq == 0 && snap.ours && i < len(snap.details.AnchorSeqs) {
			seq = snap.details.AnchorSeqs[i]
		}
		d.AnchorSeqs = append(d.AnchorSeqs, seq)
		summary = append(summary, sessiondb.Entry{Kind: e.Kind, Role: e.Role, CreatedAt: e.CreatedAt, Body: e.Body})
	}
	// The turn a split cut into, and the files the summarized part read
	// and changed (with the previous compaction's), go into the details
	// and the summary text.
	text := sum.history
	format := snap.session.SourceFormat
	if pl.Split {
		st := &SplitTurn{Summarized: len(prefix.Entries), KeptFromSeq: keepSeq(t, pl.KeepFrom, snap.session.LastSeq)}
		if prefix.TurnPrefix {
			p := t[pl.TurnStart]
			st.PromptSeq = p.Seq
			st.Prompt = truncate(firstLine(infoText(snap.infos[pl.TurnStart], p.Body)), OfflineRequestBytes)
		} else {
			st.Summarized = len(req.Entries)
		}
		d.SplitTurn = st
		text += "\n\n---\n\n" + TurnContextHeading + " " + turnLine(st)
		if sum.turn != "" {
			text += "\n\n" + sum.turn
		}
	}
	ops := newFileOps()
	if incremental && snap.ours {
		for _, f := range snap.details.ReadFiles {
			ops.read[f] = true
		}
		for _, f := range snap.details.ModifiedFiles {
			ops.changed[f] = true
		}
	}
	for _, r := range []Request{req, prefix} {
		for _, e := range r.Entries {
			ops.add(format, e)
		}
	}
	d.ReadFiles, d.ModifiedFiles = ops.lists()
	text += fileSections(d.ReadFiles, d.ModifiedFiles)
	summary = append(summary, sessiondb.Entry{Kind: sessiondb.KindMessage, Body: msg(text)})
	// The start of the kept tail that lies among the summary entries of
	// the compaction before (only where the policy lets the tail start
	// there: planTurns) is copied after the summary message.
	logFrom := firstLog(t, pl.KeepFrom)
	for _, e := range t[pl.KeepFrom:logFrom] {
		summary = append(summary, sessiondb.Entry{Kind: e.Kind, Role: e.Role, CreatedAt: e.CreatedAt, Body: e.Body})
		d.Tail++
	}
	for _, e := range append(slices.Clip(req.Entries), prefix.Entries...) {
		if e.Seq == 0 {
			continue
		}
		if d.DroppedFromSeq == 0 {
			d.DroppedFromSeq = e.Seq
		}
		d.DroppedToSeq = e.Seq
	}
	keepFrom := keepSeq(t, logFrom, snap.session.LastSeq)
	details, _ := json.Marshal(d)
	return sessiondb.Compaction{
		AtSeq:       snap.session.LastSeq,
		KeepFromSeq: keepFrom,
		Summary:     summary,
		Details:     details,
	}
}

// keepSeq is the log Seq of the first log entry of t at or after i
// (lastSeq+1 when there is none).
func keepSeq(t []sessiondb.Entry, i int, lastSeq int64) int64 {
	if j := firstLog(t, i); j < len(t) {
		return t[j].Seq
	}
	return lastSeq + 1
}

// recorded finds the compaction just committed in the store's list, for
// its ID; it returns comp unchanged when it cannot.
func (c *Compactor) recorded(ctx context.Context, id string, comp sessiondb.Compaction) sessiondb.Compaction {
	comps, err := c.Store.Compactions(ctx, id)
	if err != nil {
		return comp
	}
	for i := len(comps) - 1; i >= 0; i-- {
		got := comps[i]
		if got.KeepFromSeq == comp.KeepFromSeq && got.AtSeq == comp.AtSeq && bytes.Equal(compactJSON(got.Details), compactJSON(comp.Details)) {
			return got
		}
	}
	return comp
}

func compactJSON(b []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}

// firstLog is the index of the first log entry (Seq > 0) of t at or after
// from; len(t) when there is none.
func firstLog(t []sessiondb.Entry, from int) int {
	for i := from; i < len(t); i++ {
		if t[i].Seq > 0 {
			return i
		}
	}
	return len(t)
}

// requestKey fingerprints the requests of a compaction: a summary is
// reused after a conflict only when the previous summary and every
// dropped entry are unchanged, and split where they were.
func requestKey(reqs ...Request) [32]byte {
	h := sha256.New()
	for _, req := range reqs {
		fmt.Fprintf(h, "%d:%s %d:%s %v %d\n", len(req.Format), req.Format, len(req.Previous), req.Previous, req.TurnPrefix, len(req.Entries))
		for _, e := range req.Entries {
			fmt.Fprintf(h, "%d %d:%s %d:%s\n", e.Seq, len(e.Kind), e.Kind, len(e.Body), e.Body)
		}
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// Dropped returns the log entries that compaction compactionID of session
// id dropped: the entries the transcript held from the previous
// compaction's KeepFromSeq (1 when none) up to this one's KeepFromSeq,
// minus those this package carried into the summary as the anchor. Summary
// messages of the previous compaction are not log entries and are not
// returned (they are that compaction's Summary). Entries removed by Prune
// are gone and not returned; after a prune that removed the previous
// compaction, the range starts at 1.
func Dropped(ctx context.Context, store sessiondb.Store, id string, compactionID int64) ([]sessiondb.Entry, error) {
	comps, err := store.Compactions(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("dropped %s: %w", id, err)
	}
	idx := -1
	for i, c := range comps {
		if c.ID == compactionID {
			idx = i
			break
		}
	}
	if idx < 0 {
		return nil, fmt.Errorf("dropped %s: compaction %d: %w", id, compactionID, sessiondb.ErrNotFound)
	}
	c := comps[idx]
	from := int64(1)
	if idx > 0 {
		from = comps[idx-1].KeepFromSeq
	}
	to := c.KeepFromSeq - 1
	if to < from {
		return nil, nil
	}
	es, err := store.Entries(ctx, id, from, to)
	if err != nil {
		return nil, fmt.Errorf("dropped %s: %w", id, err)
	}
	d, ok := ParseDetails(c)
	if !ok || len(d.AnchorSeqs) == 0 {
		return es, nil
	}
	anchored := map[int64]bool{}
	for _, s := range d.AnchorSeqs {
		anchored[s] = true
	}
	out := es[:0]
	for _, e := range es {
		if !anchored[e.Seq] {
			out = append(out, e)
		}
	}
	return out, nil
}

// summaryText recovers the summary text from a summary message body of a
// session read by inspectBody: its text (see entryText) without
// SummaryPrefix.
func summaryText(body json.RawMessage) string {
	return strings.TrimPrefix(entryText(body), SummaryPrefix)
}
