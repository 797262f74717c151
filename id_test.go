package sessiondb

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestNewIDFormatAndOrder(t *testing.T) {
	re := regexp.MustCompile(`^\d{8}_\d{6}_[0-9a-f]{32}$`)
	a := newIDAt(time.Date(2026, 3, 20, 14, 30, 0, 0, time.UTC))
	b := newIDAt(time.Date(2026, 3, 20, 14, 30, 1, 0, time.UTC))
	if !re.MatchString(a) {
		t.Fatalf("NewID = %q, want YYYYMMDD_HHMMSS_<32 hex>", a)
	}
	if !strings.HasPrefix(a, "20260320_143000_") {
		t.Fatalf("NewID = %q, want the UTC time as prefix", a)
	}
	if a >= b {
		t.Fatalf("IDs do not sort by time: %q >= %q", a, b)
	}
	if x, y := NewID(), NewID(); x == y {
		t.Fatalf("two NewID calls returned %q", x)
	}
	if err := ValidateID(NewID()); err != nil {
		t.Fatalf("NewID is not a valid ID: %v", err)
	}
}

func TestValidateID(t *testing.T) {
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"abc", true},
		{"agent:main:cli:direct:alice", true},
		{"web_用户-🚀", true},
		{"web_direct_John Smith (work)", true},
		{strings.Repeat("x", MaxIDLen), true},
		{"", false},
		{strings.Repeat("x", MaxIDLen+1), false},
		{"a\x00b", false},
		{"a\nb", false},
		{"bad\xffutf8", false},
	} {
		err := ValidateID(tc.id)
		if tc.ok && err != nil {
			t.Errorf("ValidateID(%q) = %v, want nil", tc.id, err)
		}
		if !tc.ok && !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidateID(%q) = %v, want ErrInvalid", tc.id, err)
		}
	}
}

func TestConflictErrorIs(t *testing.T) {
	var err error = &ConflictError{SessionID: "s", Expected: 1, Current: 3}
	if !errors.Is(err, ErrConflict) {
		t.Fatal("ConflictError does not match ErrConflict")
	}
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Current != 3 {
		t.Fatalf("errors.As gave %+v", ce)
	}
}
