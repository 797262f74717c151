package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
)

type scrubOptions struct {
	all  bool
	yes  bool
	json bool
}

func (a *app) scrubCommand() *cobra.Command {
	var o scrubOptions
	c := &cobra.Command{
		Use:   "scrub (ID... | --all) --yes",
		Short: "Remove the secrets found in sessions from the store, for good",
		Long: `Scrub rewrites the stored bodies of a session's entries and summary messages
that hold secrets (those 'sessionctl secrets' lists), with each secret
replaced by [REDACTED:rule], one transaction per session. The search index
follows. Each scrub is recorded, and 'sessionctl doctor' reports when and
how many were scrubbed. IDs may be aliases; --all scrubs every session that
holds a secret.

It cannot be undone, and the sessions it rewrites are no longer byte for
byte what was imported: an export of them gives the masked bodies back, not
the original files. So it always needs --yes. Rotate the secrets first: a
scrub hides them here, it does not make them safe. The old text may still be
in backups (.bak-v*, remove them) and, on SQLite, in free pages until
'sessionctl vacuum' (scrub overwrites what it deletes with zeros, as
--secure-delete does elsewhere).`,
		Example: `  sessionctl secrets
  sessionctl scrub my-alias --yes
  sessionctl scrub --all --yes && sessionctl vacuum`,
		ValidArgsFunction: a.completeSessions(true),
		RunE: func(c *cobra.Command, args []string) error {
			switch {
			case o.all && len(args) > 0:
				return usageErrorf(c, "give session IDs or --all, not both")
			case !o.all && len(args) == 0:
				return usageErrorf(c, "give at least one session ID, or --all")
			case !o.yes:
				return usageErrorf(c, "scrub rewrites stored bodies for good (exports are then no longer byte for byte): pass --yes ('sessionctl secrets' lists what it would mask)")
			}
			return a.runScrub(args, o)
		},
	}
	c.Flags().BoolVar(&o.all, "all", false, "scrub every session that holds a secret")
	c.Flags().BoolVarP(&o.yes, "yes", "y", false, "rewrite the bodies (required)")
	c.Flags().BoolVar(&o.json, "json", false, "print what was scrubbed as a JSON array")
	return c
}

// scrubJSON is one row of scrub --json.
type scrubJSON struct {
	SessionID string         `json:"session_id"`
	At        string         `json:"scrubbed_at"`
	Entries   int            `json:"entries"`
	Secrets   int            `json:"secrets"`
	Rules     map[string]int `json:"rules"`
}

func (a *app) runScrub(args []string, o scrubOptions) error {
	st, err := a.openExisting(&openOptions{SecureDelete: true})
	if err != nil {
		return err
	}
	k, ok := st.(sessiondb.SecretKeeper)
	if !ok {
		return fmt.Errorf("scrub: %s keeps no secret scan", location(st))
	}
	var ids []string
	if o.all {
		found, err := k.Secrets(a.ctx, sessiondb.SecretQuery{})
		if err != nil {
			return err
		}
		for _, f := range found {
			if !slices.Contains(ids, f.SessionID) {
				ids = append(ids, f.SessionID)
			}
		}
	} else if ids, err = resolveAll(a.ctx, st, args); err != nil {
		return err
	}
	out := []scrubJSON{}
	entries, secrets := 0, 0
	for _, id := range ids {
		rec, err := k.Scrub(a.ctx, id)
		if err != nil {
			return fmt.Errorf("%w (%d bodies in %d sessions scrubbed before)", err, entries, len(out))
		}
		if rec.Entries == 0 {
			if !o.json && !o.all {
				fmt.Fprintf(a.stdout, "%s: no secrets found, nothing rewritten\n", visible(id))
			}
			continue
		}
		entries += rec.Entries
		secrets += rec.Secrets
		out = append(out, scrubJSON{SessionID: rec.SessionID, At: jsonTime(rec.At), Entries: rec.Entries, Secrets: rec.Secrets, Rules: rec.Rules})
		if !o.json {
			fmt.Fprintf(a.stdout, "%s: rewrote %d bodies, %d secrets masked\n", visible(rec.SessionID), rec.Entries, rec.Secrets)
		}
	}
	if o.json {
		return writeJSON(a.stdout, out)
	}
	if len(out) > 0 {
		fmt.Fprintf(a.stdout, "scrubbed %d bodies (%d secrets) in %d session(s); their exports are no longer byte for byte what was imported. Old text may remain in backups and, until 'sessionctl vacuum', in free pages.\n",
			entries, secrets, len(out))
	} else if o.all {
		fmt.Fprintln(a.stdout, "no secrets found, nothing rewritten")
	}
	return nil
}
