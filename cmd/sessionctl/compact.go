package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/compactor"
)

type compactOptions struct {
	keep       int
	budget     int
	anchor     int
	threshold  int64
	summarizer string
	model      string
	dryRun     bool
	json       bool
	timeout    time.Duration
}

func (a *app) compactCommand() *cobra.Command {
	var o compactOptions
	c := &cobra.Command{
		Use:   "compact ID [--keep TURNS | --budget TOKENS] [--summarizer offline|openai] [--dry-run]",
		Short: "Summarize the older part of a session's transcript",
		Long: `Compact replaces the older part of a session's effective transcript with a
summary message and keeps the recent part verbatim. It records a compaction
checkpoint: the summarized entries stay in the log (show --all-entries)
until 'sessionctl prune' deletes them.

What is kept: the last --keep TURNS turns (a turn starts at a user message;
default 2), or the most recent entries that fit in --budget TOKENS
(estimated), whichever is shorter when both are given, plus the first
--anchor entries. A tool call is never separated from its results.
Claude Code, Codex and pi sessions are read as those tools write them: a
turn starts at a user prompt (not a tool result, a bookkeeping line or
injected context), and the summary is written as a message of the
session's own format. --keep starts the kept part at a prompt; --budget
starts it at the first message boundary that fits, inside a long turn if
need be (a split turn, as pi's compaction does it: the turn's beginning is
summarized apart and the summary names the turn). The compaction records
the files the summarized part read and changed (show lists them).

Summarizers: offline (default) writes a deterministic digest without any
network; openai calls an OpenAI-compatible chat-completions endpoint
($OPENAI_BASE_URL, $OPENAI_API_KEY; model --model or
$SESSIONDB_SUMMARY_MODEL), which works with Ollama, llama.cpp and vLLM too.
--timeout bounds the whole summarizer call, retries included (default 5m);
error messages never show the API key or a password in the URL.

--dry-run shows where the transcript would be cut, without summarizing or
writing. --threshold compacts only when the transcript is estimated above
that many tokens. When there is nothing to drop, compact says why and
exits 0.`,
		Example: `  sessionctl compact my-alias --dry-run
  sessionctl compact my-alias --keep 4
  SESSIONDB_SUMMARY_MODEL=llama3.1 OPENAI_BASE_URL=http://localhost:11434/v1 sessionctl compact my-alias --summarizer openai`,
		Args:              exactArgs(1),
		ValidArgsFunction: a.completeSessions(false),
		RunE: func(c *cobra.Command, args []string) error {
			switch {
			case o.keep < 0:
				return usageErrorf(c, "--keep must be >= 0, got %d", o.keep)
			case o.budget < 0:
				return usageErrorf(c, "--budget must be >= 0, got %d", o.budget)
			case o.anchor < 0:
				return usageErrorf(c, "--anchor must be >= 0, got %d", o.anchor)
			case o.threshold < 0:
				return usageErrorf(c, "--threshold must be >= 0, got %d", o.threshold)
			}
			switch o.summarizer {
			case "offline", "openai":
			default:
				return usageErrorf(c, "unknown --summarizer %q: use offline or openai", o.summarizer)
			}
			if o.model != "" && o.summarizer != "openai" {
				return usageErrorf(c, "--model needs --summarizer openai")
			}
			return a.runCompact(args[0], o)
		},
	}
	c.Flags().IntVar(&o.keep, "keep", 0, "keep the last TURNS turns verbatim (default 2 when --budget is not given)")
	c.Flags().IntVar(&o.budget, "budget", 0, "keep the most recent entries that fit in TOKENS (estimated)")
	c.Flags().IntVar(&o.anchor, "anchor", 0, "also keep the first N entries verbatim")
	c.Flags().Int64Var(&o.threshold, "threshold", 0, "compact only when the transcript exceeds TOKENS (estimated)")
	c.Flags().StringVar(&o.summarizer, "summarizer", "offline", "offline or openai")
	c.Flags().DurationVar(&o.timeout, "timeout", 5*time.Minute, "give up on --summarizer openai after this long, retries included")
	c.Flags().StringVar(&o.model, "model", "", "model for --summarizer openai (default $SESSIONDB_SUMMARY_MODEL)")
	c.Flags().BoolVarP(&o.dryRun, "dry-run", "n", false, "show the cut, write nothing")
	c.Flags().BoolVar(&o.json, "json", false, "print the result as JSON")
	return c
}

// compactReport is the --json output of compact.
type compactReport struct {
	SessionID    string `json:"session_id"`
	DryRun       bool   `json:"dry_run"`
	Compacted    bool   `json:"compacted"`
	Reason       string `json:"reason,omitempty"`
	Dropped      int    `json:"dropped"`
	Kept         int    `json:"kept"`
	Anchor       int    `json:"anchor"`
	TokensBefore int64  `json:"tokens_before"`
	TokensAfter  int64  `json:"tokens_after,omitempty"`
	CompactionID int64  `json:"compaction_id,omitempty"`
	Sequence     int64  `json:"sequence,omitempty"`
	// SplitTurn: the kept part starts inside this turn (its beginning is
	// summarized apart); ReadFiles and ModifiedFiles: the files the
	// summarized part read and changed (compactor.Details).
	SplitTurn     *compactor.SplitTurn `json:"split_turn,omitempty"`
	ReadFiles     []string             `json:"read_files,omitempty"`
	ModifiedFiles []string             `json:"modified_files,omitempty"`
}

func (a *app) runCompact(arg string, o compactOptions) error {
	st, id, err := a.openSession(arg)
	if err != nil {
		return err
	}
	policy := compactor.Policy{KeepTurns: o.keep, KeepTokens: o.budget, Anchor: o.anchor}

	if o.dryRun {
		full, err := st.LoadFull(a.ctx, id, sessiondb.LoadOptions{})
		if err != nil {
			return fmt.Errorf("load %s: %w", id, err)
		}
		transcript := full.Transcript
		var tokens int64
		for _, e := range transcript {
			tokens += int64(compactor.EstimateTokens(e))
		}
		out := compactReport{SessionID: id, DryRun: true, TokensBefore: tokens}
		split := ""
		if o.threshold > 0 && tokens <= o.threshold {
			out.Reason = compactor.ReasonBelowThreshold
		} else {
			plan := compactor.PlanFormat(full.Session.SourceFormat, transcript, policy)
			out.Reason = plan.Reason
			out.Anchor = plan.Anchor
			if plan.Drop {
				out.Dropped = plan.KeepFrom - plan.Anchor
				out.Kept = len(transcript) - plan.KeepFrom
			}
			if plan.Split {
				split = fmt.Sprintf(", cutting inside the turn that starts at entry %d of the transcript", plan.TurnStart+1)
			}
		}
		if o.json {
			return writeJSON(a.stdout, out)
		}
		if out.Reason != "" {
			fmt.Fprintf(a.stdout, "dry run: %s: nothing to compact (%s; ~%d tokens)\n", id, out.Reason, tokens)
			return nil
		}
		fmt.Fprintf(a.stdout, "dry run: %s: would summarize %d of %d messages, keeping %d verbatim (+%d anchor)%s; ~%d tokens now\n",
			id, out.Dropped, len(transcript), out.Kept, out.Anchor, split, tokens)
		return nil
	}

	var sum compactor.Summarizer = compactor.Offline{}
	if o.summarizer == "openai" {
		oa, err := compactor.NewOpenAI(compactor.OpenAIOptions{Model: o.model, TotalTimeout: o.timeout})
		if err != nil {
			return fmt.Errorf("%w (or pass --model)", err)
		}
		sum = oa
	}
	comp := &compactor.Compactor{Store: st, Summarizer: sum, Policy: policy}
	var res compactor.Result
	if o.threshold > 0 {
		res, err = comp.MaybeCompact(a.ctx, id, o.threshold)
	} else {
		res, err = comp.Compact(a.ctx, id)
	}
	if err != nil {
		return fmt.Errorf("compact %s: %w", id, err)
	}
	out := compactReport{
		SessionID: id, Compacted: res.Compacted, Reason: res.Reason, Dropped: res.Dropped,
		TokensBefore: res.TokensBefore, TokensAfter: res.TokensAfter,
		CompactionID: res.Compaction.ID, Sequence: res.Session.Sequence,
	}
	if d, ok := compactor.ParseDetails(res.Compaction); ok && res.Compacted {
		out.SplitTurn, out.ReadFiles, out.ModifiedFiles = d.SplitTurn, d.ReadFiles, d.ModifiedFiles
	}
	if o.json {
		return writeJSON(a.stdout, out)
	}
	if !res.Compacted {
		fmt.Fprintf(a.stdout, "%s: nothing to compact (%s)\n", id, res.Reason)
		return nil
	}
	fmt.Fprintf(a.stdout, "compacted %s: summarized %d messages, ~%d -> ~%d tokens (run 'sessionctl prune %s' to delete the summarized entries)\n",
		id, res.Dropped, res.TokensBefore, res.TokensAfter, id)
	if out.SplitTurn != nil {
		fmt.Fprintf(a.stdout, "  %s\n", visible(compactor.SplitTurnLine(*out.SplitTurn)))
	}
	writeFileLists(a.stdout, "  ", out.ReadFiles, out.ModifiedFiles)
	return nil
}
