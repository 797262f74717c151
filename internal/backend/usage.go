package backend

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
)

// The usage report and the repricing of estimated costs, written once for
// both backends. The SQL below is the dialect both SQLite and PostgreSQL
// read the same way: CAST(… AS TEXT / BIGINT / INTEGER / DOUBLE
// PRECISION), substr, coalesce, CASE and IN lists. cost_estimated is 0/1
// in SQLite and a boolean in PostgreSQL; a bare `u.cost_estimated`
// condition reads the same on both.

// Tx is what both backends' transactions offer (*sqlx.Tx, and pgstore's
// transaction, which rebinds ? placeholders to $n).
type Tx interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// TimeLayout is how both backends store times: UTC, fixed width, so that
// text order is time order.
const TimeLayout = "2006-01-02T15:04:05.000000000Z"

// FormatTime is t as both backends store it.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTime reads a stored time; rows written by hand may use another RFC
// 3339 form. An unreadable time is the zero time.
func ParseTime(s string) time.Time {
	if t, ok := parseLayout(s); ok {
		return t
	}
	t, err := time.Parse(TimeLayout, s)
	if err != nil {
		t, _ = time.Parse(time.RFC3339Nano, s)
	}
	return t
}

// parseLayout reads a time in exactly TimeLayout, without time.Parse's
// generality: a usage report parses two per group, hundreds of thousands
// on a large ledger.
func parseLayout(s string) (time.Time, bool) {
	if len(s) != len(TimeLayout) || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' || s[29] != 'Z' {
		return time.Time{}, false
	}
	num := func(from, to int) (int, bool) {
		n := 0
		for i := from; i < to; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 7)
	d, ok3 := num(8, 10)
	h, ok4 := num(11, 13)
	mi, ok5 := num(14, 16)
	se, ok6 := num(17, 19)
	ns, ok7 := num(20, 29)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, se, ns, time.UTC)
	if t.Day() != d { // February 30th and the like: let time.Parse refuse it
		return time.Time{}, false
	}
	return t, true
}

// pricesPerStatement bounds the models one statement prices (11
// parameters each in a price expression, which a statement may hold
// twice, and one in a model list; SQLite takes at most 32766 parameters).
// A real ledger has tens.
const pricesPerStatement = 400

// maxReportPrices bounds the models a usage report prices (Prices): they
// are one statement's.
const maxReportPrices = pricesPerStatement

// modelPrice is one model of a price expression.
type modelPrice struct {
	model string
	price sessiondb.Price
}

// rate is one rate of a price expression as an SQL argument.
const rate = "CAST(? AS DOUBLE PRECISION)"

// terms are the products of a price expression, in Estimate's order: the
// cache writes other than 1-hour ones at the cache-write rate, the 1-hour
// ones at the 1-hour rate (sessiondb.Price.Write1h).
const terms = "(u.input_tokens * " + rate + " + u.output_tokens * " + rate + " + u.cache_read_tokens * " + rate +
	" + (u.cache_write_tokens - u.cache_write_1h_tokens) * " + rate + " + u.cache_write_1h_tokens * " + rate + ")"

// priceExpr is sessiondb.Price.Estimate in SQL for the usage row u, at
// the price of its model among prices (NULL for another model), and its
// arguments: the same products, summed in the same order and divided by
// 1e6, so that both give the same double. It is a CASE on the model
// rather than a join with a list of prices, so that every statement scans
// the usage table once whatever the planner's estimates (SQLite put a
// small price list in the outer loop, scanning the table once per model).
func priceExpr(prices []modelPrice) (string, []any) {
	var b strings.Builder
	args := make([]any, 0, 11*len(prices))
	b.WriteString("(CASE u.model")
	for _, mp := range prices {
		p, l := mp.price, mp.price.Long()
		b.WriteString(" WHEN CAST(? AS TEXT) THEN (CASE WHEN CAST(u.input_tokens AS DOUBLE PRECISION) + CAST(u.cache_read_tokens AS DOUBLE PRECISION)" +
			" + CAST(u.cache_write_tokens AS DOUBLE PRECISION) > 200000" +
			" THEN " + terms + " ELSE " + terms + " END) / CAST(1000000 AS DOUBLE PRECISION)")
		args = append(args, mp.model, l.Input, l.Output, l.CacheRead, l.CacheWrite, l.Write1h(),
			p.Input, p.Output, p.CacheRead, p.CacheWrite, p.Write1h())
	}
	b.WriteString(" END)")
	return b.String(), args
}

// modelList is `(?, ?, …)` for the models of prices, and its arguments.
func modelList(prices []modelPrice) (string, []any) {
	args := make([]any, len(prices))
	for i, mp := range prices {
		args[i] = mp.model
	}
	return "(" + strings.TrimSuffix(strings.Repeat("CAST(? AS TEXT), ", len(prices)), ", ") + ")", args
}

func init() {
	if sessiondb.LongContextTokens != 200000 {
		panic("backend: priceExpr hard-codes sessiondb.LongContextTokens")
	}
}

// estimatedModels lists the models of the rows whose cost is estimated,
// with their row counts, token sums and cost sums.
func estimatedModels(ctx context.Context, tx Tx) ([]sessiondb.RepricedModel, error) {
	rows, err := tx.QueryContext(ctx, `SELECT model, count(*),
		CAST(coalesce(sum(input_tokens + output_tokens + cache_read_tokens + cache_write_tokens), 0) AS BIGINT),
		coalesce(sum(`+CostSQL+`), 0)
		FROM usage u WHERE u.cost_estimated GROUP BY model ORDER BY model`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []sessiondb.RepricedModel
	for rows.Next() {
		var m sessiondb.RepricedModel
		if err := rows.Scan(&m.Model, &m.Rows, &m.Tokens, &m.CostBefore); err != nil {
			return nil, err
		}
		m.CostAfter = m.CostBefore
		out = append(out, m)
	}
	return out, rows.Err()
}

// priceModels asks prices for each model and returns the priced ones, in
// chunks of at most pricesPerStatement. A price that is not valid is an
// error wrapping sessiondb.ErrInvalid.
func priceModels(models []string, prices sessiondb.PriceFunc) ([][]modelPrice, map[string]bool, error) {
	var chunks [][]modelPrice
	var cur []modelPrice
	priced := map[string]bool{}
	for _, m := range models {
		p, ok := prices(m)
		if !ok {
			continue
		}
		if err := p.Validate(); err != nil {
			return nil, nil, fmt.Errorf("price of model %q: %w", m, err)
		}
		priced[m] = true
		cur = append(cur, modelPrice{m, p})
		if len(cur) == pricesPerStatement {
			chunks = append(chunks, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks, priced, nil
}

// Reprice is sessiondb.Repricer.Reprice inside the caller's transaction
// tx: a write transaction, or any transaction when dryRun. It reads the
// models of the estimated rows, asks prices for each, computes per model
// what changes (one statement per pricesPerStatement models) and, unless
// dryRun, updates exactly the rows whose cost changes.
func Reprice(ctx context.Context, tx Tx, prices sessiondb.PriceFunc, dryRun bool) (sessiondb.RepriceReport, error) {
	var rep sessiondb.RepriceReport
	models, err := estimatedModels(ctx, tx)
	if err != nil {
		return rep, fmt.Errorf("reprice: %w", err)
	}
	names := make([]string, len(models))
	for i, m := range models {
		names[i] = m.Model
	}
	chunks, priced, err := priceModels(names, prices)
	if err != nil {
		return rep, fmt.Errorf("reprice: %w", err)
	}
	byModel := map[string]*sessiondb.RepricedModel{}
	for i := range models {
		models[i].Priced = priced[models[i].Model]
		byModel[models[i].Model] = &models[i]
	}
	for _, chunk := range chunks {
		expr, exprArgs := priceExpr(chunk)
		list, listArgs := modelList(chunk)
		args := append(append(append([]any{}, exprArgs...), exprArgs...), listArgs...)
		rows, err := tx.QueryContext(ctx, `SELECT u.model,
			coalesce(sum(CASE WHEN u.cost <> `+expr+` THEN 1 ELSE 0 END), 0), coalesce(sum(`+expr+`), 0)
			FROM usage u WHERE u.cost_estimated AND u.model IN `+list+` GROUP BY u.model`, args...)
		if err != nil {
			return rep, fmt.Errorf("reprice: %w", err)
		}
		for rows.Next() {
			var model string
			var changed int64
			var after float64
			if err := rows.Scan(&model, &changed, &after); err != nil {
				rows.Close()
				return rep, fmt.Errorf("reprice: %w", err)
			}
			if m := byModel[model]; m != nil {
				m.Changed, m.CostAfter = changed, after
			}
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return rep, fmt.Errorf("reprice: %w", err)
		}
		rows.Close()
		if dryRun {
			continue
		}
		// A row of another model prices to NULL, and NULL <> cost is not
		// true: only this chunk's rows whose cost changes are written.
		args = append(append([]any{}, exprArgs...), exprArgs...)
		if _, err := tx.ExecContext(ctx, `UPDATE usage AS u SET cost = `+expr+`
			WHERE u.cost_estimated AND u.cost <> `+expr, args...); err != nil {
			return rep, fmt.Errorf("reprice: %w", err)
		}
	}
	rep.Models = models
	return rep, nil
}

// UsageReport is sessiondb.Store.UsageReport inside the caller's read
// transaction tx (the caller checks that q.SessionID exists).
func UsageReport(ctx context.Context, tx Tx, q sessiondb.UsageQuery) ([]sessiondb.UsageRow, error) {
	if q.SessionID != "" {
		if err := sessiondb.ValidateID(q.SessionID); err != nil {
			return nil, fmt.Errorf("usage report: %w", err)
		}
	}
	var args []any
	cost, unpriced := CostSQL, UnpricedSQL
	if q.Prices != nil {
		models, err := estimatedModels(ctx, tx)
		if err != nil {
			return nil, fmt.Errorf("usage report: %w", err)
		}
		names := make([]string, len(models))
		for i, m := range models {
			names[i] = m.Model
		}
		chunks, _, err := priceModels(names, q.Prices)
		if err != nil {
			return nil, fmt.Errorf("usage report: %w", err)
		}
		if len(chunks) > 1 {
			return nil, fmt.Errorf("usage report: %w: more than %d models to price in one report", sessiondb.ErrInvalid, maxReportPrices)
		}
		if len(chunks) == 1 {
			var expr string
			expr, args = priceExpr(chunks[0])
			cost = "CASE WHEN u.cost_estimated THEN coalesce(" + expr + ", " + CostSQL + ") ELSE " + CostSQL + " END"
			// A model Prices prices is not unpriced, whatever its rows
			// were stored with.
			unpriced = `CAST(coalesce(sum(CASE WHEN u.cost_estimated AND (` + expr + `) IS NULL AND u.cost = 0
				AND u.input_tokens + u.output_tokens + u.cache_read_tokens + u.cache_write_tokens > 0 THEN 1 ELSE 0 END), 0) AS BIGINT)`
			args = append(args, args...)
		}
	}
	if fromQuarters(q) {
		return scanUsageRows(ctx, tx, quartersQuery(q))
	}
	cols := []string{"CAST('' AS TEXT)", "CAST('' AS TEXT)", "CAST('' AS TEXT)", "CAST('' AS TEXT)", "CAST('' AS TEXT)", "0", "CAST('' AS TEXT)", "CAST('' AS TEXT)"}
	// The time terms lead the grouping: no index starts with them, so
	// SQLite scans the table once and sorts, rather than walking
	// usage_by_model and looking up every row (twice the work on a large
	// ledger).
	var group []string
	if q.ByDay {
		cols[3] = "substr(u.created_at, 1, 10)"
		group = append(group, cols[3])
	}
	if q.ByQuarterHour {
		cols[4], cols[5] = "substr(u.created_at, 1, 13)", "CAST(substr(u.created_at, 15, 2) AS INTEGER) / 15"
		group = append(group, cols[4], cols[5])
	}
	if q.BySession {
		cols[0] = "u.session_id"
		group = append(group, "u.session_id")
	}
	if q.ByModel {
		cols[1], cols[2] = "u.provider", "u.model"
		group = append(group, "u.provider", "u.model")
	}
	// A call's project is its session's (sessions.project); the join is
	// made only when a report asks for it.
	from := `usage u`
	if q.ByProject || q.Project != "" || q.ByMachine || q.Machine != "" {
		from = `usage u LEFT JOIN sessions s ON s.id = u.session_id`
	}
	if q.ByProject {
		cols[6] = "coalesce(s.project, '')"
		group = append(group, cols[6])
	}
	if q.ByMachine {
		cols[7] = "coalesce(s.machine, '')"
		group = append(group, cols[7])
	}
	query := `SELECT ` + strings.Join(cols, ", ") + `, count(*),
		CAST(coalesce(sum(u.input_tokens), 0) AS BIGINT), CAST(coalesce(sum(u.output_tokens), 0) AS BIGINT),
		CAST(coalesce(sum(u.cache_read_tokens), 0) AS BIGINT), CAST(coalesce(sum(u.cache_write_tokens), 0) AS BIGINT),
		CAST(coalesce(sum(u.reasoning_tokens), 0) AS BIGINT), coalesce(sum(` + cost + `), 0),
		coalesce(min(u.created_at), ''), coalesce(max(u.created_at), ''), ` + unpriced + `
		FROM ` + from
	var where []string
	if q.SessionID != "" {
		where = append(where, "u.session_id = ?")
		args = append(args, q.SessionID)
	}
	if q.Project != "" {
		where = append(where, "lower(coalesce(s.project, '')) LIKE '%' || lower(?) || '%' ESCAPE '\\'")
		args = append(args, LikeEscape(q.Project))
	}
	if q.Machine != "" {
		where = append(where, "s.machine = ?")
		args = append(args, q.Machine)
	}
	if !q.Since.IsZero() {
		where = append(where, "u.created_at >= ?")
		args = append(args, FormatTime(q.Since))
	}
	if !q.Until.IsZero() {
		where = append(where, "u.created_at < ?")
		args = append(args, FormatTime(q.Until))
	}
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, " AND ")
	}
	if len(group) > 0 {
		query += ` GROUP BY ` + strings.Join(group, ", ") + ` ORDER BY ` + strings.Join(group, ", ")
	}
	return scanUsageRows(ctx, tx, usageQuery{query, args, len(group) > 0})
}

// usageQuery is a usage report's statement: its 18 columns are the
// UsageRow's, as scanUsageRows reads them.
type usageQuery struct {
	query   string
	args    []any
	grouped bool // a report without grouping has one row, even of no call
}

// fromQuarters says whether the report q is answered from usage_quarters
// (migration 17, PostgreSQL's 14) rather than by a scan of the ledger:
// grouped by quarter hour and model, with nothing that needs a call's
// session (its ID, project or machine) or its single cost (Prices), and
// bounds on quarter hours. Each rollup row is then one report row, whose
// sums and first and last calls the triggers keep equal to the scan's;
// a report grouped more coarsely would add the rows' costs again, in
// another order than a scan, so it scans.
func fromQuarters(q sessiondb.UsageQuery) bool {
	return q.ByQuarterHour && q.ByModel && q.Prices == nil && q.SessionID == "" && !q.BySession &&
		!q.ByProject && q.Project == "" && !q.ByMachine && q.Machine == "" &&
		onQuarter(q.Since) && onQuarter(q.Until)
}

// onQuarter says whether t is zero or the start of a UTC quarter hour
// within the years a stored time has.
func onQuarter(t time.Time) bool {
	if t.IsZero() {
		return true
	}
	u := t.UTC()
	return u.Year() >= 1 && u.Year() <= 9999 && u.Minute()%15 == 0 && u.Second() == 0 && u.Nanosecond() == 0
}

// quartersQuery is the report q (fromQuarters) read from usage_quarters:
// its key (hour, quarter) compared as a pair with the bounds' is the
// created_at bound of the scan, for the times the stores write.
func quartersQuery(q sessiondb.UsageQuery) usageQuery {
	day := "CAST('' AS TEXT)"
	if q.ByDay {
		day = "substr(q.hour, 1, 10)"
	}
	query := `SELECT CAST('' AS TEXT), q.provider, q.model, ` + day + `, q.hour, q.quarter, CAST('' AS TEXT), CAST('' AS TEXT),
		q.calls, q.input_tokens, q.output_tokens, q.cache_read_tokens, q.cache_write_tokens, q.reasoning_tokens,
		q.cost + q.cost_err, q.first_at, q.last_at, q.unpriced
		FROM usage_quarters q`
	var where []string
	var args []any
	bound := func(t time.Time, op string) {
		u := t.UTC()
		where = append(where, "(q.hour, q.quarter) "+op+" (CAST(? AS TEXT), CAST(? AS INTEGER))")
		args = append(args, u.Format("2006-01-02T15"), u.Minute()/15)
	}
	if !q.Since.IsZero() {
		bound(q.Since, ">=")
	}
	if !q.Until.IsZero() {
		bound(q.Until, "<")
	}
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, " AND ")
	}
	query += ` ORDER BY q.hour, q.quarter, q.provider, q.model`
	return usageQuery{query, args, true}
}

// scanUsageRows runs the report statement uq and reads its rows.
func scanUsageRows(ctx context.Context, tx Tx, uq usageQuery) ([]sessiondb.UsageRow, error) {
	rows, err := tx.QueryContext(ctx, uq.query, uq.args...)
	if err != nil {
		return nil, fmt.Errorf("usage report: %w", err)
	}
	defer rows.Close()
	var out []sessiondb.UsageRow
	for rows.Next() {
		var r sessiondb.UsageRow
		var hour, first, last string
		var quarter int64
		if err := rows.Scan(&r.SessionID, &r.Provider, &r.Model, &r.Day, &hour, &quarter, &r.Project, &r.Machine, &r.Calls, &r.InputTokens,
			&r.OutputTokens, &r.CacheReadTokens, &r.CacheWriteTokens, &r.ReasoningTokens, &r.Cost, &first, &last, &r.Unpriced); err != nil {
			return nil, fmt.Errorf("usage report: %w", err)
		}
		if hour != "" {
			h, err := time.Parse("2006-01-02T15", hour)
			if err != nil {
				return nil, fmt.Errorf("usage report: %w: stored time %q", sessiondb.ErrInvalid, hour)
			}
			r.Start = h.Add(time.Duration(quarter) * 15 * time.Minute)
		}
		if first != "" {
			r.FirstAt, r.LastAt = ParseTime(first), ParseTime(last)
		}
		if r.Calls > 0 || uq.grouped {
			out = append(out, r)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("usage report: %w", err)
	}
	return out, nil
}

// LikeEscape escapes s for a LIKE pattern whose ESCAPE character is a
// backslash: the pattern then matches s literally.
func LikeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
