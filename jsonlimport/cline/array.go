package cline

// Reading a JSON file Cline writes whole (JSON.stringify of an array or
// an object) without trusting it: an element that does not decode ends
// the read with a problem, and the elements before it are kept.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// array is one JSON array file as read.
type array struct {
	// Elems are the elements read, each compacted (Cline writes them
	// compact: then they are the file's bytes).
	Elems []json.RawMessage
	// Raw is the whole file.
	Raw []byte
	// Exact reports whether "[" + Elems joined by "," + "]" is Raw: the
	// file is JSON.stringify's output and can be written back byte for
	// byte from the elements.
	Exact bool
	// Damaged reports that the read stopped early (a problem says where).
	Damaged bool
}

// errNotArray is returned by readArray for a file that does not open with
// '[' (not a file of Cline's).
var errNotArray = fmt.Errorf("not a JSON array: %w", sessiondb.ErrInvalid)

// readArray reads the JSON array file at path. Damage (invalid JSON, a
// file cut short, an oversized element, invalid UTF-8) is a problem, the
// elements before it are kept; it fails only when the file cannot be read
// or does not open with '['.
func readArray(ctx context.Context, path string, problem func(line int, format string, args ...any)) (*array, error) {
	raw, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	a := &array{Raw: raw}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, errNotArray
	}
	for dec.More() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var elem json.RawMessage
		if err := dec.Decode(&elem); err != nil {
			problem(0, "invalid JSON in element %d at byte %d (%v): the elements before it are read", len(a.Elems)+1, dec.InputOffset(), err)
			a.Damaged = true
			return a, nil
		}
		body := compact(elem)
		if len(body) > sessiondb.MaxBodySize {
			problem(0, "element %d is larger than %d bytes; skipped", len(a.Elems)+1, sessiondb.MaxBodySize)
			a.Damaged = true
			continue
		}
		if v := jsonl.ValidUTF8(body); !bytes.Equal(v, body) {
			problem(0, "element %d: invalid UTF-8 replaced with U+FFFD", len(a.Elems)+1)
			body = v
			a.Damaged = true
		}
		a.Elems = append(a.Elems, body)
	}
	if _, err := dec.Token(); err != nil {
		problem(0, "array not closed (byte %d): the file ends early; the elements before are read", dec.InputOffset())
		a.Damaged = true
		return a, nil
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		problem(0, "data after the array (byte %d); ignored", dec.InputOffset())
		a.Damaged = true
	}
	a.Exact = !a.Damaged && bytes.Equal(joinArray(a.Elems), raw)
	return a, nil
}

// joinArray writes elems as JSON.stringify writes an array of them.
func joinArray(elems []json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// compact returns raw without insignificant white space (a copy).
func compact(raw []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return bytes.Clone(raw)
	}
	return b.Bytes()
}

// maxFileSize bounds one file of a task (1 GiB): Cline keeps each file in
// memory too, and parses it with one JSON.parse.
const maxFileSize = 1 << 30

// stringReader reads s.
func stringReader(s string) *strings.Reader { return strings.NewReader(s) }

// readBounded reads the whole file at path, which Cline writes whole: at
// most maxFileSize bytes, a larger file being ErrInvalid.
func readBounded(path string) ([]byte, error) {
	f, err := jsonl.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(bufio.NewReader(f), maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxFileSize {
		return nil, fmt.Errorf("%s is larger than %d bytes: %w", path, maxFileSize, sessiondb.ErrInvalid)
	}
	return raw, nil
}
