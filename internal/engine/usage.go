package engine

import (
	"context"
	"fmt"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
)

// UsageTotals implements sessiondb.Store: Driver.UsageTotalsOf of the one
// session (zero totals when it has no usage rows).
func (e *Engine) UsageTotals(ctx context.Context, id string) (sessiondb.UsageTotals, error) {
	if err := sessiondb.ValidateID(id); err != nil {
		return sessiondb.UsageTotals{}, fmt.Errorf("usage of %s: %w", id, err)
	}
	var t sessiondb.UsageTotals
	err := e.d.Read(ctx, func(tx Tx) error {
		if err := SessionExists(ctx, tx, id); err != nil {
			return err
		}
		totals, err := e.d.UsageTotalsOf(ctx, tx, []string{id})
		t = totals[id]
		return err
	})
	return t, err
}

// UsageReport implements sessiondb.Store.
func (e *Engine) UsageReport(ctx context.Context, q sessiondb.UsageQuery) ([]sessiondb.UsageRow, error) {
	if q.SessionID != "" {
		if err := sessiondb.ValidateID(q.SessionID); err != nil {
			return nil, fmt.Errorf("usage report: %w", err)
		}
	}
	var out []sessiondb.UsageRow
	err := e.d.Read(ctx, func(tx Tx) error {
		if q.SessionID != "" {
			if err := SessionExists(ctx, tx, q.SessionID); err != nil {
				return err
			}
		}
		var err error
		out, err = backend.UsageReport(ctx, tx, q)
		return err
	})
	return out, err
}

// Reprice implements sessiondb.Repricer: one write transaction (see
// backend.Reprice), or a read transaction for a dry run.
func (e *Engine) Reprice(ctx context.Context, prices sessiondb.PriceFunc, dryRun bool) (sessiondb.RepriceReport, error) {
	var rep sessiondb.RepriceReport
	run := e.d.Write
	if dryRun {
		run = e.d.Read
	}
	err := run(ctx, func(tx Tx) error {
		var err error
		rep, err = backend.Reprice(ctx, tx, prices, dryRun)
		return err
	})
	return rep, err
}
