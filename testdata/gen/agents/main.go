// Command agents writes testdata/agents: the real coding agents, installed
// from npm at their pinned versions, run scripted sessions against the
// scripted model server of internal/scriptmodel; their stores, the
// requests they sent and their own outputs are copied out with a manifest
// (see README.md). Run by hand:
//
//	go run ./testdata/gen/agents [-agents gemini,qwen] [-cache DIR]
//	go run ./testdata/gen/agents install [-cache DIR]
//	go run ./testdata/gen/agents serve -port 18790 -log DIR
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb/internal/agentrun"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	switch {
	case len(os.Args) > 1 && os.Args[1] == "serve":
		err = serve(os.Args[2:])
	case len(os.Args) > 1 && os.Args[1] == "install":
		err = install(ctx, os.Args[2:])
	default:
		err = run(ctx, os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "agents:", err)
		os.Exit(1)
	}
}

// defaultCache is where the agents are installed: $SESSIONDB_AGENTS_DIR
// (the live test reads it too), else ~/.cache/sessiondb-agents.
func defaultCache() string {
	if d := os.Getenv("SESSIONDB_AGENTS_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "sessiondb-agents")
}

// install installs every agent's pinned version into the cache (what
// .ci/run does before the live test).
func install(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	cache := fs.String("cache", defaultCache(), "where to install the agents")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, a := range agentrun.Agents() {
		start := time.Now()
		in, err := a.Install(ctx, *cache, os.Stderr)
		if err != nil {
			return err
		}
		fmt.Printf("%s %s in %s (%.0fs)\n", a.Name, in.Version, in.Dir, time.Since(start).Seconds())
	}
	return nil
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("agents", flag.ContinueOnError)
	cache := fs.String("cache", defaultCache(), "where the agents are installed (not committed)")
	which := fs.String("agents", "", "comma-separated agents (default: all)")
	base := fs.String("base", "/tmp/sessiondb-agents", "scratch folder (fixed, so the paths the agents record are the same on every run)")
	out := fs.String("out", "", "output folder (default: testdata/agents of the module)")
	planName := fs.String("plan", "main", "main (sessions A and B) or subagent (session C, into <agent>/subagent)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		root, err := moduleRoot()
		if err != nil {
			return err
		}
		*out = filepath.Join(root, "testdata", "agents")
	}
	var agents []*agentrun.Agent
	if *which == "" {
		agents = agentrun.Agents()
	} else {
		for _, name := range strings.Split(*which, ",") {
			a := agentrun.Lookup(strings.TrimSpace(name))
			if a == nil {
				return fmt.Errorf("unknown agent %q", name)
			}
			agents = append(agents, a)
		}
	}
	for _, a := range agents {
		var err error
		switch *planName {
		case "main":
			fmt.Printf("== %s (%s@%s)\n", a.Name, a.Package, a.Version)
			err = generate(ctx, a, plan, *cache, filepath.Join(*base, a.Name), filepath.Join(*out, a.Name), "subagent")
		case "subagent":
			if !subagentAgents[a.Name] {
				continue
			}
			fmt.Printf("== %s (%s@%s), sub-agent plan\n", a.Name, a.Package, a.Version)
			err = generate(ctx, a, subPlan, *cache, filepath.Join(*base, a.Name+"-subagent"), filepath.Join(*out, a.Name, "subagent"))
		default:
			return fmt.Errorf("unknown plan %q", *planName)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", a.Name, err)
		}
	}
	return nil
}

// moduleRoot is the folder of go.mod, from the working directory up.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}
