package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// checkJSONL verifies that a reduced JSONL file has the original's shape:
// the same lines and line ends, the same JSON validity line by line, and on
// valid lines the same token stream except for replaced strings; numbers,
// booleans, nulls, keys (path keys aside) and every id-like value are equal.
// It returns how many strings were replaced.
func checkJSONL(orig, red []byte) (int, error) {
	ol, rl := lines(orig), lines(red)
	if len(ol) != len(rl) {
		return 0, fmt.Errorf("%d lines, reduced %d", len(ol), len(rl))
	}
	if bytes.HasSuffix(orig, []byte{'\n'}) != bytes.HasSuffix(red, []byte{'\n'}) {
		return 0, errors.New("final newline differs")
	}
	replaced := 0
	for i := range ol {
		if bytes.HasSuffix(ol[i], []byte{'\r'}) != bytes.HasSuffix(rl[i], []byte{'\r'}) {
			return 0, fmt.Errorf("line %d: line ending differs", i+1)
		}
		if json.Valid(ol[i]) != json.Valid(rl[i]) {
			return 0, fmt.Errorf("line %d: validity differs", i+1)
		}
		if !json.Valid(ol[i]) {
			if bytes.Count(ol[i], []byte{0}) != bytes.Count(rl[i], []byte{0}) {
				return 0, fmt.Errorf("line %d: NUL bytes differ", i+1)
			}
			continue
		}
		n, err := checkJSON(ol[i], rl[i])
		if err != nil {
			return 0, fmt.Errorf("line %d: %w", i+1, err)
		}
		replaced += n
	}
	return replaced, nil
}

// checkJSON compares two JSON documents token by token.
func checkJSON(orig, red []byte) (int, error) {
	od := json.NewDecoder(bytes.NewReader(orig))
	rd := json.NewDecoder(bytes.NewReader(red))
	od.UseNumber()
	rd.UseNumber()
	// stack of containers: for objects, whether the next string is a key,
	// and the current key
	type frame struct {
		object  bool
		wantKey bool
		key     string
	}
	var stack []frame
	replaced := 0
	for {
		ot, oerr := od.Token()
		rt, rerr := rd.Token()
		if oerr == io.EOF && rerr == io.EOF {
			return replaced, nil
		}
		if oerr != nil || rerr != nil {
			return 0, fmt.Errorf("tokens: %v / %v", oerr, rerr)
		}
		isKey := len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].wantKey
		switch o := ot.(type) {
		case json.Delim:
			if rt != o {
				return 0, fmt.Errorf("structure: %v against %v", o, rt)
			}
			switch o {
			case '{':
				stack = append(stack, frame{object: true, wantKey: true})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			r, ok := rt.(string)
			if !ok {
				return 0, fmt.Errorf("string %q became %v", o, rt)
			}
			if isKey {
				if r != o && !looksLikePath(o) && !bytes.ContainsAny([]byte(o), `/\`) {
					return 0, fmt.Errorf("key %q became %q", o, r)
				}
				stack[len(stack)-1].key = o
				stack[len(stack)-1].wantKey = false
				continue
			}
			key := ""
			for j := len(stack) - 1; j >= 0; j-- {
				if stack[j].object {
					key = stack[j].key
					break
				}
			}
			if r != o {
				if idKeys[key] && key != "model" {
					return 0, fmt.Errorf("%s %q changed to %q", key, o, r)
				}
				replaced++
			}
		default:
			if fmt.Sprint(ot) != fmt.Sprint(rt) {
				return 0, fmt.Errorf("value %v became %v", ot, rt)
			}
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].wantKey = true
		}
	}
}
