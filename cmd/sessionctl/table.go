package main

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// Tables that fit the terminal (issue 39). list, search and usage print
// their rows through fitTable: numbers right-aligned, text left-aligned,
// two spaces between columns. On a terminal, the table is fitted to its
// width: the commands choose narrower columns for a narrow terminal
// (compact views below compactWidth, as ccusage does), and the columns a
// command marks as cuttable are cut with "…", the widest first, down to
// their minimum. Piped, or with --wide, nothing is cut: every row is
// whole, on one line, for grep and scripts (--json for programs).
// Widths are counted in runes (text is made visible first, so it holds
// no controls); East Asian wide characters count as one.

// compactWidth is the terminal width below which the commands show their
// compact views, as ccusage does.
const compactWidth = 100

// outWidth returns the width to fit tables to: the terminal's columns when
// stdout is a terminal and --wide was not given, else 0 (no limit).
func (a *app) outWidth(wide bool) int {
	if wide {
		return 0
	}
	return a.width
}

// terminalWidth is the width of f when it is a terminal, else 0.
func terminalWidth(v any) int {
	f, ok := v.(interface{ Fd() uintptr })
	if !ok || !isTerminal(v) {
		return 0
	}
	w, _, err := term.GetSize(int(f.Fd()))
	if err != nil || w <= 0 {
		return 0
	}
	return w
}

// fitCol is a column of a fitTable.
type fitCol struct {
	head  string
	right bool // a number: right-aligned, never cut
	// cut, when > 0, lets the column be cut down to cut runes (with "…")
	// when the table is wider than the terminal.
	cut int
	// keepEnd cuts from the start ("…/src/OpenCore"): a path's end says
	// most.
	keepEnd bool
	// own, for the first column: a cell wider than the column (an ID
	// longer than most) is never cut but printed on a line of its own,
	// the rest of its row on the next line, so that the others keep their
	// room. The column is then as wide as most IDs (idWidth).
	own bool
}

// idWidth is the width of an ID column with own cells on a terminal of
// width columns: a UUID's, or a third of the terminal when that is more.
func idWidth(width int) int { return max(36, width/3) }

// fitTable is a table fitted to a width. A row may carry a second line
// (sub), printed under it indented and cut to the width: the compact
// views put there what has no room in a column (a session's title and
// project).
type fitTable struct {
	cols []fitCol
	rows [][]string
	sub  []string
}

func (t *fitTable) add(cells ...string) { t.rows = append(t.rows, cells); t.sub = append(t.sub, "") }

// addSub adds a row with a second line.
func (t *fitTable) addSub(sub string, cells ...string) {
	t.rows = append(t.rows, cells)
	t.sub = append(t.sub, sub)
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// cutTo cuts s to n runes, the last one "…" when something was cut.
func cutTo(s string, n int) string {
	if n <= 0 || runes(s) <= n {
		return s
	}
	if n == 1 {
		return "…"
	}
	i, k := 0, 0
	for j := range s {
		if k == n-1 {
			i = j
			break
		}
		k++
	}
	return s[:i] + "…"
}

// cutStart cuts s to its last n runes, the first one "…" when something
// was cut.
func cutStart(s string, n int) string {
	k := runes(s)
	if n <= 0 || k <= n {
		return s
	}
	if n == 1 {
		return "…"
	}
	skip := k - (n - 1)
	for j := range s {
		if skip == 0 {
			return "…" + s[j:]
		}
		skip--
	}
	return "…"
}

// widths returns the column widths for width (0: no limit).
func (t *fitTable) widths(width int) []int {
	w := make([]int, len(t.cols))
	for i, c := range t.cols {
		w[i] = runes(c.head)
	}
	for _, r := range t.rows {
		for i, c := range r {
			if i < len(w) {
				w[i] = max(w[i], runes(c))
			}
		}
	}
	if width <= 0 {
		return w
	}
	if len(t.cols) > 0 && t.cols[0].own {
		w[0] = min(w[0], max(idWidth(width), runes(t.cols[0].head)))
	}
	total := func() int {
		n := 2 * (len(w) - 1)
		for _, x := range w {
			n += x
		}
		return n
	}
	// Cut the widest cuttable column by one until the table fits or
	// every cuttable column is at its minimum.
	for total() > width {
		best := -1
		for i, c := range t.cols {
			if c.cut > 0 && w[i] > max(c.cut, runes(c.head)) && (best < 0 || w[i] > w[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		w[best]--
	}
	return w
}

// write prints the table fitted to width (0: no limit). The last column,
// when left-aligned, is not padded.
func (t *fitTable) write(out io.Writer, width int) error {
	w := t.widths(width)
	var b bytes.Buffer
	line := func(cells []string) {
		start := b.Len()
		for i := range t.cols {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			switch {
			case t.cols[i].own:
			case t.cols[i].keepEnd:
				c = cutStart(c, w[i])
			default:
				c = cutTo(c, w[i])
			}
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", max(0, w[i]-runes(c)))
			switch {
			case t.cols[i].right:
				b.WriteString(pad + c)
			case i == len(t.cols)-1:
				b.WriteString(c)
			default:
				b.WriteString(c + pad)
			}
		}
		s := strings.TrimRight(b.String()[start:], " ")
		b.Truncate(start)
		b.WriteString(s + "\n")
	}
	heads := make([]string, len(t.cols))
	for i, c := range t.cols {
		heads[i] = c.head
	}
	line(heads)
	for i, r := range t.rows {
		if len(r) > 0 && len(t.cols) > 0 && t.cols[0].own && runes(r[0]) > w[0] {
			b.WriteString(r[0] + "\n")
			r = append([]string{""}, r[1:]...)
		}
		line(r)
		if s := t.sub[i]; s != "" {
			sub := "    " + s
			if width > 0 && !strings.Contains(sub, "\x1b") {
				sub = cutTo(sub, width) // a styled line (search) comes cut
			}
			b.WriteString(sub + "\n")
		}
	}
	_, err := io.WriteString(out, b.String())
	return err
}
