package backend

import (
	"fmt"

	"github.com/sessiondb/sessiondb"
)

// Ranking in windows. A term found in most rows would cost a rank per
// row if every hit were ranked, so both backends rank a common term's
// hits a window at a time: each table's verified hits (rows that hold
// every term), numbered newest first, fall into blocks of
// SearchBlockRows, and hits are ordered by block first, then by rank
// within the block. That order is one total order whatever page is asked
// for, so pages never repeat or skip a hit. (Until issue 28 the window
// was max(1,000, 4 x (offset+limit)) hits ranked as one set: a deep page
// ranked a larger set than the first page had, and older hits that
// outranked the first window turned up again further on.) The price: an
// older hit, however good, follows every hit of a newer block; a rare
// term (at most SearchBlockRows hits per table) is ranked as one set.

// SearchBlockRows is how many verified hits per table one ranking block
// holds.
const SearchBlockRows = 1000

// SearchWindow is how many verified hits per table (entries, summary
// messages) a trigram search reads, newest first, before it ranks them:
// the whole blocks that cover the page (offset+limit hits). It bounds the
// ranking work of a common term; it never drops a hit the page needs,
// because only verified hits count towards it: a rare term made of common
// trigrams reads candidates until it has found that many hits or the
// candidates end.
func SearchWindow(offset, limit int) int {
	blocks := max(1, (offset+limit+SearchBlockRows-1)/SearchBlockRows)
	return blocks * SearchBlockRows
}

// SearchBlock is the SQL expression of a hit's ranking block, over a
// relation of hits with columns id and summary (the table it came from):
// its position among its table's hits, newest first, in blocks of
// SearchBlockRows. Order by it before the rank.
func SearchBlock() string {
	return fmt.Sprintf("(row_number() OVER (PARTITION BY summary ORDER BY id DESC) - 1) / %d", SearchBlockRows)
}

// SearchFilter is the WHERE clauses (over a relation x with session_id,
// role, kind and created_at) and their arguments that opts asks for,
// besides the query terms, with ? placeholders.
func SearchFilter(opts sessiondb.SearchOptions) ([]string, []any) {
	var filter []string
	var args []any
	add := func(clause string, arg any) {
		filter, args = append(filter, clause), append(args, arg)
	}
	if opts.SessionID != "" {
		add("x.session_id = ?", opts.SessionID)
	}
	if opts.Project != "" {
		add(`x.session_id IN (SELECT id FROM sessions WHERE lower(coalesce(project, '')) LIKE '%' || lower(?) || '%' ESCAPE '\')`, LikeEscape(opts.Project))
	}
	if opts.Machine != "" {
		add(`x.session_id IN (SELECT id FROM sessions WHERE machine = ?)`, opts.Machine)
	}
	if opts.Role != "" {
		add("x.role = ?", opts.Role)
	}
	if opts.Kind != "" {
		add("x.kind = ?", opts.Kind)
	}
	if !opts.After.IsZero() {
		add("x.created_at >= ?", FormatTime(opts.After))
	}
	if !opts.Before.IsZero() {
		add("x.created_at <= ?", FormatTime(opts.Before))
	}
	return filter, args
}
