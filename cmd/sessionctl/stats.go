package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb/internal/backend"
	"github.com/sessiondb/sessiondb/sqlstore"
)

func (a *app) statsCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "stats",
		Short: "Summarise the database: sessions, entries, bytes, usage, file size",
		Long: `Stats counts sessions, effective-transcript messages, stored log entries and
body bytes, overall and per source format ("native" for sessions created by
an application rather than imported), sums the usage ledger, and reports
the size of the database file and of its write-ahead log.

It also says what exists only in sessiondb: the sessions whose source is
gone (the agent deleted the file, or the row left its database; see
'sessionctl list --archived'), per agent, with their messages and spend.`,
		Example: `  sessionctl stats
  sessionctl stats --json | jq .usage.cost`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return a.runStats(asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the statistics as JSON")
	return c
}

type formatStats struct {
	Format   string `json:"format"`
	Sessions int64  `json:"sessions"`
	Messages int64  `json:"messages"`
	Entries  int64  `json:"entries"`
	Bytes    int64  `json:"bytes"`
}

type usageStats struct {
	Calls            int64   `json:"calls"`
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	ReasoningTokens  int64   `json:"reasoning_tokens"`
	Cost             float64 `json:"cost"`
	// UnpricedCalls counts the calls whose cost is unknown (no price for
	// their model); Cost sums the others only.
	UnpricedCalls int64 `json:"unpricedCalls,omitempty"`
}

type statsReport struct {
	Path          string        `json:"path"`
	Sessions      int64         `json:"sessions"`
	Messages      int64         `json:"messages"`
	Entries       int64         `json:"entries"`
	Bytes         int64         `json:"bytes"`
	Compactions   int64         `json:"compactions"`
	Checkpoints   int64         `json:"checkpoints"`
	Formats       []formatStats `json:"formats"`
	Usage         usageStats    `json:"usage"`
	DatabaseBytes int64         `json:"database_bytes"`
	WALBytes      int64         `json:"wal_bytes"`
	IndexBytes    int64         `json:"index_bytes"` // the search index file and its WAL
	// Unindexed and PendingDeletes are the search index's lag: rows
	// committed but not indexed yet (search scans them), rows deleted but
	// still in the index (search no longer returns them).
	Unindexed      int64 `json:"unindexed"`
	PendingDeletes int64 `json:"index_pending_deletes"`
	// Archived is what exists only in sessiondb: the sessions whose source
	// is gone, per source format.
	Archived []archivedStats `json:"only_in_sessiondb"`
}

// archivedStats counts the sessions of one format whose source is gone.
type archivedStats struct {
	Format   string  `json:"format"`
	Sessions int64   `json:"sessions"`
	Messages int64   `json:"messages"`
	Cost     float64 `json:"cost"`
}

func (a *app) runStats(asJSON bool) error {
	st, err := a.openRead(nil)
	if err != nil {
		return err
	}
	r := statsReport{Path: location(st), Formats: []formatStats{}, Archived: []archivedStats{}}
	q, ok := st.(readOnlyQuerier)
	if !ok {
		return fmt.Errorf("stats: %s does not take SQL", location(st))
	}

	rows, done, err := q.QueryReadOnly(a.ctx, 0, `
		SELECT coalesce(source_format, 'native'), count(*),
		       coalesce(sum(message_count), 0), coalesce(sum(entry_count), 0),
		       coalesce(sum(body_bytes), 0)
		FROM session_stats
		GROUP BY 1 ORDER BY 1`)
	if err != nil {
		return fmt.Errorf("query session_stats: %w", err)
	}
	defer done()
	for rows.Next() {
		var f formatStats
		if err := rows.Scan(&f.Format, &f.Sessions, &f.Messages, &f.Entries, &f.Bytes); err != nil {
			rows.Close()
			return fmt.Errorf("read session_stats: %w", err)
		}
		r.Formats = append(r.Formats, f)
		r.Sessions += f.Sessions
		r.Messages += f.Messages
		r.Entries += f.Entries
		r.Bytes += f.Bytes
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return fmt.Errorf("read session_stats: %w", err)
	}
	rows.Close()
	done()

	rows, done, err = q.QueryReadOnly(a.ctx, 0, `
		SELECT count(*), coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0),
		       coalesce(sum(cache_read_tokens), 0), coalesce(sum(cache_write_tokens), 0),
		       coalesce(sum(reasoning_tokens), 0), coalesce(sum(`+backend.CostSQL+`), 0.0), `+backend.UnpricedSQL+`,
		       (SELECT count(*) FROM compactions), (SELECT count(*) FROM checkpoints)
		FROM usage u`)
	if err != nil {
		return fmt.Errorf("query usage: %w", err)
	}
	defer done()
	u := &r.Usage
	if rows.Next() {
		if err := rows.Scan(&u.Calls, &u.InputTokens, &u.OutputTokens, &u.CacheReadTokens,
			&u.CacheWriteTokens, &u.ReasoningTokens, &u.Cost, &u.UnpricedCalls, &r.Compactions, &r.Checkpoints); err != nil {
			rows.Close()
			return fmt.Errorf("read usage: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return fmt.Errorf("read usage: %w", err)
	}
	rows.Close()
	done()

	if r.Archived, err = archivedByFormat(a, q); err != nil {
		return err
	}

	if li, ok := st.(lazyIndexer); ok {
		idx, err := li.IndexStatus(a.ctx)
		if err != nil {
			return err
		}
		r.Unindexed, r.PendingDeletes = idx.Unindexed, idx.PendingDeletes
	}

	fb, isFile := st.(fileBacked)
	if isFile {
		r.DatabaseBytes = fileSize(fb.Path())
		r.WALBytes = fileSize(fb.Path() + "-wal")
		r.IndexBytes = fileSize(sqlstore.IndexPath(fb.Path())) + fileSize(sqlstore.IndexPath(fb.Path())+"-wal")
	}

	if asJSON {
		return writeJSON(a.stdout, r)
	}
	w := a.stdout
	fmt.Fprintf(w, "database     %s\n", visible(r.Path))
	if isFile {
		fmt.Fprintf(w, "file size    %s (+ %s write-ahead log, + %s search index file)\n", humanBytes(r.DatabaseBytes), humanBytes(r.WALBytes), humanBytes(r.IndexBytes))
	}
	fmt.Fprintf(w, "sessions     %d\n", r.Sessions)
	fmt.Fprintf(w, "messages     %d (effective transcripts)\n", r.Messages)
	fmt.Fprintf(w, "log entries  %d (%s of bodies)\n", r.Entries, humanBytes(r.Bytes))
	fmt.Fprintf(w, "compactions  %d   checkpoints %d\n", r.Compactions, r.Checkpoints)
	fmt.Fprintf(w, "search index %d rows not indexed yet (searched by a scan), %d deleted rows not purged yet\n",
		r.Unindexed, r.PendingDeletes)
	fmt.Fprintf(w, "usage        %d calls, %d input + %d output tokens (cache read %d, write %d, reasoning %d), cost %s\n",
		u.Calls, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens, statsCost(*u))
	var gone archivedStats
	for _, g := range r.Archived {
		gone.Sessions, gone.Messages, gone.Cost = gone.Sessions+g.Sessions, gone.Messages+g.Messages, gone.Cost+g.Cost
	}
	if gone.Sessions == 0 {
		fmt.Fprintln(w, "only here    none: every session's source is still there")
	} else {
		fmt.Fprintf(w, "only here    %d sessions, %d messages, %.4f spent, whose source is gone (sessionctl list --archived)\n",
			gone.Sessions, gone.Messages, gone.Cost)
	}
	if len(r.Formats) > 0 {
		fmt.Fprintln(w)
		tw := newTable(w)
		fmt.Fprintln(tw, "FORMAT\tSESSIONS\tMESSAGES\tENTRIES\tBYTES")
		for _, f := range r.Formats {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", cell(f.Format, 0), f.Sessions, f.Messages, f.Entries, humanBytes(f.Bytes))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(r.Archived) > 0 {
		fmt.Fprintln(w)
		tw := newTable(w)
		fmt.Fprintln(tw, "ONLY IN SESSIONDB\tSESSIONS\tMESSAGES\tCOST")
		for _, g := range r.Archived {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.4f\n", cell(g.Format, 0), g.Sessions, g.Messages, g.Cost)
		}
		return tw.Flush()
	}
	return nil
}

// filesSize returns the size of the database at path on disk: the file,
// its WAL, and its search index file with that file's WAL.
func filesSize(path string) int64 {
	idx := sqlstore.IndexPath(path)
	return fileSize(path) + fileSize(path+"-wal") + fileSize(idx) + fileSize(idx+"-wal")
}

// fileSize returns the size of path, 0 when it does not exist.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// archivedByFormat counts, per source format, the sessions whose source is
// gone (sessions.source_gone_at), their messages and the cost of their
// calls: what exists only in sessiondb.
func archivedByFormat(a *app, q readOnlyQuerier) ([]archivedStats, error) {
	rows, done, err := q.QueryReadOnly(a.ctx, 0, `
		SELECT coalesce(s.source_format, 'native'), count(*), coalesce(sum(s.message_count), 0),
		       coalesce(sum((SELECT sum(u.cost) FROM usage u WHERE u.session_id = s.id)), 0.0)
		FROM sessions s WHERE s.source_gone_at IS NOT NULL
		GROUP BY 1 ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("query sessions whose source is gone: %w", err)
	}
	defer done()
	defer rows.Close()
	out := []archivedStats{}
	for rows.Next() {
		var g archivedStats
		if err := rows.Scan(&g.Format, &g.Sessions, &g.Messages, &g.Cost); err != nil {
			return nil, fmt.Errorf("read sessions whose source is gone: %w", err)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read sessions whose source is gone: %w", err)
	}
	return out, nil
}

// statsCost writes the usage's cost to four places, as stats always has,
// and says how many calls it leaves out for want of a price, so that an
// unpriced model never reads as free (as usage's tables do).
func statsCost(u usageStats) string {
	c := strconv.FormatFloat(u.Cost, 'f', 4, 64)
	switch {
	case u.UnpricedCalls == 0:
		return c
	case u.UnpricedCalls >= u.Calls:
		return "unpriced (no price for any call's model)"
	}
	if u.UnpricedCalls == 1 {
		return c + " + unpriced (1 call has no price)"
	}
	return fmt.Sprintf("%s + unpriced (%d calls have no price)", c, u.UnpricedCalls)
}
