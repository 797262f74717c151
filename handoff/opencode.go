package handoff

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	_ "modernc.org/sqlite" // opencode's database, read to see whether it holds a session
)

// opencodeHolds reports whether opencode's database under root has a
// session row id. The database is opened read-only; a missing one holds
// nothing (and is not created).
func opencodeHolds(root, id string) (bool, error) {
	db := filepath.Join(root, "opencode.db")
	if _, err := os.Stat(db); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		return false, err
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRow(`SELECT count(*) FROM session WHERE id = ?`, id).Scan(&n); err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return false, nil
		}
		return false, fmt.Errorf("read %s: %w", db, err)
	}
	return n > 0, nil
}

// importOpencode writes the export JSON into root/handoff/<id>.json and
// loads it with `opencode import FILE`: opencode writes its own database,
// in its own transaction. Without an opencode to run, the file stays and
// the error (ErrNotImported) says the command that loads it.
func importOpencode(ctx context.Context, t Target, root string, files map[string][]byte, res *Result, o Options) error {
	var data []byte
	for _, b := range files {
		data = b
	}
	if len(files) != 1 {
		return fmt.Errorf("handoff %s to opencode: %d files, want one export JSON", res.Source, len(files))
	}
	file := filepath.Join(root, "handoff", res.Session+".json")
	res.Files = []string{file}
	importArgs := []string{"opencode", "import", file}
	res.Notes = append(res.Notes, "loaded into opencode's database with: "+strings.Join(importArgs, " "))
	if o.DryRun {
		return nil
	}
	if _, err := os.Lstat(file); err == nil {
		if err := os.Remove(file); err != nil { // our own earlier, unloaded copy
			return err
		}
	}
	if err := writeNew(file, data); err != nil {
		return fmt.Errorf("handoff %s to opencode: %w", res.Source, err)
	}
	bin := o.Opencode
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("opencode"); err != nil {
			return fmt.Errorf("handoff %s: %s written, but no opencode on PATH to load it: run %s: %w",
				res.Source, file, strings.Join(importArgs, " "), ErrNotImported)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "import", file)
	cmd.Dir = res.Cwd
	env := o.OpencodeEnv
	if env == nil {
		env = append(os.Environ(), "HOME="+o.Env.Home)
		if o.Env.get("XDG_DATA_HOME") == "" {
			env = append(env, "XDG_DATA_HOME="+filepath.Dir(root))
		}
	}
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("handoff %s: opencode import %s: %v: %s: %w", res.Source, file, err, tail(out.Bytes()), ErrNotImported)
	}
	held, err := opencodeHolds(root, res.Session)
	if err != nil {
		return err
	}
	// Should opencode have given the session another id, it prints it.
	if m := importedRE.FindSubmatch(out.Bytes()); !held && m != nil && string(m[1]) != res.Session {
		if ok, err := opencodeHolds(root, string(m[1])); err == nil && ok {
			res.Notes = append(res.Notes, fmt.Sprintf("opencode imported session %s as %s", res.Session, m[1]))
			res.Session, res.NewID, held = string(m[1]), true, true
			res.Resume, res.ResumeHeadless = t.ResumeArgs(res.Session, "PROMPT")
		}
	}
	if err != nil {
		return err
	}
	if !held {
		return fmt.Errorf("handoff %s: opencode import %s ran, but its database has no session %s: %s: %w",
			res.Source, file, res.Session, tail(out.Bytes()), ErrNotImported)
	}
	if res.NewID && o.Relate != nil {
		if err := o.Relate(ctx, res.Source, res.Session); err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("the relation to %s was not recorded: %v", res.Source, err))
		} else {
			res.Notes = append(res.Notes, fmt.Sprintf("recorded %s as handed off from %s", res.Session, res.Source))
		}
	}
	return nil
}

// importedRE finds the id opencode import reports.
var importedRE = regexp.MustCompile(`Imported session: (ses_[0-9A-Za-z]+)`)

func tail(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 800 {
		b = b[len(b)-800:]
	}
	return string(b)
}

// opencodeModel is the model opencode is configured to use under e
// ("provider/model" of opencode.json's "model"), or "".
func opencodeModel(e Env) string {
	dir := e.get("XDG_CONFIG_HOME")
	if dir == "" {
		dir = filepath.Join(e.Home, ".config")
	}
	for _, name := range []string{"opencode.json", "opencode.jsonc", "config.json"} {
		b, err := os.ReadFile(filepath.Join(dir, "opencode", name))
		if err != nil {
			continue
		}
		var cfg struct {
			Model string `json:"model"`
		}
		if json.Unmarshal(b, &cfg) == nil && strings.Contains(cfg.Model, "/") {
			return cfg.Model
		}
	}
	return ""
}

// withUserModel sets the model of every user message of an opencode
// export JSON to model ("provider/model"): opencode resumes a session
// with the model its last user message names, which for a translated
// session is the source agent's (a provider opencode may not have).
// The assistant messages keep the model that wrote them.
func withUserModel(data []byte, model string) ([]byte, error) {
	provider, id, _ := strings.Cut(model, "/")
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(doc["messages"], &msgs); err != nil {
		return nil, err
	}
	ref, err := json.Marshal(map[string]string{"providerID": provider, "modelID": id})
	if err != nil {
		return nil, err
	}
	for _, m := range msgs {
		var info map[string]json.RawMessage
		if err := json.Unmarshal(m["info"], &info); err != nil {
			return nil, err
		}
		if string(info["role"]) != `"user"` {
			continue
		}
		info["model"] = ref
		if m["info"], err = json.Marshal(info); err != nil {
			return nil, err
		}
	}
	if doc["messages"], err = json.Marshal(msgs); err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

// sessionModel is the model the last user message of an opencode export
// JSON names, "provider/model".
func sessionModel(data []byte) string {
	var doc struct {
		Messages []struct {
			Info struct {
				Role  string `json:"role"`
				Model struct {
					ProviderID string `json:"providerID"`
					ModelID    string `json:"modelID"`
				} `json:"model"`
			} `json:"info"`
		} `json:"messages"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return ""
	}
	last := ""
	for _, m := range doc.Messages {
		if m.Info.Role == "user" {
			last = m.Info.Model.ProviderID + "/" + m.Info.Model.ModelID
		}
	}
	return last
}
