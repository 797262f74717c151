package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
)

type repriceOptions struct {
	prices string
	dryRun bool
	json   bool
}

func (a *app) repriceCommand() *cobra.Command {
	var o repriceOptions
	c := &cobra.Command{
		Use:   "reprice",
		Short: "Recompute the estimated costs of the usage ledger with current prices",
		Long: `Reprice recomputes the cost of every usage row whose cost sessiondb estimated
from a price table (Claude Code and Codex record tokens, not costs) with the
current table: the built-in prices, or --prices FILE ($SESSIONDB_PRICES) over
them. Costs a tool recorded itself (pi's usage.cost, the costUSD of old
Claude Code versions) are never changed. All rows change in one transaction,
or none does; rows whose cost does not change are not written.

The report lists, per model, the estimated rows, how many changed, and the
cost before and after; models the table does not price keep their cost and
are listed as unpriced (give their price in a file and run reprice again).

A price file is LiteLLM's model_prices_and_context_window.json, or any file
of its shape:
  {"claude-opus-5": {"input_cost_per_token": 5e-06, "output_cost_per_token": 2.5e-05,
                     "cache_read_input_token_cost": 5e-07,
                     "cache_creation_input_token_cost": 6.25e-06}}
A rate above $1,000 per token, a rate that is not a number >= 0, or a key
given twice is an error naming the entry, and nothing is changed. A stored
cost outside ±$1e15 (written by an older binary that took any price) counts
as $0 in every total; doctor reports such rows, and reprice recomputes the
estimated ones.

With --json the report is one object:
{"prices","dry_run","rows","changed","cost_before","cost_after",
 "models":[{"model","priced","rows","changed","tokens","cost_before","cost_after"}],
 "unpriced":[model...]}.`,
		Example: `  sessionctl reprice --dry-run
  curl -sLO https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json
  sessionctl reprice --prices model_prices_and_context_window.json`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return a.runReprice(o)
		},
	}
	addPricesFlag(c, &o.prices)
	c.Flags().BoolVarP(&o.dryRun, "dry-run", "n", false, "report what would change, write nothing")
	c.Flags().BoolVar(&o.json, "json", false, "print the report as JSON")
	return c
}

// repriceReport is the --json output of reprice.
type repriceReport struct {
	Prices     string          `json:"prices"`
	DryRun     bool            `json:"dry_run"`
	Rows       int64           `json:"rows"`
	Changed    int64           `json:"changed"`
	CostBefore float64         `json:"cost_before"`
	CostAfter  float64         `json:"cost_after"`
	Models     []repricedModel `json:"models"`
	Unpriced   []string        `json:"unpriced"`
}

type repricedModel struct {
	Model      string  `json:"model"`
	Priced     bool    `json:"priced"`
	Rows       int64   `json:"rows"`
	Changed    int64   `json:"changed"`
	Tokens     int64   `json:"tokens"`
	CostBefore float64 `json:"cost_before"`
	CostAfter  float64 `json:"cost_after"`
}

func (a *app) runReprice(o repriceOptions) error {
	table, _, err := a.priceTable(o.prices)
	if err != nil {
		return err
	}
	var st sessiondb.Store
	if o.dryRun {
		st, err = a.openRead(nil)
	} else {
		st, err = a.openExisting(nil)
	}
	if err != nil {
		return err
	}
	rp, ok := st.(sessiondb.Repricer)
	if !ok {
		return fmt.Errorf("reprice: %s cannot reprice its usage ledger", location(st))
	}
	res, err := rp.Reprice(a.ctx, table.Func(), o.dryRun)
	if err != nil {
		return err
	}
	r := repriceReport{Prices: table.Source(), DryRun: o.dryRun, Models: []repricedModel{}, Unpriced: []string{}}
	for _, m := range res.Models {
		r.Rows += m.Rows
		r.Changed += m.Changed
		r.CostBefore += m.CostBefore
		r.CostAfter += m.CostAfter
		r.Models = append(r.Models, repricedModel(m))
		if !m.Priced && m.Tokens > 0 {
			r.Unpriced = append(r.Unpriced, m.Model)
		}
	}
	if o.json {
		return writeJSON(a.stdout, r)
	}
	return a.printReprice(r)
}

func (a *app) printReprice(r repriceReport) error {
	w := a.stdout
	verb := "repriced"
	if r.DryRun {
		verb = "dry run: would reprice"
	}
	fmt.Fprintf(w, "%s %d of %d estimated usage rows with %s; their cost $%.4f -> $%.4f\n",
		verb, r.Changed, r.Rows, cell(r.Prices, 0), r.CostBefore, r.CostAfter)
	if len(r.Models) > 0 {
		tw := newTable(w)
		fmt.Fprintln(tw, "MODEL\tROWS\tCHANGED\tCOST BEFORE\tCOST AFTER")
		for _, m := range r.Models {
			after := fmt.Sprintf("$%.4f", m.CostAfter)
			if !m.Priced {
				after = "(no price)"
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t$%.4f\t%s\n", modelCell(m.Model), m.Rows, m.Changed, m.CostBefore, after)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, m := range r.Unpriced {
		fmt.Fprintf(w, "unpriced: model %s has no price in %s; its rows keep their cost (give a price with --prices FILE)\n",
			cell(strconv.Quote(m), 0), cell(r.Prices, 0))
	}
	return nil
}

// modelCell shows a model name in a table ("(none)" when empty).
func modelCell(m string) string {
	if m == "" {
		return "(none)"
	}
	return cell(m, 60)
}
