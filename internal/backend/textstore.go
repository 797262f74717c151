package backend

// TextStore says how a backend writes the extracted text of a log entry.
// The zero value writes it whole to the text column.
type TextStore struct {
	// Column is the column written ("text" when empty).
	Column string
	// Value is the SQL of the value written, its placeholders filled by
	// Args ("?" with the text when empty).
	Value string
	// Args returns the arguments of Value for an entry's text and body.
	Args func(text, body string) []any
}

// Col returns the column written.
func (t TextStore) Col() string {
	if t.Column == "" {
		return "text"
	}
	return t.Column
}

// Expr returns the SQL of the value written.
func (t TextStore) Expr() string {
	if t.Value == "" {
		return "?"
	}
	return t.Value
}

// Append appends the arguments of Expr to args.
func (t TextStore) Append(args []any, text, body string) []any {
	if t.Args == nil {
		return append(args, text)
	}
	return append(args, t.Args(text, body)...)
}
