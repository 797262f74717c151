package crush_test

import (
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/crush"
	"github.com/sessiondb/sessiondb/jsonlimport/opencodego"
)

// TestCrushDefaultPlaces: the working directory's .crush and .opencode
// are default places (each project keeps its own store), only when $PWD
// is absolute.
func TestCrushDefaultPlaces(t *testing.T) {
	env := map[string]string{"PWD": "/src/app"}
	got := map[string]string{}
	for _, l := range jsonlimport.WellKnownLocations("/home/u", func(k string) string { return env[k] }) {
		if l.Format == crush.Name || l.Format == opencodego.Name {
			got[l.Format] = l.Path
		}
	}
	if got[crush.Name] != "/src/app/.crush" || got[opencodego.Name] != "/src/app/.opencode" {
		t.Errorf("default places %v", got)
	}
	env["PWD"] = "relative"
	for _, l := range jsonlimport.WellKnownLocations("/home/u", func(k string) string { return env[k] }) {
		if l.Format == crush.Name || l.Format == opencodego.Name {
			t.Errorf("a relative $PWD gave %v", l)
		}
	}
}
