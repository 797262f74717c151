package viewer

import (
	"html/template"
	"net/url"
	"strings"
)

// Markdown rendering. Transcripts are hostile text, so this is a small
// renderer written for escaping first, not a CommonMark implementation:
// it knows fenced code blocks, headings, lists, block quotes, pipe tables,
// inline code, **strong**, *emphasis*, [links](http://…) and bare http(s)
// URLs. Every piece of text it emits goes through esc (visible + HTML
// escaping); the only tags it writes are its own, from a fixed list, and
// the only attribute is href, holding an http or https URL. Raw HTML in
// the input is text. Anything it does not understand is shown as text.

// lookahead bounds the search for a closing delimiter, keeping rendering
// linear on hostile input (a line of 100,000 asterisks).
const lookahead = 2000

// renderMarkdown renders src as HTML.
func renderMarkdown(src string) template.HTML {
	var b strings.Builder
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	var para []string
	flush := func() {
		if len(para) == 0 {
			return
		}
		b.WriteString("<p>")
		for i, l := range para {
			if i > 0 {
				b.WriteString("<br>\n")
			}
			b.WriteString(inline(l, 0))
		}
		b.WriteString("</p>\n")
		para = para[:0]
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trim := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~"):
			flush()
			fence := trim[:3]
			lang := strings.TrimSpace(trim[3:])
			var code []string
			i++
			for ; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), fence); i++ {
				code = append(code, lines[i])
			}
			b.WriteString("<pre class=\"code\">")
			if lang != "" {
				b.WriteString("<span class=\"lang\">" + esc(lang) + "</span>")
			}
			b.WriteString("<code>" + esc(strings.Join(code, "\n")) + "</code></pre>\n")
		case trim == "":
			flush()
		case heading(trim) > 0:
			flush()
			n := heading(trim)
			tag := []string{"h3", "h3", "h4", "h5", "h6", "h6"}[n-1]
			b.WriteString("<" + tag + ">" + inline(strings.TrimSpace(trim[n:]), 0) + "</" + tag + ">\n")
		case isTableRow(trim) && i+1 < len(lines) && isTableSep(strings.TrimSpace(lines[i+1])):
			flush()
			b.WriteString("<table class=\"md\"><thead><tr>")
			for _, c := range tableCells(trim) {
				b.WriteString("<th>" + inline(c, 0) + "</th>")
			}
			b.WriteString("</tr></thead><tbody>\n")
			i += 2
			for ; i < len(lines) && isTableRow(strings.TrimSpace(lines[i])); i++ {
				b.WriteString("<tr>")
				for _, c := range tableCells(strings.TrimSpace(lines[i])) {
					b.WriteString("<td>" + inline(c, 0) + "</td>")
				}
				b.WriteString("</tr>\n")
			}
			i--
			b.WriteString("</tbody></table>\n")
		case listItem(trim) != "":
			flush()
			kind := listItem(trim)
			b.WriteString("<" + kind + ">\n")
			for ; i < len(lines) && listItem(strings.TrimSpace(lines[i])) == kind; i++ {
				b.WriteString("<li>" + inline(listText(strings.TrimSpace(lines[i])), 0) + "</li>\n")
			}
			i--
			b.WriteString("</" + kind + ">\n")
		case strings.HasPrefix(trim, ">"):
			flush()
			b.WriteString("<blockquote>")
			first := true
			for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), ">"); i++ {
				if !first {
					b.WriteString("<br>\n")
				}
				first = false
				b.WriteString(inline(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[i]), ">")), 0))
			}
			i--
			b.WriteString("</blockquote>\n")
		default:
			para = append(para, line)
		}
	}
	flush()
	return template.HTML(b.String()) // #nosec: built from escaped pieces and fixed tags only
}

func heading(s string) int {
	n := 0
	for n < len(s) && n < 7 && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n >= len(s) || s[n] != ' ' {
		return 0
	}
	return n
}

func isTableRow(s string) bool { return len(s) >= 2 && s[0] == '|' }

func isTableSep(s string) bool {
	if !isTableRow(s) || !strings.Contains(s, "-") {
		return false
	}
	return strings.Trim(s, "|-: ") == ""
}

func tableCells(s string) []string {
	s = strings.TrimPrefix(s, "|")
	s = strings.TrimSuffix(s, "|")
	cells := strings.Split(s, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// listItem returns "ul" or "ol" when s is a list item, else "".
func listItem(s string) string {
	if len(s) >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && s[1] == ' ' {
		return "ul"
	}
	n := 0
	for n < len(s) && n < 9 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n > 0 && n+1 < len(s) && (s[n] == '.' || s[n] == ')') && s[n+1] == ' ' {
		return "ol"
	}
	return ""
}

func listText(s string) string {
	if s[0] == '-' || s[0] == '*' || s[0] == '+' {
		return s[2:]
	}
	i := strings.IndexAny(s, ".)")
	return s[i+2:]
}

// inline renders one line's inline markup.
func inline(s string, depth int) string {
	var b strings.Builder
	text := 0 // start of pending plain text
	emit := func(upto int) {
		if upto > text {
			b.WriteString(esc(s[text:upto]))
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '`':
			if j := closer(s, i+1, "`"); j > i+1 {
				emit(i)
				b.WriteString("<code>" + esc(s[i+1:j]) + "</code>")
				i = j + 1
				text = i
				continue
			}
		case c == '*' && depth < 3 && strings.HasPrefix(s[i:], "**"):
			if j := closer(s, i+2, "**"); j > i+2 {
				emit(i)
				b.WriteString("<strong>" + inline(s[i+2:j], depth+1) + "</strong>")
				i = j + 2
				text = i
				continue
			}
		case c == '*' && depth < 3 && i+1 < len(s) && s[i+1] != ' ':
			if j := closer(s, i+1, "*"); j > i+1 && s[j-1] != ' ' {
				emit(i)
				b.WriteString("<em>" + inline(s[i+1:j], depth+1) + "</em>")
				i = j + 1
				text = i
				continue
			}
		case c == '[' && depth < 3:
			if j := closer(s, i+1, "]("); j > i+1 {
				if k := closer(s, j+2, ")"); k > j+2 {
					if u, ok := safeURL(s[j+2 : k]); ok {
						emit(i)
						b.WriteString(`<a href="` + u + `" rel="noopener noreferrer nofollow">` + inline(s[i+1:j], depth+1) + "</a>")
						i = k + 1
						text = i
						continue
					}
				}
			}
		case (c == 'h' || c == 'H') && (i == 0 || isSpace(s[i-1])) && hasURLPrefix(s[i:]):
			j := i
			for j < len(s) && !isSpace(s[j]) && s[j] != '<' && s[j] != '>' && s[j] != '"' {
				j++
			}
			raw := strings.TrimRight(s[i:j], ".,;:!?)")
			if u, ok := safeURL(raw); ok {
				emit(i)
				b.WriteString(`<a href="` + u + `" rel="noopener noreferrer nofollow">` + esc(raw) + "</a>")
				i += len(raw)
				text = i
				continue
			}
		}
		i++
	}
	emit(len(s))
	return b.String()
}

// closer returns the index of the first occurrence of delim at or after
// from, within lookahead bytes, or -1.
func closer(s string, from int, delim string) int {
	end := from + lookahead
	if end > len(s) {
		end = len(s)
	}
	if from > end {
		return -1
	}
	j := strings.Index(s[from:end], delim)
	if j < 0 {
		return -1
	}
	return from + j
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

func hasURLPrefix(s string) bool {
	l := strings.ToLower(s[:min(len(s), 8)])
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// safeURL returns raw escaped for an href attribute when it is an absolute
// http or https URL without spaces, quotes, controls or bidi marks; any
// other scheme (javascript:, data:, vbscript:, relative URLs) is refused.
func safeURL(raw string) (string, bool) {
	if raw == "" || len(raw) > 2048 || needsEscape(raw) || strings.ContainsAny(raw, " \t\n\"'<>`\\") {
		return "", false
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		return "", false
	}
	return template.HTMLEscapeString(u.String()), true
}
