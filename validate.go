package sessiondb

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb/internal/jsonscan"
)

// ValidateJSON reports whether doc is a single valid JSON value of at most
// MaxBodySize bytes. what names the document in the error, which wraps
// ErrInvalid.
func ValidateJSON(what string, doc json.RawMessage) error {
	if len(doc) > MaxBodySize {
		return invalidf("%s is %d bytes, the limit is %d", what, len(doc), MaxBodySize)
	}
	if !jsonscan.Valid(doc) { // json.Valid's answer, sooner
		return invalidf("%s is not valid JSON", what)
	}
	return nil
}

// ValidateEntry checks an entry before it is appended: a JSON body and a
// kind of sensible length without control characters.
func ValidateEntry(e Entry) error {
	if len(e.Kind) > MaxKindLen {
		return invalidf("entry kind is %d bytes, the limit is %d", len(e.Kind), MaxKindLen)
	}
	for _, r := range e.Kind {
		if r < 0x20 || r == 0x7f {
			return invalidf("entry kind %q contains a control character", e.Kind)
		}
	}
	return ValidateJSON("entry body", e.Body)
}

// ValidateCommit checks every part of a commit that can be checked without
// the stored session, so that a bad commit fails before any write.
func ValidateCommit(id string, c Commit) error {
	if err := ValidateID(id); err != nil {
		return err
	}
	if c.Create != nil && c.CreateIfMissing != nil {
		return invalidf("commit has both Create and CreateIfMissing")
	}
	if c.Delete {
		rest := c
		rest.Delete, rest.ExpectSequence = false, nil
		if !reflect.ValueOf(rest).IsZero() {
			return invalidf("a commit that deletes its session holds nothing else but ExpectSequence")
		}
		return nil
	}
	for _, create := range []*Session{c.Create, c.CreateIfMissing} {
		if create == nil {
			continue
		}
		for _, a := range create.Aliases {
			if err := ValidateID(a); err != nil {
				return err
			}
		}
		if err := validateOptionalJSON("scope", create.Scope); err != nil {
			return err
		}
		if err := validateOptionalJSON("attrs", create.Attrs); err != nil {
			return err
		}
	}
	if c.KeepLast != nil && *c.KeepLast < 0 {
		return invalidf("keep-last %d is negative", *c.KeepLast)
	}
	for _, e := range c.History {
		if err := ValidateEntry(e); err != nil {
			return err
		}
	}
	if p := c.Meta; p != nil {
		if p.Aliases != nil {
			for _, a := range *p.Aliases {
				if err := ValidateID(a); err != nil {
					return err
				}
			}
		}
		if err := validateOptionalJSON("scope", p.Scope); err != nil {
			return err
		}
		if err := validateOptionalJSON("attrs", p.Attrs); err != nil {
			return err
		}
		if err := validateOptionalJSON("scope merge patch", p.ScopeMerge); err != nil {
			return err
		}
		if err := validateOptionalJSON("attrs merge patch", p.AttrsMerge); err != nil {
			return err
		}
		if p.ForkSeq != nil && *p.ForkSeq < 0 {
			return invalidf("fork seq %d is negative", *p.ForkSeq)
		}
	}
	for _, e := range c.Append {
		if err := ValidateEntry(e); err != nil {
			return err
		}
	}
	for _, cp := range c.Compactions {
		for _, e := range cp.Summary {
			if err := ValidateEntry(e); err != nil {
				return err
			}
		}
		if err := validateOptionalJSON("compaction details", cp.Details); err != nil {
			return err
		}
		if cp.KeepFromSeq < 1 {
			return invalidf("compaction keep-from seq %d is below 1", cp.KeepFromSeq)
		}
	}
	if c.State != nil && c.ClearState {
		return invalidf("commit both sets and clears the state")
	}
	if c.Interrupt != nil && c.ClearInterrupt {
		return invalidf("commit both sets and clears the interrupt")
	}
	if err := validateOptionalJSON("state", c.State); err != nil {
		return err
	}
	if err := validateOptionalJSON("interrupt", c.Interrupt); err != nil {
		return err
	}
	for _, u := range c.Usage {
		if err := validateUsage(u); err != nil {
			return err
		}
	}
	for _, u := range c.CumulativeUsage {
		if u.CallID != "" {
			return invalidf("cumulative usage row with call ID %q: a delta is not a call", u.CallID)
		}
		if u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheReadTokens < 0 || u.CacheWriteTokens < 0 ||
			u.ReasoningTokens < 0 || u.Cost < 0 {
			return invalidf("cumulative usage row with a negative total")
		}
		if err := validateUsage(u); err != nil {
			return err
		}
	}
	if s := c.Source; s != nil {
		if s.Path == "" {
			return invalidf("source file without path")
		}
		if err := validateOptionalJSON("source state", s.State); err != nil {
			return err
		}
	}
	if c.ExpectSource != nil && c.Source == nil {
		return invalidf("commit expects a source-file record but records no source file")
	}
	return nil
}

// validateUsage checks a Usage row: its CallID, its 1-hour cache writes
// within its cache writes, and a cost that is a finite number (JSON has no
// other, and a total must stay one).
func validateUsage(u Usage) error {
	if err := validateCallID(u.CallID); err != nil {
		return err
	}
	if math.IsNaN(u.Cost) || math.IsInf(u.Cost, 0) {
		return invalidf("usage cost %v is not a finite number", u.Cost)
	}
	if u.CacheWrite1hTokens != 0 && (u.CacheWrite1hTokens < 0 || u.CacheWrite1hTokens > u.CacheWriteTokens) {
		return invalidf("usage has %d 1-hour cache-write tokens, not within its %d cache-write tokens", u.CacheWrite1hTokens, u.CacheWriteTokens)
	}
	return nil
}

// validateCallID checks a Usage.CallID: empty, or at most MaxCallIDLen
// bytes of valid UTF-8 without NUL (PostgreSQL text cannot hold NUL).
func validateCallID(id string) error {
	switch {
	case len(id) > MaxCallIDLen:
		return invalidf("usage call id is %d bytes, the limit is %d", len(id), MaxCallIDLen)
	case !utf8.ValidString(id):
		return invalidf("usage call id is not valid UTF-8")
	case strings.IndexByte(id, 0) >= 0:
		return invalidf("usage call id contains NUL")
	}
	return nil
}

func validateOptionalJSON(what string, doc json.RawMessage) error {
	if doc == nil {
		return nil
	}
	return ValidateJSON(what, doc)
}
