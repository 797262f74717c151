package jsonlimport

import (
	"slices"
	"testing"
)

// TestCopilotDefaultPlaces: Copilot CLI's session-state under
// $COPILOT_HOME, ~/.copilot and (older versions) $XDG_STATE_HOME/.copilot,
// in that order; without the variables only ~/.copilot.
func TestCopilotDefaultPlaces(t *testing.T) {
	places := func(env map[string]string) []string {
		var out []string
		for _, l := range WellKnownLocations("/home/u", func(k string) string { return env[k] }) {
			if l.Format == FormatCopilot {
				out = append(out, l.Path)
			}
		}
		return out
	}
	got := places(map[string]string{"COPILOT_HOME": "/c", "XDG_STATE_HOME": "/s"})
	want := []string{"/c/session-state", "/home/u/.copilot/session-state", "/s/.copilot/session-state"}
	if !slices.Equal(got, want) {
		t.Errorf("places %v, want %v", got, want)
	}
	if got := places(nil); !slices.Equal(got, []string{"/home/u/.copilot/session-state"}) {
		t.Errorf("places without the variables %v", got)
	}
}
