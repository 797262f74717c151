package sessiondb

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// MaxIDLen is the longest session ID, in bytes, a store accepts.
const MaxIDLen = 512

// NewID returns a new session ID that sorts by creation time:
// "20260320_143000_6f00bfe3f7c54b2f86d780df58ccf0a1" (UTC time to the second,
// then 128 random bits in hex).
func NewID() string {
	return newIDAt(time.Now())
}

func newIDAt(t time.Time) string {
	u := uuid.New()
	return t.UTC().Format("20060102_150405") + "_" + strings.ReplaceAll(u.String(), "-", "")
}

// ValidateID reports whether id can name a session, alias or checkpoint: it
// must be non-empty, at most MaxIDLen bytes, valid UTF-8 and free of NUL and
// other control characters. The error wraps ErrInvalid.
func ValidateID(id string) error {
	switch {
	case id == "":
		return invalidf("empty id")
	case len(id) > MaxIDLen:
		return invalidf("id is %d bytes, the limit is %d", len(id), MaxIDLen)
	case !utf8.ValidString(id):
		return invalidf("id %q is not valid UTF-8", id)
	}
	for _, r := range id {
		if r < 0x20 || r == 0x7f {
			return invalidf("id %q contains control character %U", id, r)
		}
	}
	return nil
}
