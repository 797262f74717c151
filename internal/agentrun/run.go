package agentrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ErrNotInstalled is returned by Find when the agent's pinned version is
// not in the cache.
var ErrNotInstalled = errors.New("agentrun: agent not installed")

// Home is a throw-away home for runs of agents: HOME, the XDG folders
// under it, and a project folder the agents run in.
type Home struct {
	Root    string // holds the rest
	Dir     string // $HOME
	Config  string // $XDG_CONFIG_HOME
	Data    string // $XDG_DATA_HOME
	Cache   string // $XDG_CACHE_HOME
	State   string // $XDG_STATE_HOME
	Project string // the working directory of runs
}

// NewHome makes the folders of a home under root (root/home and
// root/project).
func NewHome(root string) (*Home, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	h := &Home{Root: root, Dir: filepath.Join(root, "home"), Project: filepath.Join(root, "project")}
	h.Config = filepath.Join(h.Dir, ".config")
	h.Data = filepath.Join(h.Dir, ".local", "share")
	h.Cache = filepath.Join(h.Dir, ".cache")
	h.State = filepath.Join(h.Dir, ".local", "state")
	for _, d := range []string{h.Dir, h.Config, h.Data, h.Cache, h.State, h.Project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// Installed is an agent installed in a cache folder.
type Installed struct {
	*Agent
	Dir     string // the folder whose node_modules holds the package
	Version string // the version npm installed (package.json)
}

// installDir is where the agent's pinned version lives in cache.
func (a *Agent) installDir(cache string) string {
	return filepath.Join(cache, a.Name+"@"+a.Version)
}

// Find returns the agent's pinned version installed in cache, or
// ErrNotInstalled.
func (a *Agent) Find(cache string) (*Installed, error) {
	dir := a.installDir(cache)
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(a.Package), "package.json"))
	if err != nil {
		return nil, fmt.Errorf("%w: %s in %s", ErrNotInstalled, a.Name, dir)
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return nil, fmt.Errorf("%s: package.json: %w", a.Name, err)
	}
	in := &Installed{Agent: a, Dir: dir, Version: pkg.Version}
	if _, err := os.Stat(in.Bin()); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotInstalled, a.Name, err)
	}
	return in, nil
}

// Install installs the agent's pinned version into cache with npm
// (npm install --no-audit --no-fund PACKAGE@VERSION in a folder of its
// own), unless it is there already. npm's output goes to log.
func (a *Agent) Install(ctx context.Context, cache string, log io.Writer) (*Installed, error) {
	if in, err := a.Find(cache); err == nil {
		return in, nil
	}
	dir := a.installDir(cache)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"private":true}`+"\n"), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--loglevel=error", a.Package+"@"+a.Version)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("npm install %s@%s: %w", a.Package, a.Version, err)
	}
	return a.Find(cache)
}

// Bin is the agent's executable.
func (in *Installed) Bin() string {
	return filepath.Join(in.Dir, "node_modules", ".bin", in.Executable)
}

// Setup writes the config files that point the agent at the server
// (server is the scripted server's base URL, http://127.0.0.1:PORT).
func (in *Installed) Setup(h *Home, server string) error {
	return in.configure(h, server)
}

// Env is the whole environment of a run: nothing of the caller's but
// PATH (node), the home, a fixed time zone and locale, and the agent's
// own variables.
func (in *Installed) Env(h *Home, server string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + h.Dir,
		"XDG_CONFIG_HOME=" + h.Config,
		"XDG_DATA_HOME=" + h.Data,
		"XDG_CACHE_HOME=" + h.Cache,
		"XDG_STATE_HOME=" + h.State,
		"TMPDIR=" + filepath.Join(h.Root, "tmp"),
		"TZ=UTC",
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
	}
	os.MkdirAll(filepath.Join(h.Root, "tmp"), 0o755)
	return append(env, in.env(h, server)...)
}

// Command is the agent run with args in h's project, stdin closed (read
// from /dev/null: several agents wait for input otherwise).
func (in *Installed) Command(ctx context.Context, h *Home, server string, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, in.Bin(), args...)
	cmd.Dir = h.Project
	cmd.Env = in.Env(h, server)
	cmd.Stdin = nil
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// Result is what one run of an agent did.
type Result struct {
	Args     []string
	Stdout   []byte
	Stderr   []byte
	ExitCode int
	Duration time.Duration
}

// Run runs the agent once with args and waits for it (at most timeout).
// A non-zero exit is not an error; a failure to start, or the timeout,
// is.
func (in *Installed) Run(ctx context.Context, h *Home, server string, timeout time.Duration, args []string) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := in.Command(ctx, h, server, args)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := &Result{Args: args, Stdout: out.Bytes(), Stderr: errb.Bytes(), Duration: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return r, fmt.Errorf("%s %s: %w (stderr: %s)", in.Name, strings.Join(args, " "), ctx.Err(), tail(errb.Bytes()))
	case errors.As(err, &exit):
		r.ExitCode = exit.ExitCode()
	case err != nil:
		return r, fmt.Errorf("%s: %w", in.Name, err)
	}
	return r, nil
}

func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}
