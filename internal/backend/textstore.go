package backend

import "strings"

// TextStore says how a backend writes the extracted text of a log entry.
// The zero value writes it whole to the text column.
type TextStore struct {
	// Column is the column written ("text" when empty).
	Column string
	// Value is the SQL of the value written, in which {text} and {body}
	// stand for the entry's extracted text and its body ("{text}" when
	// empty). A backend that sets it must accept numbered parameters
	// (?NNN): each is then bound once however often Value names it.
	Value string
}

// Col returns the column written.
func (t TextStore) Col() string {
	if t.Column == "" {
		return "text"
	}
	return t.Column
}

// Plain reports whether the text is written as given (one parameter).
func (t TextStore) Plain() bool { return t.Value == "" }

// Expr returns the SQL of the value written, text and body being the SQL
// of the entry's text and body (parameters or column names).
func (t TextStore) Expr(text, body string) string {
	if t.Value == "" {
		return text
	}
	return strings.NewReplacer("{text}", text, "{body}", body).Replace(t.Value)
}
