package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
)

type secretsOptions struct {
	rule string
	json bool
}

func (a *app) secretsCommand() *cobra.Command {
	var o secretsOptions
	c := &cobra.Command{
		Use:   "secrets [ID]",
		Short: "List the secrets found in sessions (never the secrets themselves)",
		Long: `Secrets lists what the secret scan found in the stored sessions, so that you
know what to rotate: one line per secret and session, with the rule that
found it (aws-access-token, url-password, private-key, generic-api-key, …),
a masked form (the first and last four characters of a long secret, only the
length of a short one), how many times the session holds it, and where it was
first seen (time, seq; seq 0 is a compaction's summary). ID may be an alias.

The rules are gitleaks' (API keys of the major providers, tokens, private
keys, JWTs) and sessiondb's own (passwords in URLs and connection strings,
password assignments, bearer headers, AWS secret keys). Entries the
background scan has not reached yet are scanned now.

Every read command masks these secrets as [REDACTED:rule] (show, search,
list, mcp, serve; export with --redact); the stored bytes stay as they are.
'sessionctl scrub' removes them from the store for good.`,
		Example: `  sessionctl secrets
  sessionctl secrets my-alias --json
  sessionctl secrets --rule aws-access-token`,
		Args:              rangeArgs(0, 1),
		ValidArgsFunction: a.completeSessions(false),
		RunE: func(c *cobra.Command, args []string) error {
			return a.runSecrets(args, o)
		},
	}
	c.Flags().StringVar(&o.rule, "rule", "", "only secrets found by this rule")
	c.Flags().BoolVar(&o.json, "json", false, "print a JSON array")
	return c
}

// secretJSON is one row of secrets --json.
type secretJSON struct {
	SessionID   string `json:"session_id"`
	Rule        string `json:"rule"`
	Masked      string `json:"masked"`
	Fingerprint string `json:"fingerprint"`
	Count       int    `json:"count"`
	FirstSeq    int64  `json:"first_seq"`
	FirstAt     string `json:"first_at"`
}

func (a *app) runSecrets(args []string, o secretsOptions) error {
	st, err := a.openRead(nil)
	if err != nil {
		return err
	}
	k, ok := st.(sessiondb.SecretKeeper)
	if !ok {
		return fmt.Errorf("secrets: %s keeps no secret scan", location(st))
	}
	q := sessiondb.SecretQuery{Rule: o.rule}
	if len(args) == 1 {
		if q.SessionID, err = resolve(a.ctx, st, args[0]); err != nil {
			return err
		}
	}
	found, err := k.Secrets(a.ctx, q)
	if err != nil {
		return err
	}
	if o.json {
		out := make([]secretJSON, 0, len(found))
		for _, f := range found {
			out = append(out, secretJSON{SessionID: f.SessionID, Rule: f.Rule, Masked: f.Masked, Fingerprint: f.Fingerprint,
				Count: f.Count, FirstSeq: f.FirstSeq, FirstAt: jsonTime(f.FirstAt)})
		}
		return writeJSON(a.stdout, out)
	}
	if len(found) == 0 {
		fmt.Fprintln(a.stdout, "no secrets found")
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tRULE\tSECRET\tCOUNT\tFIRST SEEN (UTC)\tSEQ")
	sessions := map[string]bool{}
	for _, f := range found {
		sessions[f.SessionID] = true
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%d\n", visible(f.SessionID), f.Rule, visible(f.Masked), f.Count, tableTime(f.FirstAt), f.FirstSeq)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "\n%d secret(s) in %d session(s): rotate them; 'sessionctl scrub ID --yes' removes them from the store\n", len(found), len(sessions))
	return nil
}
