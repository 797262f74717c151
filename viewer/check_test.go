package viewer

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	tagRE  = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>`)
	attrRE = regexp.MustCompile(`\s*([^\s=]+)(?:="([^"]*)")?`)
)

var allowedTags = map[string]bool{}

func init() {
	for _, t := range strings.Fields(`html head meta title link script body header nav a form input main footer
		h1 h3 h4 h5 h6 p br strong em code pre span ul ol li table thead tbody tr th td blockquote details
		summary div section article dl dt dd label button q mark figure figcaption svg line g rect text caption hr del`) {
		allowedTags[t] = true
	}
}

var allowedAttrs = map[string]bool{}

func init() {
	for _, a := range strings.Fields(`href class id name type value placeholder size action method role aria-label
		charset content lang rel src defer x y width height x1 y1 x2 y2 viewBox text-anchor data-action open start`) {
		allowedAttrs[a] = true
	}
}

// checkHTML reports markup in page that the viewer does not write itself:
// a tag outside a fixed list, an attribute outside a fixed list (so no
// on* handler, style or srcdoc), a script other than /static/app.js, a
// link that is not relative or http(s), or a raw bidi control. It is a
// structural check of the rendered output, independent of how the text
// got escaped.
func checkHTML(page string) error {
	if i := strings.IndexFunc(page, func(r rune) bool { return unsafeRune(r) }); i >= 0 {
		return fmt.Errorf("raw control or bidi character %U at byte %d", []rune(page[i:])[0], i)
	}
	for _, m := range tagRE.FindAllStringSubmatch(page, -1) {
		tag := strings.ToLower(m[2])
		if !allowedTags[tag] {
			return fmt.Errorf("unexpected tag %q", m[0])
		}
		attrs := strings.TrimSuffix(strings.TrimSpace(m[3]), "/")
		rest := attrs
		for rest != "" {
			am := attrRE.FindStringSubmatchIndex(rest)
			if am == nil || am[0] != 0 || am[1] == 0 {
				return fmt.Errorf("unparsable attributes in %q", m[0])
			}
			name := rest[am[2]:am[3]]
			val := ""
			if am[4] >= 0 {
				val = rest[am[4]:am[5]]
			}
			rest = strings.TrimSpace(rest[am[1]:])
			if !allowedAttrs[name] {
				return fmt.Errorf("unexpected attribute %q in %q", name, m[0])
			}
			switch name {
			case "href", "action":
				lv := strings.ToLower(val)
				if !(strings.HasPrefix(lv, "/") || strings.HasPrefix(lv, "#") || strings.HasPrefix(lv, "?") ||
					strings.HasPrefix(lv, "http://") || strings.HasPrefix(lv, "https://")) || strings.HasPrefix(lv, "//") {
					return fmt.Errorf("unsafe link %q in %q", val, m[0])
				}
			case "start":
				// goldmark's ordered list from another number than 1.
				if tag != "ol" || strings.Trim(val, "0123456789") != "" {
					return fmt.Errorf("unexpected start in %q", m[0])
				}
			case "src":
				if tag != "script" || val != "/static/app.js" {
					return fmt.Errorf("unexpected src in %q", m[0])
				}
			}
		}
	}
	return nil
}
