package handoff

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/claudecode"
	"github.com/sessiondb/sessiondb/jsonlimport/codex"
	"github.com/sessiondb/sessiondb/jsonlimport/qwen"
)

// ErrUnknownAgent is returned for a target that is none of the six.
var ErrUnknownAgent = fmt.Errorf("handoff: unknown agent (want claude-code, codex, gemini, qwen, pi or opencode): %w", sessiondb.ErrInvalid)

// ErrNotImported is returned when the session was written for opencode
// but could not be loaded into its database (no opencode to run, or its
// import failed): the file is left for `opencode import FILE`.
var ErrNotImported = errors.New("handoff: not loaded into opencode's database")

// Options configures Handoff.
type Options struct {
	// To is the target agent (Targets; also gemini-cli, qwen-code).
	To string
	// Env places the target's store (its home and environment).
	Env Env
	// Cwd is the directory the target will be run in (the agents list
	// the sessions of the directory they run in); "" is the session's
	// project when that directory exists, else the current directory.
	Cwd string
	// DryRun plans and reports, and writes nothing.
	DryRun bool
	// Opencode is the opencode executable that loads the session into
	// its database ("" looks it up on PATH); OpencodeEnv its environment
	// (nil: this process's, with HOME and XDG_DATA_HOME of Env).
	Opencode    string
	OpencodeEnv []string
	// Relate, when set, is called with the new id when the session is
	// written under a new id (the target already holds it, or opencode
	// needs one of its own), so that the caller records the relation
	// (sessionctl records it in the source's attributes).
	Relate func(ctx context.Context, source, newID string) error
}

// Result is what a handoff did (or, with DryRun, would do).
type Result struct {
	Agent  string `json:"agent"`
	Format string `json:"format"`
	// Source is the session handed off; Session its id in the target
	// (a new one when the target already held Source: NewID).
	Source  string `json:"source"`
	Session string `json:"session"`
	NewID   bool   `json:"new_id"`
	// Translated is false when the session was already in the target's
	// format and is written byte for byte (ids aside, when NewID).
	Translated bool `json:"translated"`
	// Files are the files written into the target's store (with DryRun,
	// those that would be).
	Files []string `json:"files"`
	// Cwd is where to run the resume command.
	Cwd string `json:"cwd"`
	// Resume and ResumeHeadless are the commands that resume it (the
	// headless one with PROMPT for the next prompt); Env the variables to
	// set first when the store is not the user's own (--home).
	Resume         []string `json:"resume"`
	ResumeHeadless []string `json:"resume_headless"`
	Env            []string `json:"env,omitempty"`
	// Lost names what the target cannot carry or use, one line each.
	Lost []string `json:"lost"`
	// Notes are other things the user should know (the relation recorded,
	// opencode's import).
	Notes  []string `json:"notes"`
	DryRun bool     `json:"dry_run"`
}

// Handoff writes session idOrAlias of st into the store of agent o.To:
// exported in that agent's format (jsonlimport.ExportWith: byte for byte
// when the session came from that agent, translated otherwise, refused
// with jsonlimport.ErrUntranslatable naming what cannot be carried), each
// file placed where the agent looks for the sessions of o.Cwd, through a
// temporary file in the target folder and a rename, the session's main
// file last, so that the agent never lists a half-written session. A
// session the target already holds (the same id) is written under a new
// id (o.Relate records the relation); nothing of the target's is ever
// replaced. For opencode, the export JSON is loaded with `opencode import`
// (opencode's own transaction into its database).
func Handoff(ctx context.Context, st sessiondb.Store, idOrAlias string, o Options) (*Result, error) {
	t, ok := LookupTarget(o.To)
	if !ok {
		return nil, fmt.Errorf("%q: %w", o.To, ErrUnknownAgent)
	}
	id, err := st.Resolve(ctx, idOrAlias)
	if err != nil {
		return nil, fmt.Errorf("handoff %s: %w", idOrAlias, err)
	}
	sess, err := st.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("handoff %s: %w", id, err)
	}
	if o.Env.Home == "" {
		return nil, fmt.Errorf("handoff: no home folder: %w", sessiondb.ErrInvalid)
	}
	cwd := o.Cwd
	if cwd == "" {
		if st, err := os.Stat(sess.Project); sess.Project != "" && err == nil && st.IsDir() {
			cwd = sess.Project
		} else if cwd, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	if cwd, err = filepath.Abs(cwd); err != nil {
		return nil, err
	}
	root := t.Root(o.Env)
	res := &Result{Agent: t.Agent, Format: t.Format, Source: id, Session: id, Cwd: cwd, DryRun: o.DryRun,
		Translated: sess.SourceFormat != t.Format, Files: []string{}, Lost: []string{}, Notes: []string{}}

	// Export into a staging folder beside the store (same file system,
	// so the renames are atomic), then read it back.
	// (A dry run stages in the temporary folder: it creates nothing in
	// the target's home.)
	parent := filepath.Dir(root)
	if o.DryRun {
		parent = ""
	} else if err := os.MkdirAll(parent, 0o700); err != nil {
		return nil, err
	}
	stage, err := os.MkdirTemp(parent, ".sessiondb-handoff-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage)
	// Claude Code's attachment lines (the context it adds to a prompt)
	// are left out of a translation, and named: the target adds its own.
	attachments := 0
	// What the target has no shape for but a resume can do without (Codex:
	// thinking, results' error flags; Claude Code: thinking Anthropic did
	// not sign, the source's instructions) is left out and named, not
	// refused.
	var leftOut []string
	var unsendable jsonlimport.LeftOut // what Claude Code cannot send its model
	ectx := jsonlimport.LeaveOutUncarried(jsonlimport.LeaveOutAttachments(ctx, &attachments), &leftOut)
	ectx = jsonlimport.LeaveOutUnsendable(ectx, &unsendable)
	exported, err := jsonlimport.Export(ectx, st, []string{id}, t.Format, stage)
	if err != nil {
		return nil, fmt.Errorf("handoff %s to %s: %w", id, t.Agent, err)
	}
	files := map[string][]byte{}
	for _, p := range exported {
		rel, err := filepath.Rel(stage, p)
		if err != nil {
			return nil, err
		}
		if files[rel], err = os.ReadFile(p); err != nil {
			return nil, err
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("handoff %s to %s: the export wrote no file: %w", id, t.Agent, sessiondb.ErrInvalid)
	}

	if res.Lost, err = losses(ctx, st, sess, t, unsendable.AsBash); err != nil {
		return nil, err
	}
	res.Lost = append(res.Lost, leftOut...)
	if attachments > 0 {
		res.Lost = append(res.Lost, fmt.Sprintf("%d Claude Code attachment %s left out (context it added to the prompts: environment, date, tool and skill listings, reminders; %s adds its own)",
			attachments, plural("line", attachments), t.Agent))
	}

	res.Lost = append(res.Lost, leftOutLosses(unsendable, t)...)
	res.Notes = append(res.Notes, asBashNotes(unsendable, t)...)
	if t.Agent == "claude-code" && res.Translated {
		// Claude Code names a session by a UUID: a translated session
		// whose id is not one is written under one made from it.
		if sid := claudecode.ForeignSessionID(id); sid != id {
			res.Session, res.NewID = sid, true
			res.Notes = append(res.Notes, fmt.Sprintf("Claude Code names its sessions by UUID: %s written as %s", id, sid))
		}
	}

	// The agent is run in cwd: the working directory the files record
	// (Qwen Code and pi refuse a session of another directory; Gemini CLI
	// files it under the directory's hash) becomes cwd.
	if sess.Project != "" && sess.Project != cwd {
		files = relocate(files, sess.Project, cwd)
		res.Notes = append(res.Notes, fmt.Sprintf("working directory %s recorded as %s", sess.Project, cwd))
	}

	// Does the target hold the session already? Then a new id.
	// (A session translated for opencode has an id of opencode's shape,
	// ses_…, made from its own: the export JSON's info.id.)
	if t.Agent == "opencode" {
		for _, data := range files {
			var doc struct {
				Info struct {
					ID string `json:"id"`
				} `json:"info"`
			}
			if json.Unmarshal(data, &doc) == nil && doc.Info.ID != "" && doc.Info.ID != id {
				res.Session, res.NewID = doc.Info.ID, true
				res.Notes = append(res.Notes, fmt.Sprintf("opencode names its sessions ses_…: %s written as %s", id, res.Session))
			}
		}
	}
	if t.Agent == "codex" {
		// A translation names its thread by a UUID (codex.ThreadID).
		for _, data := range files {
			if tid := codex.ThreadID(data); tid != "" && tid != id {
				res.Session, res.NewID = tid, true
				res.Notes = append(res.Notes, fmt.Sprintf("Codex names its threads by a UUID: %s written as %s", id, res.Session))
			}
		}
	}
	// (Qwen Code resumes only UUIDs of versions 1 to 5: a session of
	// another shape was written under qwen.SessionID.)
	if t.Agent == "qwen" && res.Translated {
		if q := qwen.SessionID(id); q != id {
			res.Session, res.NewID = q, true
			res.Notes = append(res.Notes, fmt.Sprintf("Qwen Code resumes only UUIDs of versions 1 to 5: %s written as %s", id, q))
		}
	}
	held, err := t.holds(root, res.Session, cwd)
	if err != nil {
		return nil, err
	}
	if held {
		newID := newSessionID(t, res.Session)
		files = renameID(files, res.Session, newID)
		res.Notes = append(res.Notes, fmt.Sprintf("%s already holds session %s: written as %s", t.Agent, res.Session, newID))
		res.Session, res.NewID = newID, true
	}
	res.Resume, res.ResumeHeadless = t.ResumeArgs(res.Session, "PROMPT")
	if o.Env.Home != "" && (o.Env.Getenv == nil || o.Env.Getenv("HOME") != o.Env.Home) {
		res.Env = []string{"HOME=" + o.Env.Home}
		if t.Agent == "opencode" {
			res.Env = append(res.Env, "XDG_DATA_HOME="+filepath.Join(o.Env.Home, ".local", "share"))
		}
	}

	if t.Agent == "opencode" {
		// Resumed, opencode asks the model the last user message names:
		// for a translation, the source agent's. The one opencode is
		// configured with takes its place; without one, it is named.
		if res.Translated {
			for rel, data := range files {
				if m := opencodeModel(o.Env); m != "" {
					if files[rel], err = withUserModel(data, m); err != nil {
						return nil, fmt.Errorf("handoff %s to opencode: %w", id, err)
					}
					res.Notes = append(res.Notes, "the next turn uses opencode's configured model "+m)
				} else if m := sessionModel(data); m != "" {
					res.Lost = append(res.Lost, fmt.Sprintf("no model configured in opencode.json: opencode resumes with the session's %s, which it may not have (opencode run --model PROVIDER/MODEL chooses one)", m))
				}
			}
		}
		return res, importOpencode(ctx, t, root, files, res, o)
	}

	// Place each file for cwd; the main file (the shallowest) last.
	var gemini string
	var register bool
	if t.Agent == "gemini" {
		gemini, register = geminiProject(root, cwd)
	}
	rels := make([]string, 0, len(files))
	for rel := range files {
		rels = append(rels, rel)
	}
	sort.Slice(rels, func(i, j int) bool {
		di, dj := strings.Count(rels[i], string(filepath.Separator)), strings.Count(rels[j], string(filepath.Separator))
		if di != dj {
			return di > dj
		}
		return rels[i] < rels[j]
	})
	dests := make([]string, len(rels))
	for i, rel := range rels {
		dests[i] = filepath.Join(root, t.place(rel, cwd, gemini))
		if _, err := os.Lstat(dests[i]); err == nil {
			return nil, fmt.Errorf("handoff %s to %s: %s exists: %w", id, t.Agent, dests[i], sessiondb.ErrExists)
		}
	}
	res.Files = dests
	if register {
		res.Notes = append(res.Notes, fmt.Sprintf("registered %s as Gemini CLI project %q in %s", cwd, gemini, filepath.Join(root, "projects.json")))
	}
	if o.DryRun {
		return res, nil
	}
	if register {
		if err := registerGemini(root, cwd, gemini); err != nil {
			return nil, err
		}
	}
	for i, rel := range rels {
		if err := writeNew(dests[i], files[rel]); err != nil {
			return res, fmt.Errorf("handoff %s to %s: %w", id, t.Agent, err)
		}
	}
	if res.NewID && o.Relate != nil {
		if err := o.Relate(ctx, id, res.Session); err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("the relation to %s was not recorded: %v", id, err))
		} else {
			res.Notes = append(res.Notes, fmt.Sprintf("recorded %s as handed off from %s", res.Session, id))
		}
	}
	return res, nil
}

// writeNew writes data to path through a temporary file in its folder,
// linked into place: an existing path is never replaced, and the agent
// never sees a partial file under the final name.
func writeNew(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sessiondb-handoff-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s exists: %w", path, sessiondb.ErrExists)
		}
		return err
	}
	return nil
}

// registerGemini adds cwd as project name to Gemini CLI's projects.json
// (read, changed, written through a temporary file and a rename).
func registerGemini(root, cwd, name string) error {
	path := filepath.Join(root, "projects.json")
	doc := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	projects, _ := doc["projects"].(map[string]any)
	if projects == nil {
		projects = map[string]any{}
	}
	projects[cwd] = name
	doc["projects"] = projects
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(root, ".projects-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	marker := filepath.Join(root, "tmp", name, ".project_root")
	if _, err := os.Stat(marker); errors.Is(err, os.ErrNotExist) {
		return writeNew(marker, []byte(cwd))
	}
	return nil
}

// holds reports whether the target's store already has session id (any
// file of its store named for it, or for opencode a row of its database).
func (t Target) holds(root, id, cwd string) (bool, error) {
	if t.Agent == "opencode" {
		return opencodeHolds(root, id)
	}
	found := false
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) || d != nil && d.IsDir() && p != root {
				return nil
			}
			if p == root {
				return filepath.SkipAll
			}
			return nil
		}
		if found {
			return filepath.SkipAll
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jsonl") && strings.Contains(filepath.Base(p), id) {
			found = true
			return filepath.SkipAll
		}
		if t.Agent == "gemini" && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			if head := firstLine(p); bytes.Contains(head, []byte(`"`+id+`"`)) {
				found = true
				return filepath.SkipAll
			}
		}
		return nil
	})
	return found, err
}

func firstLine(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b := make([]byte, 4096)
	n, _ := f.Read(b)
	b = b[:n]
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return b
}

// newSessionID is a fresh id of the shape the target uses for id: a
// UUIDv7 for Codex and pi (time-ordered), a UUIDv4 otherwise, opencode's
// ses_ + 26 characters.
func newSessionID(t Target, id string) string {
	switch {
	case strings.HasPrefix(id, "ses_") || t.Agent == "opencode":
		// opencode's session ids descend: 12 hex digits of the bitwise
		// complement of the time in ms times 0x1000 (48 bits), then 14
		// random base-62 characters.
		const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		b := make([]byte, 14)
		_, _ = rand.Read(b)
		for i := range b {
			b[i] = alphabet[int(b[i])%len(alphabet)]
		}
		return fmt.Sprintf("ses_%012x%s", ^(uint64(time.Now().UnixMilli())*0x1000)&(1<<48-1), b)
	case t.Agent == "codex" || t.Agent == "pi":
		if u, err := uuid.NewV7(); err == nil {
			return u.String()
		}
	}
	return uuid.NewString()
}

// opencodeID reports whether id has the shape of opencode's session ids.
func opencodeID(id string) bool {
	return opencodeIDRE.MatchString(id)
}

var opencodeIDRE = regexp.MustCompile(`^ses_[0-9a-f]{12}[0-9A-Za-z]{14}$`)

// renameID writes every file under newID: the id's bytes replaced in
// each file and its path (and, for Gemini CLI's file names, the id's
// first 8 characters).
func renameID(files map[string][]byte, id, newID string) map[string][]byte {
	out := make(map[string][]byte, len(files))
	for rel, data := range files {
		rel = strings.ReplaceAll(rel, id, newID)
		if len(id) >= 8 && len(newID) >= 8 {
			base := filepath.Base(rel)
			if strings.HasPrefix(base, "session-") {
				rel = filepath.Join(filepath.Dir(rel), strings.ReplaceAll(base, id[:8], newID[:8]))
			}
		}
		out[rel] = bytes.ReplaceAll(data, []byte(id), []byte(newID))
	}
	return out
}

// relocate rewrites the working directory the files record, from old to
// cwd: every JSON string that is exactly old (cwd fields, opencode's
// directory), and Gemini CLI's projectHash (the SHA-256 of the project
// root, in hex).
func relocate(files map[string][]byte, old, cwd string) map[string][]byte {
	pairs := [][2][]byte{
		{jsonQuoted(old, false), jsonQuoted(cwd, false)},
		{jsonQuoted(old, true), jsonQuoted(cwd, true)},
		{[]byte(`"` + hashHex(old) + `"`), []byte(`"` + hashHex(cwd) + `"`)},
	}
	out := make(map[string][]byte, len(files))
	for rel, data := range files {
		for _, p := range pairs {
			data = bytes.ReplaceAll(data, p[0], p[1])
		}
		out[rel] = data
	}
	return out
}

// jsonQuoted is s as a JSON string, with or without Go's HTML escapes
// (JavaScript's JSON.stringify writes none).
func jsonQuoted(s string, html bool) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	_ = enc.Encode(s)
	return bytes.TrimSpace(b.Bytes())
}

func hashHex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
