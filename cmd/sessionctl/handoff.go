package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/handoff"
)

type handoffOptions struct {
	to, home, cwd, opencode string
	dryRun, json            bool
}

func (a *app) handoffCommand() *cobra.Command {
	var o handoffOptions
	c := &cobra.Command{
		Use:   "handoff ID --to claude-code|codex|gemini|qwen|pi|opencode [--home DIR] [--cwd DIR] [--dry-run] [--json]",
		Short: "Write a session into another agent's own store and print the command that resumes it",
		Long: `Handoff writes a session into the store of a coding agent (its default place
under your home, or under --home DIR) so that the agent resumes it: byte for
byte when the session came from that agent, translated into its shapes
otherwise, or refused with the reason when the target has no shape for
something the session holds (nothing is dropped silently). It prints the
files written, what the target cannot carry or use (thinking another
vendor's API signed, calls of tools the target does not have) and the exact
command that resumes the session, to run in the directory it names
(--cwd, default the session's project, else the current directory: the
agents list the sessions of the directory they run in).

Files are written through a temporary file and a link in the same folder:
a crash leaves no half file the agent would list, and no file of the
agent's is ever replaced. When the target already holds the session (the
same ID), it is written under a new ID, recorded on the source here (its
attributes' "handoffs": {NEWID: {agent, at}}; not as a session of its own,
which would stand in the way of importing the agent's file later). For opencode the session is loaded into its database by
'opencode import FILE' (opencode's own transaction); --opencode names the
executable when it is not on PATH. --dry-run says what would be written
where, and writes nothing. The session is written with its secrets as
stored, as export writes it. ID may be an alias.

Translations exist today into pi and opencode (from Codex, Gemini CLI, Qwen
Code, pi and opencode sessions); Claude Code, Codex, Gemini CLI and Qwen
Code take back their own sessions.`,
		Example: `  sessionctl handoff 01a24b2d-56b0-7ef2-a254-f50b64f4f6df --to pi
  sessionctl handoff my-alias --to opencode --home /tmp/other-home --json
  sessionctl handoff my-alias --to claude-code --dry-run`,
		Args:              exactArgs(1),
		ValidArgsFunction: a.completeSessions(false),
		RunE: func(c *cobra.Command, args []string) error {
			if o.to == "" {
				return usageErrorf(c, "--to is required: claude-code, codex, gemini, qwen, pi or opencode")
			}
			if _, ok := handoff.LookupTarget(o.to); !ok {
				return usageErrorf(c, "unknown --to %q: use claude-code, codex, gemini, qwen, pi or opencode", o.to)
			}
			return a.runHandoff(args[0], o)
		},
	}
	c.Flags().StringVar(&o.to, "to", "", "target agent: claude-code, codex, gemini, qwen, pi or opencode")
	c.Flags().StringVar(&o.home, "home", "", "the target's home folder (default: yours, with CLAUDE_CONFIG_DIR, CODEX_HOME, … as set)")
	c.Flags().StringVar(&o.cwd, "cwd", "", "the directory the target will be run in (default: the session's project, else the current directory)")
	c.Flags().StringVar(&o.opencode, "opencode", "", "the opencode executable that loads the session (default: opencode on PATH)")
	c.Flags().BoolVar(&o.dryRun, "dry-run", false, "say what would be written where, write nothing")
	c.Flags().BoolVar(&o.json, "json", false, "print the result as JSON")
	return c
}

func (a *app) runHandoff(arg string, o handoffOptions) error {
	var st sessiondb.Store
	var err error
	if o.dryRun {
		st, err = a.openRead(nil)
	} else {
		st, err = a.openExisting(nil)
	}
	if err != nil {
		return err
	}
	id, err := resolve(a.ctx, st, arg)
	if err != nil {
		return err
	}
	env := handoff.Env{Home: o.home, Getenv: os.Getenv}
	if o.home == "" {
		if env.Home, err = os.UserHomeDir(); err != nil {
			return fmt.Errorf("handoff: %w (give --home)", err)
		}
	} else {
		env.Getenv = func(string) string { return "" } // --home: the agents' defaults under it
	}
	opts := handoff.Options{To: o.to, Env: env, Cwd: o.cwd, DryRun: o.dryRun, Opencode: o.opencode,
		Relate: func(ctx context.Context, source, newID string) error {
			// On the source, not as a new session: a session under newID
			// here would stand in the way of importing the agent's file.
			patch, err := json.Marshal(map[string]any{"handoffs": map[string]any{
				newID: map[string]string{"agent": o.to, "at": time.Now().UTC().Format(time.RFC3339)}}})
			if err != nil {
				return err
			}
			_, err = st.Commit(ctx, source, sessiondb.Commit{Meta: &sessiondb.MetaPatch{AttrsMerge: patch}})
			return err
		}}
	res, err := handoff.Handoff(a.ctx, st, id, opts)
	if res != nil && (err == nil || o.json) {
		if o.json {
			if jerr := writeJSON(a.stdout, res); jerr != nil && err == nil {
				return jerr
			}
		} else {
			printHandoff(a, res)
		}
	}
	return err
}

func printHandoff(a *app, r *handoff.Result) {
	w := a.stdout
	verb := "wrote"
	if r.DryRun {
		verb = "would write"
	}
	how := "byte for byte"
	if r.Translated {
		how = "translated"
	}
	fmt.Fprintf(w, "%s session %s for %s (%s, %s)\n", verb, visible(r.Session), r.Agent, r.Format, how)
	for _, f := range r.Files {
		fmt.Fprintf(w, "  %s\n", visible(f))
	}
	for _, l := range r.Lost {
		fmt.Fprintf(w, "cannot carry: %s\n", visible(l))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", visible(n))
	}
	prefix := "cd " + shellQuote(r.Cwd) + " && "
	for _, e := range r.Env {
		k, v, _ := strings.Cut(e, "=")
		prefix += k + "=" + shellQuote(v) + " "
	}
	fmt.Fprintf(w, "resume:    %s%s\n", prefix, quoteArgs(r.Resume))
	fmt.Fprintf(w, "headless:  %s%s\n", prefix, quoteArgs(r.ResumeHeadless))
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, s := range args {
		q[i] = shellQuote(s)
	}
	return strings.Join(q, " ")
}
