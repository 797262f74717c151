package qwen

import (
	"regexp"
	"testing"
)

// TestSessionID: a UUID Qwen Code resumes is kept; a UUIDv7 or another
// shape becomes a UUIDv4, the same each time, different per id.
func TestSessionID(t *testing.T) {
	v4 := "734bc524-3809-447a-9629-b76196201834"
	if got := SessionID(v4); got != v4 {
		t.Errorf("SessionID(%s) = %s, want it kept", v4, got)
	}
	v4re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]string{}
	for _, id := range []string{"01a24b2d-56b0-7ef2-a254-f50b64f4f6df", "ses_db4d609d9ffei6zjaIrZe0O5hA", "aider-2025-04-01T18-41-01"} {
		got := SessionID(id)
		if !v4re.MatchString(got) || !sessionIDRE.MatchString(got) {
			t.Errorf("SessionID(%s) = %s, not a UUIDv4", id, got)
		}
		if SessionID(id) != got {
			t.Errorf("SessionID(%s) not stable", id)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("SessionID(%s) = SessionID(%s)", id, other)
		}
		seen[got] = id
	}
}
