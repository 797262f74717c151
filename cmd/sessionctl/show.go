package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/compactor"
	"github.com/sessiondb/sessiondb/jsonlimport"
)

type showOptions struct {
	allEntries bool
	state      bool
	interrupt  bool
	json       bool
	// bookkeeping: show bookkeeping lines too.
	bookkeeping bool
	// noRedact shows secrets as stored.
	noRedact bool
}

func (a *app) showCommand() *cobra.Command {
	var o showOptions
	c := &cobra.Command{
		Use:   "show ID",
		Short: "Show a session's transcript",
		Long: `Show prints a session's effective transcript: the summary messages of its
latest compaction, then the log entries kept after it. ID may be an alias.

The human view shows each message's role and text; tool calls (with what each
ran: the command, the file), tool results, thinking and injected context are
folded to one line each. One API response is one message, however many log
entries it was streamed in (Claude Code writes one a content block): its
lines are shown together under one header ([410-413] assistant). The header
counts messages that way, as list does, and log entries apart. Bookkeeping lines
(Claude Code progress and snapshots, Codex token counts and event echoes, pi
model changes) are left out unless --bookkeeping.

With --json, show prints the transcript as a JSON array whose elements are
the stored message bodies, byte for byte. With --state or --interrupt as
well, it prints an object {"session", "transcript", "state", "interrupt"}
instead (state and interrupt are null when absent).

Secrets found in the session (API keys, tokens, private keys, passwords in
URLs, see "sessionctl secrets") are shown as [REDACTED:rule], in the human
view and in --json, whose bodies stay valid JSON. --no-redact shows them as
stored (and --json then prints the bodies byte for byte): for a person at a
terminal, not for output that is shared or handed to a model.`,
		Example: `  sessionctl show 20260320_143000_6f00bfe3f7c54b2f86d780df58ccf0a1
  sessionctl show my-alias --state
  sessionctl show my-alias --json | jq '.[-1]'`,
		Args:              exactArgs(1),
		ValidArgsFunction: a.completeSessions(false),
		RunE: func(c *cobra.Command, args []string) error {
			return a.runShow(args[0], o)
		},
	}
	c.Flags().BoolVar(&o.allEntries, "all-entries", false, "show the raw log, superseded (compacted, truncated) entries included")
	c.Flags().BoolVar(&o.state, "state", false, "show the session's state document")
	c.Flags().BoolVar(&o.interrupt, "interrupt", false, "show the pending interrupt document")
	c.Flags().BoolVar(&o.json, "json", false, "print the stored bodies as JSON")
	c.Flags().BoolVar(&o.bookkeeping, "bookkeeping", false, "show bookkeeping lines too (progress, token counts, snapshots, echoes of messages)")
	c.Flags().BoolVar(&o.noRedact, "no-redact", false, "show secrets as stored instead of [REDACTED:rule]")
	return c
}

func (a *app) runShow(arg string, o showOptions) error {
	st, id, err := a.openSessionRead(arg)
	if err != nil {
		return err
	}
	if !o.noRedact {
		st = redactedView(st)
	}
	full, err := st.LoadFull(a.ctx, id, sessiondb.LoadOptions{})
	if err != nil {
		return fmt.Errorf("load %s: %w", id, err)
	}
	entries := full.Transcript
	if o.allEntries {
		// Entries reads in a second transaction; it may see a commit made
		// since LoadFull, which only makes the log longer.
		entries, err = st.Entries(a.ctx, id, 1, 0)
		if err != nil {
			return fmt.Errorf("read entries of %s: %w", id, err)
		}
	}

	if o.json {
		if !o.state && !o.interrupt {
			return writeBodies(a.stdout, entries)
		}
		return writeShowObject(a.stdout, full, entries, o)
	}

	w := a.stdout
	s := full.Session
	fmt.Fprintf(w, "session  %s\n", visible(s.ID))
	if s.Title != "" {
		fmt.Fprintf(w, "title    %s\n", visible(s.Title))
	}
	if len(s.Aliases) > 0 {
		fmt.Fprintf(w, "aliases  %s\n", visible(strings.Join(s.Aliases, ", ")))
	}
	fmt.Fprintf(w, "created  %s   updated %s (UTC)\n", tableTime(s.CreatedAt), tableTime(s.UpdatedAt))
	// Messages as the agent counts them (one API response is one
	// message, however many lines it was streamed in): the count list
	// shows. Log entries are the rows, bookkeeping lines included.
	fmt.Fprintf(w, "messages %d   log entries %d in the transcript, up to seq %d in the log   revision %d\n",
		s.MessageCount, len(full.Transcript), s.LastSeq, s.Sequence)
	if s.ParentID != "" && jsonlimport.SubAgent(s) {
		fmt.Fprintf(w, "sub-agent of %s\n", visible(s.ParentID))
	} else if s.ParentID != "" {
		fmt.Fprintf(w, "fork of  %s at seq %d\n", visible(s.ParentID), s.ForkSeq)
	}
	if s.SourceFormat != "" {
		fmt.Fprintf(w, "source   %s %s\n", visible(s.SourceFormat), visible(s.SourcePath))
	}
	if s.Project != "" {
		fmt.Fprintf(w, "project  %s\n", visible(s.Project))
	}
	if s.Summary != "" {
		fmt.Fprintf(w, "summary  %s\n", fold(s.Summary))
	}
	if err := showCompaction(a, st, id, w); err != nil {
		return err
	}
	if o.allEntries {
		fmt.Fprintf(w, "\nraw log (%d entries, superseded ones included):\n", len(entries))
	}
	fmt.Fprintln(w)
	hidden := renderTranscript(w, s.SourceFormat, entries, o.bookkeeping)
	if len(entries) == 0 {
		fmt.Fprintln(w, "(empty transcript)")
	}
	if hidden > 0 {
		fmt.Fprintf(w, "(%d bookkeeping lines not shown: --bookkeeping shows them)\n", hidden)
	}
	if o.state {
		fmt.Fprintln(w)
		writeDocument(w, "state", full.State)
	}
	if o.interrupt {
		fmt.Fprintln(w)
		writeDocument(w, "interrupt", full.Interrupt)
	}
	return nil
}

// showCompaction prints the session's current compaction, when it has
// one: where the transcript starts, the turn it cut into and the files
// the summarized part read and changed (compactor.Files: this package's
// compactions and pi's own).
func showCompaction(a *app, st sessiondb.Store, id string, w io.Writer) error {
	comps, err := st.Compactions(a.ctx, id)
	if err != nil {
		return fmt.Errorf("read compactions of %s: %w", id, err)
	}
	if len(comps) == 0 {
		return nil
	}
	c := comps[len(comps)-1]
	fmt.Fprintf(w, "compacted %s: the transcript keeps the log from #%d", tableTime(c.CreatedAt), c.KeepFromSeq)
	if c.TokensBefore > 0 {
		fmt.Fprintf(w, " (~%d -> ~%d tokens)", c.TokensBefore, c.TokensAfter)
	}
	fmt.Fprintln(w)
	if d, ok := compactor.ParseDetails(c); ok && d.SplitTurn != nil {
		fmt.Fprintf(w, "         %s\n", visible(compactor.SplitTurnLine(*d.SplitTurn)))
	}
	read, changed := compactor.Files(c)
	writeFileLists(w, "         ", read, changed)
	return nil
}

// writeFileLists prints the files a compaction's summarized part read and
// changed, one line each list.
func writeFileLists(w io.Writer, indent string, read, changed []string) {
	if len(read) > 0 {
		fmt.Fprintf(w, "%sfiles read:    %s\n", indent, visible(strings.Join(read, ", ")))
	}
	if len(changed) > 0 {
		fmt.Fprintf(w, "%sfiles changed: %s\n", indent, visible(strings.Join(changed, ", ")))
	}
}

// writeBodies writes entries' bodies as a JSON array, one element per
// line. The bodies are copied byte for byte: re-encoding them would change
// what the store promises to return unchanged.
func writeBodies(w io.Writer, entries []sessiondb.Entry) error {
	var b bytes.Buffer
	b.WriteString("[")
	for i, e := range entries {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n")
		b.Write(e.Body)
	}
	if len(entries) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	_, err := w.Write(b.Bytes())
	return err
}

func writeShowObject(w io.Writer, full sessiondb.Full, entries []sessiondb.Entry, o showOptions) error {
	meta, err := json.Marshal(toSessionJSON(full.Session))
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString(`{"session":`)
	b.Write(meta)
	b.WriteString(",\n\"transcript\":")
	if err := writeBodies(&b, entries); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // writeBodies' final newline
	if o.state {
		b.WriteString(",\n\"state\":")
		b.Write(rawOrNull(full.State))
	}
	if o.interrupt {
		b.WriteString(",\n\"interrupt\":")
		b.Write(rawOrNull(full.Interrupt))
	}
	b.WriteString("}\n")
	_, err = w.Write(b.Bytes())
	return err
}

func rawOrNull(doc json.RawMessage) []byte {
	if doc == nil {
		return []byte("null")
	}
	return doc
}

// writeDocument prints a JSON document indented for reading.
func writeDocument(w io.Writer, name string, doc json.RawMessage) {
	if doc == nil {
		fmt.Fprintf(w, "%s: none\n", name)
		return
	}
	var out bytes.Buffer
	if err := json.Indent(&out, doc, "  ", "  "); err != nil {
		out.Reset()
		out.Write(doc)
	}
	fmt.Fprintf(w, "%s:\n  %s\n", name, visible(out.String()))
}
