package main

import (
	"encoding/json"
	"testing"
)

// TestUsageEdgeDates (issue 36 item 4): --since and --until at the ends of
// the calendar. --until 9999-12-31 reported 0 calls in every zone west of
// UTC+9 (the end of that day is in year 10000, past the stores' times);
// the widest bounds must count every call, the bounds past the data none.
func TestUsageEdgeDates(t *testing.T) {
	forBackends(t, func(t *testing.T, db string) {
		seedUsage(t, db)
		calls := func(args ...string) int {
			t.Helper()
			out := sessionctl(t, db, append([]string{"usage", "--json"}, args...)...).mustSucceed(t).stdout
			var rep struct {
				Totals struct {
					Calls int `json:"calls"`
				} `json:"totals"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v: %v\n%s", args, err, out)
			}
			return rep.Totals.Calls
		}
		all := calls()
		if all == 0 {
			t.Fatal("the seed has no calls")
		}
		for _, tz := range []string{"America/New_York", "Pacific/Kiritimati", "Pacific/Pago_Pago"} {
			for _, args := range [][]string{
				{"--until", "9999-12-31"},
				{"--since", "0000-01-01"},
				{"--since", "0001-01-01", "--until", "99991231"},
			} {
				if got := calls(append(args, "--tz", tz)...); got != all {
					t.Errorf("%v --tz %s: %d calls, want all %d", args, tz, got, all)
				}
			}
			for _, args := range [][]string{{"--until", "0000-01-01"}, {"--since", "9999-12-31"}} {
				if got := calls(append(args, "--tz", tz)...); got != 0 {
					t.Errorf("%v --tz %s: %d calls, want 0", args, tz, got)
				}
			}
		}
	})
}
