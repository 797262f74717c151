package viewer

import (
	"bytes"
	"html/template"
	"net/url"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// Markdown rendering goes through goldmark (CommonMark with GitHub's
// tables, strikethrough and autolinks), the field's standard library, so
// that real assistant text (tables, nested lists, code inside lists,
// reference links) renders as its author saw it. Transcripts are hostile
// text, so goldmark's own rendering of what could carry markup is
// replaced (safeRenderer):
//
//   - raw HTML, inline or as a block, is shown as escaped text (goldmark
//     would drop it as "raw HTML omitted");
//   - a link or autolink is a link only to an absolute http(s) URL, with
//     rel="noopener noreferrer nofollow"; any other target (javascript:,
//     vbscript:, data:, file:, relative and protocol-relative URLs) is
//     shown as the link's text followed by the target in parentheses;
//   - images are never loaded: an image is its alt text, linked to its
//     URL when that is http(s);
//   - headings render two levels down (h3…h6): the page's own h1 stays
//     the only one;
//   - code blocks are <pre class="code"> with their language as a label.
//
// Bidi and control characters are made visible (\u202e) before parsing,
// so no renderer sees them raw.

var (
	mdOnce sync.Once
	md     goldmark.Markdown
)

func markdown() goldmark.Markdown {
	mdOnce.Do(func() {
		md = goldmark.New(
			goldmark.WithExtensions(
				extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignNone)),
				extension.Strikethrough,
				extension.Linkify,
			),
			goldmark.WithRendererOptions(
				html.WithHardWraps(),
				renderer.WithNodeRenderers(util.Prioritized(safeRenderer{}, 100)),
			),
		)
	})
	return md
}

// renderMarkdown renders src as HTML.
func renderMarkdown(src string) template.HTML {
	var b bytes.Buffer
	if err := markdown().Convert(defuseLinks([]byte(visible(src))), &b); err != nil {
		// goldmark fails only on a failing writer; show the text.
		return template.HTML("<pre>" + template.HTMLEscapeString(src) + "</pre>")
	}
	out := b.String()
	// The table extension writes a bare <table>; raw HTML never reaches
	// the output unescaped, so every "<table>" is the extension's.
	out = strings.ReplaceAll(out, "<table>", `<table class="md">`)
	return template.HTML(out)
}

// destLookahead bounds how far an inline link's destination may reach.
const destLookahead = 512

// defuseLinks escapes the "(" of every "](" whose destination does not
// end (at a space or the closing parenthesis) within destLookahead bytes.
// goldmark scans such a destination to the end of its paragraph, once per
// "](": 16,384 "[a](" in a row took 8 s to render. A destination that
// long is not a link a person wrote; it stays text (with the backslash
// escape read as text by goldmark, so nothing visible changes).
func defuseLinks(src []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i+1 < len(src); i++ {
		if src[i] != ']' || src[i+1] != '(' || destEnds(src[i+2:]) {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(src)+64)
		}
		out = append(out, src[last:i+1]...)
		out = append(out, '\\')
		last = i + 1
	}
	if out == nil {
		return src
	}
	return append(out, src[last:]...)
}

// destEnds reports whether an inline link destination starting at s ends
// within destLookahead bytes: at whitespace, at the ")" that balances its
// parentheses, or at the end of the text. A "<…>" destination ends at its
// ">" or the line's end.
func destEnds(s []byte) bool {
	depth := 0
	angle := len(s) > 0 && s[0] == '<'
	for i := 0; i < len(s) && i < destLookahead; i++ {
		switch c := s[i]; {
		case angle && c == '>', angle && c == '\n':
			return true
		case angle:
		case c == '\\':
			i++
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return true
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 {
				return true
			}
			depth--
		}
	}
	// The text ended first (cheap for goldmark to scan), or the
	// lookahead ran out.
	return len(s) < destLookahead
}

// safeRenderer replaces goldmark's rendering of the nodes that could
// carry markup or links (see the notes above).
type safeRenderer struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (safeRenderer) RegisterFuncs(r renderer.NodeRendererFuncRegisterer) {
	r.Register(ast.KindRawHTML, renderRawHTML)
	r.Register(ast.KindHTMLBlock, renderHTMLBlock)
	r.Register(ast.KindLink, renderLink)
	r.Register(ast.KindAutoLink, renderAutoLink)
	r.Register(ast.KindImage, renderImage)
	r.Register(ast.KindHeading, renderHeading)
	r.Register(ast.KindFencedCodeBlock, renderCodeBlock)
	r.Register(ast.KindCodeBlock, renderCodeBlock)
}

func renderRawHTML(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		segs := n.(*ast.RawHTML).Segments
		for i := 0; i < segs.Len(); i++ {
			s := segs.At(i)
			_, _ = w.Write(util.EscapeHTML(s.Value(source)))
		}
	}
	return ast.WalkSkipChildren, nil
}

func renderHTMLBlock(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	b := n.(*ast.HTMLBlock)
	var text []byte
	lines := b.Lines()
	for i := 0; i < lines.Len(); i++ {
		s := lines.At(i)
		text = append(text, s.Value(source)...)
	}
	if b.HasClosure() {
		text = append(text, b.ClosureLine.Value(source)...)
	}
	parts := strings.Split(strings.TrimRight(string(text), "\n"), "\n")
	_, _ = w.WriteString("<p>")
	for i, p := range parts {
		if i > 0 {
			_, _ = w.WriteString("<br>\n")
		}
		_, _ = w.Write(util.EscapeHTML([]byte(p)))
	}
	_, _ = w.WriteString("</p>\n")
	return ast.WalkSkipChildren, nil
}

// safeURL returns the escaped href of an absolute http(s) URL.
func safeURL(raw []byte) (string, bool) {
	u, err := url.Parse(string(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	return string(util.EscapeHTML(util.URLEscape([]byte(u.String()), false))), true
}

func renderLink(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	l := n.(*ast.Link)
	href, ok := safeURL(l.Destination)
	switch {
	case ok && entering:
		_, _ = w.WriteString(`<a href="` + href + `" rel="noopener noreferrer nofollow">`)
	case ok:
		_, _ = w.WriteString("</a>")
	case !entering:
		// Not a link: the target is shown as text after the link's text.
		_, _ = w.WriteString(" (")
		_, _ = w.Write(util.EscapeHTML(l.Destination))
		_, _ = w.WriteString(")")
	}
	return ast.WalkContinue, nil
}

func renderAutoLink(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	l := n.(*ast.AutoLink)
	label := util.EscapeHTML(l.Label(source))
	raw := l.URL(source)
	if l.AutoLinkType == ast.AutoLinkURL && !bytes.Contains(raw, []byte("://")) {
		raw = append([]byte("http://"), raw...) // www.example.com
	}
	if href, ok := safeURL(raw); ok {
		_, _ = w.WriteString(`<a href="` + href + `" rel="noopener noreferrer nofollow">`)
		_, _ = w.Write(label)
		_, _ = w.WriteString("</a>")
		return ast.WalkContinue, nil
	}
	_, _ = w.Write(label)
	return ast.WalkContinue, nil
}

func renderImage(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	img := n.(*ast.Image)
	var alt bytes.Buffer
	for c := img.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			alt.Write(t.Value(source))
		}
	}
	label := "[image: " + string(util.EscapeHTML(alt.Bytes())) + "]"
	if href, ok := safeURL(img.Destination); ok {
		_, _ = w.WriteString(`<a href="` + href + `" rel="noopener noreferrer nofollow">` + label + "</a>")
	} else {
		_, _ = w.WriteString(label)
	}
	return ast.WalkSkipChildren, nil
}

func renderHeading(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	tag := "h" + string(rune('0'+min(n.(*ast.Heading).Level+2, 6)))
	if entering {
		_, _ = w.WriteString("<" + tag + ">")
	} else {
		_, _ = w.WriteString("</" + tag + ">\n")
	}
	return ast.WalkContinue, nil
}

func renderCodeBlock(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString(`<pre class="code">`)
	if f, ok := n.(*ast.FencedCodeBlock); ok {
		if lang := f.Language(source); len(lang) > 0 {
			_, _ = w.WriteString(`<span class="lang">`)
			_, _ = w.Write(util.EscapeHTML(lang))
			_, _ = w.WriteString("</span>")
		}
	}
	_, _ = w.WriteString("<code>")
	lines := n.Lines()
	var code []byte
	for i := 0; i < lines.Len(); i++ {
		s := lines.At(i)
		code = append(code, s.Value(source)...)
	}
	_, _ = w.Write(util.EscapeHTML(bytes.TrimSuffix(code, []byte("\n"))))
	_, _ = w.WriteString("</code></pre>\n")
	return ast.WalkSkipChildren, nil
}
