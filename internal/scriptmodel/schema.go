package scriptmodel

import (
	"encoding/json"
	"strings"
)

// schema is the part of a JSON schema the server reads to fill in a
// value: agents ask for structured answers (Gemini CLI's next-speaker
// check, titles) and tools have required arguments. Gemini's own schema
// dialect spells types in capitals; both are read.
type schema struct {
	Type       json.RawMessage    `json:"type"`
	Properties map[string]*schema `json:"properties"`
	Required   []string           `json:"required"`
	Enum       []json.RawMessage  `json:"enum"`
	Items      *schema            `json:"items"`
	AnyOf      []*schema          `json:"anyOf"`
	OneOf      []*schema          `json:"oneOf"`
}

// typeIs reports whether the schema's type (a name or a list of names)
// is t.
func (s *schema) typeIs(t string) bool {
	if s == nil || len(s.Type) == 0 {
		return false
	}
	var one string
	if json.Unmarshal(s.Type, &one) == nil {
		return strings.EqualFold(one, t)
	}
	var many []string
	if json.Unmarshal(s.Type, &many) == nil {
		for _, m := range many {
			if strings.EqualFold(m, t) {
				return true
			}
		}
	}
	return false
}

// value is a value that satisfies s; name is the property it is for. An
// enum answers "user" where it can (so that a next-speaker check hands the
// turn back to the user), else its first member.
func (s *schema) value(name string) any {
	if s == nil {
		return "scripted"
	}
	if len(s.Enum) > 0 {
		for _, e := range s.Enum {
			if string(e) == `"user"` {
				return "user"
			}
		}
		return s.Enum[0]
	}
	switch {
	case len(s.AnyOf) > 0:
		return s.AnyOf[0].value(name)
	case len(s.OneOf) > 0:
		return s.OneOf[0].value(name)
	case s.typeIs("object") || s.Properties != nil:
		obj := map[string]any{}
		for k, p := range s.Properties {
			obj[k] = p.value(k)
		}
		return obj
	case s.typeIs("array"):
		return []any{}
	case s.typeIs("boolean"):
		return false
	case s.typeIs("integer"), s.typeIs("number"):
		return 0
	}
	if strings.Contains(strings.ToLower(name), "title") {
		return "Scripted session title"
	}
	return "scripted " + name
}

// textValue is value with text in every string: an object gets its
// string and object properties and its required ones.
func (s *schema) textValue(name, text string) any {
	if s == nil || len(s.Enum) > 0 {
		return s.value(name)
	}
	switch {
	case s.typeIs("object") || s.Properties != nil:
		obj := map[string]any{}
		for k, p := range s.Properties {
			if p != nil && (p.typeIs("string") || p.typeIs("object") || p.Properties != nil) {
				obj[k] = p.textValue(k, text)
			}
		}
		for _, k := range s.Required {
			if _, ok := obj[k]; !ok {
				obj[k] = s.Properties[k].value(k)
			}
		}
		return obj
	case s.typeIs("string"):
		return text
	}
	return s.value(name)
}

// fillSchema returns a JSON document that satisfies the raw schema; with
// no schema, an empty object.
func fillSchema(raw json.RawMessage) []byte {
	var sc schema
	if len(raw) == 0 || json.Unmarshal(raw, &sc) != nil {
		return []byte("{}")
	}
	b, _ := json.Marshal(sc.value(""))
	return b
}
