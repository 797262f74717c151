package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"regexp"
	"strings"
	"unicode/utf8"
)

// reducer rewrites JSON text token by token: every byte of structure
// (punctuation, whitespace, key order, numbers, booleans, null) is copied
// from the original; only string values that carry prose or names are
// replaced. Copying tokens instead of re-encoding a decoded value is what
// keeps a reduced line byte-identical to the original wherever nothing
// personal was said.
type reducer struct {
	anon *anonymizer
}

// ctx is what a value's reduction depends on: the key it sits under (array
// elements inherit it), and the string siblings met earlier in its object.
type ctx struct {
	key     string
	keepAll bool              // inside "usage" or another object whose strings are all kept
	sib     map[string]string // earlier string siblings in the enclosing object
}

// Keys whose string values are identifiers, times or versions: always kept.
var idKeys = set(`uuid parentUuid logicalParentUuid leafUuid sessionId session_id id requestId request_id
	tool_use_id toolUseID toolUseId call_id agentId messageId parentToolUseID sourceToolUseID
	sourceToolAssistantUUID promptId parent_thread_id thread_id forked_from_id turn_id item_id
	bridgeSessionId interruptedMessageId compactedToolIds msg_id anchorUuid uuids lastMessageUuid
	timestamp backupTime backupFileName created_at updated_at started_at completed_at ts date
	version cli_version model slug hopChain parentAgentId taskId task_id`)

// Keys whose values are short words from a closed set (types, roles, stop
// reasons, modes): kept when the value is a single token, replaced otherwise.
var enumKeys = set(`type subtype role userType entrypoint permissionMode mode operation level stop_reason
	stop_sequence service_tier speed inference_geo trigger status media_type mediaType effort
	reasoning_effort originator source model_provider approval_policy sandbox_mode plan_type kind
	fromMode attributionAgent attributionPlugin subagent_type agentType agent_role agent_nickname
	hookEvent hookName name tool_name toolName phase code error reason personality encoding format
	stopReason limit_id limit_name network_access isolation outputStyle language ide platform
	resolution decision behavior scope record_type`)

// Keys whose values are paths.
var pathKeys = set(`cwd workdir file_path filePath path notebook_path realParentDir writable_roots projectPath
	project_path directory dir root rollout_path transcript_path agent_path outputFile output_file
	worktree_path worktreePath originalCwd`)

// Object keys under which every string is kept (token usage and the like).
var keepAllKeys = set(`usage total_token_usage last_token_usage rate_limits primary secondary
	cache_creation server_tool_use compactMetadata microcompactMetadata`)

var summaryEnum = set(`auto concise detailed none`)

func set(s string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(s) {
		m[f] = true
	}
	return m
}

var (
	uuidRE     = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	prefixIDRE = regexp.MustCompile(`^(msg|toolu|req|call|srvtoolu|cse|fc|rs|resp|ws|ctc|item|exec|run|chatcmpl|tooluse|call_\d+)_[A-Za-z0-9_-]{6,}$`)
	isoTimeRE  = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$`)
	hexRE      = regexp.MustCompile(`^[0-9a-f]{8,64}(@v\d+)?$`)
	tokenRE    = regexp.MustCompile(`^[A-Za-z0-9_.:@+<>-]{1,80}$`)
	modelRE    = regexp.MustCompile(`^[A-Za-z0-9_.:@/+<>-]{1,100}$`)
)

// isIdentifier reports whether s is an id or a time, whatever its key.
func isIdentifier(s string) bool {
	return uuidRE.MatchString(s) || prefixIDRE.MatchString(s) || isoTimeRE.MatchString(s) || hexRE.MatchString(s)
}

// reduceString decides the new text of one string value.
func (r *reducer) reduceString(c ctx, s string) string {
	k := c.key
	switch {
	case s == "":
		return s
	case idKeys[k]:
		if k == "model" && !modelRE.MatchString(s) {
			return r.prose(s)
		}
		return s
	case c.keepAll && len(s) <= 100:
		return s
	case isIdentifier(s):
		return s
	case k == "signature":
		return "c2lnbmF0dXJlIHJlZHVjZWQ="
	case k == "encrypted_content":
		return "gAAAAABlbmNyeXB0ZWQtY29udGVudC1yZWR1Y2Vk"
	case k == "data" && strings.HasPrefix(c.sib["media_type"], "image/"):
		return tinyImage(c.sib["media_type"])
	case k == "data" && c.sib["type"] == "base64":
		return base64.StdEncoding.EncodeToString([]byte("reduced"))
	case strings.HasPrefix(s, "data:image/"):
		mt := strings.SplitN(strings.TrimPrefix(s, "data:"), ";", 2)[0]
		return "data:" + mt + ";base64," + tinyImage(mt)
	case k == "summary" && summaryEnum[s]:
		return s
	case enumKeys[k] && tokenRE.MatchString(s):
		return s
	case k == "gitBranch" || k == "branch":
		return r.anon.branch(s)
	case k == "commit_hash" || k == "commit" || k == "sha":
		sum := sha256.Sum256([]byte(s))
		h := hex.EncodeToString(sum[:])
		if len(s) <= len(h) && hexRE.MatchString(s) {
			return h[:len(s)]
		}
		return r.prose(s)
	case k == "repository_url" || k == "remote_url":
		return "https://example.invalid/" + pseudo("owner "+s) + "/" + pseudo(s) + ".git"
	case pathKeys[k] && (looksLikePath(s) || !strings.ContainsAny(s, "\n")):
		return r.anon.path(s)
	case looksLikePath(s):
		return r.anon.path(s)
	case k == "arguments" || (k == "output" && strings.HasPrefix(s, `{"output":`)):
		// Codex keeps a function call's arguments, and some outputs, as
		// JSON text whose keys are the tool's: reduce it as JSON. JSON met
		// in other strings (file contents, tool output) is prose: its keys
		// are somebody's data.
		if json.Valid([]byte(s)) {
			return string(r.json([]byte(s)))
		}
	}
	return r.prose(s)
}

// reduceKey keeps object keys except those that are paths (the keys of
// file-history snapshots' trackedFileBackups).
func (r *reducer) reduceKey(k string) string {
	if looksLikePath(k) || strings.ContainsAny(k, "/\\") {
		return r.anon.path(k)
	}
	return k
}

var tinyImages = map[string]string{}

// tinyImage returns a valid 1×1 image of the given media type, base64
// encoded, to stand in for a screenshot.
func tinyImage(mediaType string) string {
	if s, ok := tinyImages[mediaType]; ok {
		return s
	}
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{0x80, 0x80, 0x80, 0xff})
	var buf bytes.Buffer
	switch mediaType {
	case "image/jpeg", "image/jpg":
		jpeg.Encode(&buf, img, nil)
	default:
		png.Encode(&buf, img)
	}
	s := base64.StdEncoding.EncodeToString(buf.Bytes())
	tinyImages[mediaType] = s
	return s
}

// line reduces one line of a JSONL file. A line that is not valid JSON keeps
// its damage: the reduced prefix that parses, then the rest with its text
// replaced (see damaged).
func (r *reducer) line(in []byte) []byte {
	p := &parser{in: in, r: r}
	p.ws()
	if p.pos == len(in) {
		return append([]byte(nil), in...)
	}
	err := p.value(ctx{})
	if err == nil {
		p.ws()
	}
	if err != nil || p.pos < len(in) {
		p.damaged()
	}
	return p.out
}

// json reduces a whole JSON document (a .json side file, or JSON held in a
// string such as Codex's function-call arguments).
func (r *reducer) json(in []byte) []byte {
	return r.line(in)
}

var errSyntax = errors.New("syntax")

type parser struct {
	in  []byte
	pos int
	out []byte
	r   *reducer
}

func (p *parser) ws() {
	for p.pos < len(p.in) {
		switch p.in[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.out = append(p.out, p.in[p.pos])
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(c ctx) error {
	if p.pos >= len(p.in) {
		return errSyntax
	}
	switch ch := p.in[p.pos]; {
	case ch == '{':
		return p.object(c)
	case ch == '[':
		return p.array(c)
	case ch == '"':
		s, raw, err := p.str()
		if err != nil {
			// A string cut off by the end of the line: its text is replaced,
			// and it stays unterminated.
			p.out = append(p.out, '"')
			p.out = append(p.out, escape(p.r.prose(s))...)
			return err
		}
		ns := p.r.reduceString(c, s)
		if ns == s {
			p.out = append(p.out, raw...)
		} else {
			p.out = append(p.out, '"')
			p.out = append(p.out, escape(ns)...)
			p.out = append(p.out, '"')
		}
		return nil
	default:
		start := p.pos
		for p.pos < len(p.in) && bytes.IndexByte([]byte("-+.0123456789eEtruefalsn"), p.in[p.pos]) >= 0 {
			p.pos++
		}
		if p.pos == start || !json.Valid(p.in[start:p.pos]) {
			p.pos = start
			return errSyntax
		}
		p.out = append(p.out, p.in[start:p.pos]...)
		return nil
	}
}

func (p *parser) object(c ctx) error {
	p.out = append(p.out, '{')
	p.pos++
	p.ws()
	if p.pos < len(p.in) && p.in[p.pos] == '}' {
		p.out = append(p.out, '}')
		p.pos++
		return nil
	}
	sib := map[string]string{}
	for {
		if p.pos >= len(p.in) || p.in[p.pos] != '"' {
			return errSyntax
		}
		k, raw, err := p.str()
		if err != nil {
			p.out = append(p.out, '"')
			p.out = append(p.out, escape(p.r.prose(k))...)
			return err
		}
		if nk := p.r.reduceKey(k); nk != k {
			p.out = append(p.out, '"')
			p.out = append(p.out, escape(nk)...)
			p.out = append(p.out, '"')
		} else {
			p.out = append(p.out, raw...)
		}
		p.ws()
		if p.pos >= len(p.in) || p.in[p.pos] != ':' {
			return errSyntax
		}
		p.out = append(p.out, ':')
		p.pos++
		p.ws()
		vc := ctx{key: k, keepAll: c.keepAll || keepAllKeys[k], sib: sib}
		// Remember short string siblings (a block's "type", an image's
		// "media_type") for the values after them.
		var short string
		isShort := false
		if p.pos < len(p.in) && p.in[p.pos] == '"' {
			if s, _, err := (&parser{in: p.in, pos: p.pos}).str(); err == nil && len(s) < 100 {
				short, isShort = s, true
			}
		}
		if err := p.value(vc); err != nil {
			return err
		}
		if isShort {
			sib[k] = short
		}
		p.ws()
		if p.pos >= len(p.in) {
			return errSyntax
		}
		switch p.in[p.pos] {
		case ',':
			p.out = append(p.out, ',')
			p.pos++
			p.ws()
		case '}':
			p.out = append(p.out, '}')
			p.pos++
			return nil
		default:
			return errSyntax
		}
	}
}

func (p *parser) array(c ctx) error {
	p.out = append(p.out, '[')
	p.pos++
	p.ws()
	if p.pos < len(p.in) && p.in[p.pos] == ']' {
		p.out = append(p.out, ']')
		p.pos++
		return nil
	}
	for {
		if err := p.value(ctx{key: c.key, keepAll: c.keepAll}); err != nil {
			return err
		}
		p.ws()
		if p.pos >= len(p.in) {
			return errSyntax
		}
		switch p.in[p.pos] {
		case ',':
			p.out = append(p.out, ',')
			p.pos++
			p.ws()
		case ']':
			p.out = append(p.out, ']')
			p.pos++
			return nil
		default:
			return errSyntax
		}
	}
}

// str reads the string token at p.pos and returns its decoded text and raw
// bytes. At the end of the input without a closing quote it returns what
// could be decoded and an error; p.pos is then at the end.
func (p *parser) str() (string, []byte, error) {
	start := p.pos
	i := p.pos + 1
	for i < len(p.in) {
		switch p.in[i] {
		case '\\':
			i += 2
			continue
		case '"':
			raw := p.in[start : i+1]
			p.pos = i + 1
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return string(raw[1 : len(raw)-1]), raw, nil
			}
			return s, raw, nil
		}
		i++
	}
	p.pos = len(p.in)
	body := p.in[start+1:]
	var s string
	if err := json.Unmarshal(append(append([]byte{'"'}, bytes.TrimRight(body, "\\")...), '"'), &s); err != nil {
		s = string(body)
	}
	return s, p.in[start:], errSyntax
}

// damaged copies the unparsable rest of a line from p.pos: runs of NUL bytes
// and JSON punctuation stay where they are, a JSON value glued on after the
// damage is reduced like any other, and any other text is replaced letter for
// letter, so the damage keeps its kind, place and length.
func (p *parser) damaged() {
	for p.pos < len(p.in) {
		ch := p.in[p.pos]
		if ch == '{' {
			sub := &parser{in: p.in, pos: p.pos, r: p.r}
			err := sub.value(ctx{})
			p.out = append(p.out, sub.out...)
			if sub.pos > p.pos {
				p.pos = sub.pos
			} else {
				p.pos++
			}
			if err == nil {
				continue
			}
			continue
		}
		if ch == 0 || bytes.IndexByte([]byte(`{}[]":, `+"\t\r"), ch) >= 0 || ch < 0x20 {
			p.out = append(p.out, ch)
			p.pos++
			continue
		}
		_, size := utf8.DecodeRune(p.in[p.pos:])
		p.out = append(p.out, 'x')
		p.pos += size
	}
}

// escape writes s as the inside of a JSON string the way JavaScript's
// JSON.stringify and serde_json do: quote, backslash and control characters
// escaped, everything else (including non-ASCII) as is.
func escape(s string) []byte {
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			if c < 0x20 {
				const hexd = "0123456789abcdef"
				b = append(b, '\\', 'u', '0', '0', hexd[c>>4], hexd[c&15])
			} else {
				b = append(b, c)
			}
		}
	}
	return b
}
