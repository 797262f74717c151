package sessiondb

import (
	"bytes"
	"encoding/json"
	"sort"
)

// MergePatch applies the JSON merge patch patch (RFC 7386) to doc and
// returns the result; nil doc means no document, and a nil result means
// the document is cleared (the patch was JSON null). Member values the
// patch does not touch keep their bytes; the objects it merges into are
// rewritten compactly with their members in sorted key order. Both must be valid JSON
// (ErrInvalid otherwise).
//
// The rules: a patch that is an object merges member by member (a null
// member removes the key, an object member merges recursively into the
// target's member, anything else replaces it; a target that is not an
// object is treated as {}); a patch that is not an object (array, string,
// number, true, false) replaces the whole document.
func MergePatch(doc, patch json.RawMessage) (json.RawMessage, error) {
	if err := ValidateJSON("merge patch", patch); err != nil {
		return nil, err
	}
	if doc != nil {
		if err := ValidateJSON("document", doc); err != nil {
			return nil, err
		}
	}
	out, err := mergePatch(doc, patch)
	if err != nil {
		return nil, invalidf("merge patch: %v", err)
	}
	if isNull(out) {
		return nil, nil
	}
	return out, nil
}

func mergePatch(doc, patch json.RawMessage) (json.RawMessage, error) {
	p, ok, err := asObject(patch)
	if err != nil || !ok {
		return bytes.TrimSpace(patch), err
	}
	target, ok, err := asObject(doc)
	if err != nil {
		return nil, err
	}
	if !ok {
		target = map[string]json.RawMessage{}
	}
	for k, v := range p {
		if isNull(v) {
			delete(target, k)
			continue
		}
		merged, err := mergePatch(target[k], v)
		if err != nil {
			return nil, err
		}
		target[k] = merged
	}
	return encodeObject(target), nil
}

// encodeObject writes an object with its members in sorted key order and
// each member's value byte for byte (json.Marshal would compact the
// values and escape <, > and & in them).
func encodeObject(m map[string]json.RawMessage) json.RawMessage {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		_ = enc.Encode(k) // a string always encodes
		b.Truncate(b.Len() - 1)
		b.WriteByte(':')
		b.Write(bytes.TrimSpace(m[k]))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// asObject decodes doc when it is a JSON object.
func asObject(doc json.RawMessage) (map[string]json.RawMessage, bool, error) {
	d := bytes.TrimSpace(doc)
	if len(d) == 0 || d[0] != '{' {
		return nil, false, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(d, &m); err != nil {
		return nil, false, err
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	return m, true, nil
}

func isNull(doc json.RawMessage) bool {
	return string(bytes.TrimSpace(doc)) == "null"
}
