package backend

// TextStore says how a backend writes the extracted text of a log entry.
// The zero value writes it whole to the text column.
type TextStore struct {
	// Column is the column written ("text" when empty).
	Column string
	// Value returns what is written for an entry's text and body (nil is
	// NULL); nil writes the text.
	Value func(text string, body []byte) any
}

// Col returns the column written.
func (t TextStore) Col() string {
	if t.Column == "" {
		return "text"
	}
	return t.Column
}

// Arg returns the value written for an entry's text and body.
func (t TextStore) Arg(text string, body []byte) any {
	if t.Value == nil {
		return text
	}
	return t.Value(text, body)
}
