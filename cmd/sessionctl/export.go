package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb/jsonlimport"
)

type exportOptions struct {
	all    bool
	format string
	out    string
	json   bool
	force  bool
	// redact masks secrets in what is written; noRedact writes them as
	// stored in the formats for people (markdown, html), which mask them
	// by default.
	redact, noRedact bool
}

func (a *app) exportCommand() *cobra.Command {
	var o exportOptions
	c := &cobra.Command{
		Use:   "export (ID... | --all) --format FORMAT --out DIR",
		Short: "Write sessions back in a source tool's format",
		Long: `Export writes sessions into DIR in the chosen format, such that the source
tool's own loader returns the same transcript. It prints the files written,
one per line (--json: a JSON array of paths). IDs may be aliases.

Every path is planned before anything is written: an export that would write
outside DIR, give two sessions one file (also names that differ only in case),
or replace an existing file (without --force) writes nothing. Files are
created 0600 and directories 0700, as the database is, and symbolic links
inside DIR are not followed. When a write fails part-way, the files already
written are printed before the error. With --all, a session the format
cannot hold is left out and named in the error, the others are written,
and the exit code is 1.

A session imported from Claude Code, Codex, Gemini CLI or Qwen Code exported
in its own format gives back the file it came from, byte for byte, in the
tool's layout (projects/<folder>/<id>.jsonl with its sub-agent and
tool-results files; sessions/YYYY/MM/DD/rollout-….jsonl;
tmp/<project>/chats/session-….jsonl; projects/<cwd>/chats/<id>.jsonl),
ready to copy into ~/.claude, ~/.codex, ~/.gemini or ~/.qwen on another
machine. A session imported from opencode is written as
` + "`opencode export`" + ` prints it (<id>.json), which ` + "`opencode import FILE`" + `
loads. Into another format, a session is translated
into that format's own shapes (text, thinking, tool calls and their
results; pi takes Claude Code, Codex, picoclaw, zot and swink sessions) or
refused with an error naming what the format cannot hold; nothing is
dropped silently.

--format markdown and --format html write one file per session for people to
read, share and archive (<id>.md, <id>.html; characters of the ID other than
letters, digits, '.', '-' and '_' as '_'): the effective transcript as the
viewer shows it, tool calls with their results, thinking and injected context
folded (HTML <details>; Markdown fenced blocks that no transcript text can
close), bookkeeping lines left out, nothing clipped. The HTML file is
self-contained: the stylesheet inline, no script (its Content-Security-Policy
forbids scripts and loading anything), every stored text escaped.

Export writes the stored bytes, secrets included: that is what makes it
exact. --redact writes every secret found (see "sessionctl secrets") as
[REDACTED:rule] instead, for sharing; the files are then not byte for byte
what was imported. Markdown and HTML are read surfaces, like show and serve:
they mask secrets by default, and --no-redact writes them as stored. A
session scrubbed with "sessionctl scrub" exports with its secrets masked
either way: its stored bytes were rewritten.`,
		Example: `  sessionctl export my-alias --format picoclaw --out /tmp/picoclaw
  sessionctl export 5c2d8e41-… --format claude-code --out /tmp/claude   # then copy projects/ into ~/.claude
  sessionctl export --all --format zot --out backup/ --json
  sessionctl export my-alias --format html --out share/   # one self-contained page, secrets masked`,
		ValidArgsFunction: a.completeSessions(true),
		RunE: func(c *cobra.Command, args []string) error {
			switch {
			case o.all && len(args) > 0:
				return usageErrorf(c, "give session IDs or --all, not both")
			case !o.all && len(args) == 0:
				return usageErrorf(c, "give at least one session ID, or --all")
			}
			switch {
			case o.format == "":
				return usageErrorf(c, "--format is required: %s", orList(exportFormats()))
			case !knownFormat(exportFormats(), o.format):
				return usageErrorf(c, "unknown --format %q: use %s", o.format, orList(exportFormats()))
			}
			if o.redact && o.noRedact {
				return usageErrorf(c, "--redact and --no-redact contradict each other")
			}
			if o.noRedact && !shareFormat(o.format) {
				return usageErrorf(c, "--no-redact is for markdown and html; %s is written as stored unless --redact", o.format)
			}
			if o.out == "" {
				return usageErrorf(c, "--out DIR is required")
			}
			return a.runExport(args, o)
		},
	}
	c.Flags().BoolVar(&o.all, "all", false, "export every session")
	c.Flags().StringVarP(&o.format, "format", "f", "", "output format: "+orList(exportFormats()))
	c.Flags().StringVarP(&o.out, "out", "o", "", "output directory (created if missing)")
	c.Flags().BoolVar(&o.json, "json", false, "print the files written as a JSON array")
	c.Flags().BoolVar(&o.force, "force", false, "replace files that already exist in DIR")
	c.Flags().BoolVar(&o.redact, "redact", false, "write secrets as [REDACTED:rule] (for sharing; no longer byte for byte; markdown and html always do unless --no-redact)")
	c.Flags().BoolVar(&o.noRedact, "no-redact", false, "markdown and html: write secrets as stored instead of [REDACTED:rule]")
	return c
}

func (a *app) runExport(args []string, o exportOptions) error {
	st, err := a.openRead(nil)
	if err != nil {
		return err
	}
	var ids []string
	if o.all {
		if ids, err = allSessionIDs(a.ctx, st); err != nil {
			return err
		}
	} else {
		ids, err = resolveAll(a.ctx, st, args)
		if err != nil {
			return err
		}
	}
	// --all exports what it can: a session the format cannot hold is
	// reported and left out, and the rest is written (exit 1).
	var skipped []string
	eo := jsonlimport.ExportOptions{Force: o.force}
	if o.all {
		eo.Skip = func(id string, err error) {
			skipped = append(skipped, fmt.Sprintf("%s (%s)", visible(id), visible(err.Error())))
		}
	}
	src := st
	if o.redact || shareFormat(o.format) && !o.noRedact {
		src = redactedView(st)
	}
	var files []string
	if shareFormat(o.format) {
		files, err = exportShare(a, src, ids, o)
	} else {
		files, err = jsonlimport.ExportWith(a.ctx, src, ids, o.format, o.out, eo)
	}
	// The files written are printed even when the export failed part-way,
	// so that the user knows what is in DIR.
	if o.json {
		if files == nil {
			files = []string{}
		}
		if jerr := writeJSON(a.stdout, files); jerr != nil && err == nil {
			return jerr
		}
	} else {
		for _, f := range files {
			fmt.Fprintln(a.stdout, f)
		}
	}
	if err != nil {
		return fmt.Errorf("export to %s: %w", o.out, err)
	}
	if n := len(skipped); n > 0 {
		const shown = 5
		more := ""
		if n > shown {
			skipped, more = skipped[:shown], fmt.Sprintf("; and %d more", n-shown)
		}
		return fmt.Errorf("export to %s: %d session(s) could not be exported as %s and were left out, the others were written: %s%s",
			o.out, n, o.format, strings.Join(skipped, "; "), more)
	}
	return nil
}
