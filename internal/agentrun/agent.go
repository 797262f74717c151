package agentrun

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Agent is one coding agent as these machines run it: its npm package
// and pinned version, the protocol it speaks, how to point it at the
// scripted server, its command lines and where it writes its store.
type Agent struct {
	Name       string // claude-code, codex, gemini, qwen, pi, opencode
	Package    string // npm package
	Version    string // pinned version
	Executable string // the executable npm links in node_modules/.bin
	Protocol   string // scriptmodel protocol: anthropic, responses, chat, gemini
	Model      string // the model name it is told to use

	// configure writes the config files of a throw-away home.
	configure func(h *Home, server string) error
	// env is the agent's own environment (added to the base one).
	env func(h *Home, server string) []string
	// newArgs and resumeArgs are the command lines (without the
	// executable) of a new session and of a resumed one. id is the
	// session id for agents that take one up front ("" otherwise).
	newArgs    func(id, prompt string) []string
	resumeArgs func(id, prompt string) []string
	// sessionID finds the id of the session a run wrote, from its
	// standard output (or from the store).
	sessionID func(h *Home, stdout []byte) (string, error)
	// store lists the paths, relative to the home's Dir, the agent keeps
	// its sessions in.
	store []string
	// presetID makes a new session's id up front (agents that take one).
	presetID bool
	// sessionDir is the folder, relative to the home's Dir, that holds
	// the session files of the home's project.
	sessionDir func(h *Home) string
}

// Agents returns the six agents, in the order the corpus was written.
func Agents() []*Agent {
	return []*Agent{gemini(), qwen(), opencode(), claudeCode(), codex(), pi()}
}

// Lookup returns the agent named name, or nil.
func Lookup(name string) *Agent {
	for _, a := range Agents() {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// TakesID reports whether a new session's id is chosen by the caller
// (NewArgs uses it) rather than by the agent.
func (a *Agent) TakesID() bool { return a.presetID }

// NewArgs is the command line of a new session with prompt; id is used
// only when TakesID.
func (a *Agent) NewArgs(id, prompt string) []string { return a.newArgs(id, prompt) }

// ResumeArgs is the command line that resumes session id with prompt.
func (a *Agent) ResumeArgs(id, prompt string) []string { return a.resumeArgs(id, prompt) }

// SessionID returns the session id a run reported on stdout (or, for
// agents that do not print it, the newest session in the store).
func (a *Agent) SessionID(h *Home, stdout []byte) (string, error) {
	id, err := a.sessionID(h, stdout)
	if err == nil && id == "" {
		err = fmt.Errorf("%s: no session id in the output", a.Name)
	}
	return id, err
}

// Store returns the absolute paths of the agent's store under h (which
// may not exist yet).
func (a *Agent) Store(h *Home) []string {
	var out []string
	for _, p := range a.store {
		out = append(out, filepath.Join(h.Dir, p))
	}
	return out
}

// ImportArgs is the command line that loads a session file into the
// agent's store, for agents whose store is not a folder of files
// (opencode import FILE, which reads the JSON of opencode export); nil
// for the others, whose session files are written into SessionDir.
func (a *Agent) ImportArgs(file string) []string {
	if a.Name == "opencode" {
		return []string{"import", file}
	}
	return nil
}

// SessionDir is where the agent keeps the sessions of h's project: the
// folder of its session files (for Codex the root of its date folders),
// or for opencode its database file. A handoff test writes a session
// there, then resumes it with ResumeArgs.
func (a *Agent) SessionDir(h *Home) string {
	return filepath.Join(h.Dir, a.sessionDir(h))
}

// jsonField returns the string field key of the first JSON object on a
// line of out (a JSON document, or JSON lines) that has it.
func jsonField(out []byte, key string) string {
	var doc map[string]any
	if json.Unmarshal(out, &doc) == nil {
		if s, ok := doc[key].(string); ok {
			return s
		}
	}
	var list []map[string]any
	if json.Unmarshal(out, &list) == nil {
		for _, d := range list {
			if s, ok := d[key].(string); ok && s != "" {
				return s
			}
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var m map[string]any
		if json.Unmarshal(line, &m) == nil {
			if s, ok := m[key].(string); ok && s != "" {
				return s
			}
		}
	}
	return ""
}

// filesUnder lists the regular files under dir whose names end in ext,
// sorted.
func filesUnder(dir, ext string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ext) {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// SessionFiles returns the files of a file-based store (every agent but
// opencode) that hold session id: files whose name or content has it.
func (a *Agent) SessionFiles(h *Home, id string) []string {
	var out []string
	for _, root := range a.Store(h) {
		for _, f := range filesUnder(root, ".jsonl") {
			if strings.Contains(filepath.Base(f), id) {
				out = append(out, f)
				continue
			}
			if a.Name == "gemini" || a.Name == "pi" {
				// Their file names hold a prefix of the id, or none:
				// the header line says.
				if head, err := firstLine(f); err == nil && bytes.Contains(head, []byte(id)) {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

func firstLine(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	line, err := r.ReadBytes('\n')
	if len(line) > 0 {
		return line, nil
	}
	return nil, err
}
