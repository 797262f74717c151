package jsonlimport

import (
	"github.com/sessiondb/sessiondb/jsonlimport/aider"
	"github.com/sessiondb/sessiondb/jsonlimport/claudecode"
	"github.com/sessiondb/sessiondb/jsonlimport/cline"
	"github.com/sessiondb/sessiondb/jsonlimport/codex"
	"github.com/sessiondb/sessiondb/jsonlimport/copilot"
	"github.com/sessiondb/sessiondb/jsonlimport/crush"
	"github.com/sessiondb/sessiondb/jsonlimport/cursor"
	"github.com/sessiondb/sessiondb/jsonlimport/cursoragent"
	"github.com/sessiondb/sessiondb/jsonlimport/entire"
	"github.com/sessiondb/sessiondb/jsonlimport/gemini"
	"github.com/sessiondb/sessiondb/jsonlimport/goose"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
	"github.com/sessiondb/sessiondb/jsonlimport/opencode"
	"github.com/sessiondb/sessiondb/jsonlimport/opencodego"
	"github.com/sessiondb/sessiondb/jsonlimport/pi"
	"github.com/sessiondb/sessiondb/jsonlimport/picoclaw"
	"github.com/sessiondb/sessiondb/jsonlimport/qwen"
	"github.com/sessiondb/sessiondb/jsonlimport/swink"
	"github.com/sessiondb/sessiondb/jsonlimport/zot"
)

// The registry: the one place that names the formats. Adding a format is
// adding its package (a jsonl.Format, and a jsonl.Exporter to export) and
// a line in Formats. The list is explicit rather than filled by the
// packages' init functions, as image.RegisterFormat and database/sql's
// drivers are, because its order decides which format claims a file, and
// init order would make that the order of the import paths.

// Formats returns every format this package reads and writes, in the order
// in which they are offered the files of a directory: picoclaw, zot, swink,
// qwen-code, claude-code, codex, pi, gemini-cli, copilot-cli, goose,
// opencode-go, crush, opencode, cursor, cursor-agent, cline, aider,
// entire. picoclaw claims
// only files it can tell apart by name (.meta.json pairs, legacy session
// objects) or by a first line that is a picoclaw message, so it goes
// first; zot and swink recognise their files by their header lines; Qwen
// Code, Claude Code, Codex, pi and Gemini CLI files are recognised by the
// shape of their first lines (never by path alone), and come after them so
// that they cannot take a file an older format claims. Qwen Code comes
// before Claude Code: its records wear Claude Code's envelope (uuid,
// parentUuid, sessionId, type user|assistant|system), and although Claude
// Code's Claim refuses a line whose message has Gemini's "parts" or that
// carries a systemPayload, the order makes the choice explicit. Gemini
// CLI's chats (a header with sessionId and projectHash) look like no other
// format's. GitHub Copilot CLI's events.jsonl starts with a session.start
// event ({type, data: {sessionId, …}, id, timestamp}): none of the formats
// before it takes such a line (no uuid, message, payload or role), and it
// takes nothing else, so its place after them only keeps the older
// formats first. opencode's files are SQLite databases (by name, or by
// opencode's tables), files of its storage/ tree and export files (a JSON
// object whose first member is the session's info), none of which a JSONL
// format takes. The Go opencode's opencode.db (opencode-go) and crush's
// crush.db (crush: any .db of that schema) are SQLite databases of one
// schema, known by its tables; the Go opencode goes before crush, which
// would take its database by its tables, and both before opencode, which
// takes any opencode.db by its name. Cursor's state.vscdb (cursor: a
// .vscdb whose first pages hold the cursorDiskKV or ItemTable table) is
// known by an extension no other format takes; it goes after the SQLite
// formats above, so that none of them can lose a file to it. The Cursor
// agent's JSONL transcripts (cursor-agent: a .jsonl whose first line is
// {"role": …, "message": {…}}, role first and no type, uuid, sessionId
// or content member, or a turn_ended line) follow Cursor's store: every
// JSONL format before it wants lines of other shapes (Claude Code's carry
// type, uuid and sessionId), and picoclaw, which would take any line
// beginning {"role":, leaves them to it (cursor-agent reserves them,
// jsonl.Reserver). Cline's (and
// Roo Code's) tasks are folders whose api_conversation_history.json or
// ui_messages.json is a JSON array of Cline's messages (by name and first
// member), and the Cline SDK's session folders whose
// <id>.messages.json is a JSON object opening with "version", which no
// earlier format takes (their JSON files are other objects or arrays,
// Cursor's are databases). aider's chat histories are Markdown files (by
// name, or by a first line that is a run header), after every other
// format but Entire's. Entire's checkpoint branch (entire) is a git
// repository's: it claims only the HEAD of a git directory (or a
// worktree's .git file) whose repository has the branch, which no other
// format takes, and reads each transcript on the branch with the reader
// of this list that claims it, in this order (entire.SetReaders); it goes
// last so that it is never offered a file another format wants.
func Formats() []Format {
	return []Format{picoclaw.Format{}, zot.Format{}, swink.Format{}, qwen.Format{}, claudecode.Format{}, codex.Format{}, pi.Format{}, gemini.Format{}, copilot.Format{}, goose.Format{}, opencodego.Format{}, crush.Format{}, opencode.Format{}, cursor.Format{}, cursoragent.Format{}, cline.Format{}, aider.Format{}, entire.Format{}}
}

func init() {
	jsonl.SetTranslator(translatedStore)
	jsonl.SetForeignWriter(foreignFile)
	jsonl.SetEstimator(estimateCosts)
	jsonl.SetReserved(reservedByFormat)
	entire.SetReaders(Formats)
	entire.SetShapeReader(byShape{})
}

// reservedByFormat reports whether a format of the registry reserves path
// (jsonl.Reserver): formats earlier in the claim order leave it to that
// format.
func reservedByFormat(path string) bool {
	for _, f := range Formats() {
		if r, ok := f.(jsonl.Reserver); ok && r.Reserves(path) {
			return true
		}
	}
	return false
}

// The reader's types live in package jsonl, which the format packages
// share; these names keep them where the callers of this package know
// them.
type (
	// Problem is jsonl.Problem.
	Problem = jsonl.Problem
	// Unit is jsonl.Unit.
	Unit = jsonl.Unit
	// Resume is jsonl.Resume.
	Resume = jsonl.Resume
	// Parsed is jsonl.Parsed.
	Parsed = jsonl.Parsed
	// Branch is jsonl.Branch.
	Branch = jsonl.Branch
	// Format is jsonl.Format.
	Format = jsonl.Format
)

// MaxLineSize is jsonl.MaxLineSize.
const MaxLineSize = jsonl.MaxLineSize

// ErrNotIncremental is jsonl.ErrNotIncremental.
var ErrNotIncremental = jsonl.ErrNotIncremental

// BranchID returns the ID of the fork that holds branch tip of session id
// (jsonl.BranchID).
func BranchID(id, tip string) string { return jsonl.BranchID(id, tip) }

// The formats that are packages of their own, under the names they had
// here.
const (
	FormatPicoclaw   = picoclaw.Name
	FormatZot        = zot.Name
	FormatSwink      = swink.Name
	FormatPi         = pi.Name
	FormatCodex      = codex.Name
	FormatClaudeCode = claudecode.Name
	FormatGemini     = gemini.Name
	FormatQwen       = qwen.Name
	FormatOpencode   = opencode.Name
	FormatAider      = aider.Name
	FormatCrush      = crush.Name
	FormatOpencodeGo = opencodego.Name
	FormatGoose      = goose.Name
	FormatCursor     = cursor.Name
	FormatCopilot    = copilot.Name
	FormatCline      = cline.Name
	FormatEntire     = entire.Name
)

// FormatCursorAgent names the Cursor agent's transcripts
// (cursoragent.Name).
const FormatCursorAgent = cursoragent.Name

type (
	// Picoclaw is picoclaw.Format.
	Picoclaw = picoclaw.Format
	// Zot is zot.Format.
	Zot = zot.Format
	// Swink is swink.Format.
	Swink = swink.Format
	// Pi is pi.Format.
	Pi = pi.Format
	// Codex is codex.Format.
	Codex = codex.Format
	// ClaudeCode is claudecode.Format.
	ClaudeCode = claudecode.Format
	// Gemini is gemini.Format.
	Gemini = gemini.Format
	// Qwen is qwen.Format.
	Qwen = qwen.Format
	// Opencode is opencode.Format.
	Opencode = opencode.Format
	// Aider is aider.Format.
	Aider = aider.Format
	// Copilot is copilot.Format.
	Copilot = copilot.Format
)

// FileOf returns the file a unit path lies in (jsonl.FileOf): the
// database of a session of an SQLite store, else the path itself.
func FileOf(path string) string { return jsonl.FileOf(path) }

// UnfinishedMarker begins the problem a store's reader reports for a
// session whose last turn is still being written (jsonl.UnfinishedMarker).
const UnfinishedMarker = jsonl.UnfinishedMarker

// HoldsSessions reports whether units of format are stores whose sessions
// the importer lists itself (jsonl.StoreFormat: a database of many
// sessions), rather than one session each.
func HoldsSessions(format string) bool {
	_, ok := lookupFormat(format).(jsonl.StoreFormat)
	return ok
}

// ErrSwinkVersion is swink.ErrVersion.
var ErrSwinkVersion = swink.ErrVersion

// ClaudeCodeAgentSession returns the ID the importer gives the sub-agent
// agentID of Claude Code session parent (claudecode.AgentSession).
func ClaudeCodeAgentSession(parent, agentID string) string {
	return claudecode.AgentSession(parent, agentID)
}

// twinFormats reports whether formats a and b are two places one agent
// keeps the same conversation in under the same ID: Cursor's IDE keeps a
// composer in state.vscdb ("cursor") and, with its agent, the same
// composer as agent-transcripts/<id>.jsonl ("cursor-agent"). The second
// one imported is kept beside the first under a derived ID, as any
// session whose ID another source holds, but reported as a note: the
// archive is not at fault, and a first import of Cursor's default places
// ends with exit 0.
func twinFormats(a, b string) bool {
	return a != b && (a == cursor.Name || a == cursoragent.Name) && (b == cursor.Name || b == cursoragent.Name)
}
