package longtest

import (
	"slices"
	"testing"
)

func TestSample(t *testing.T) {
	t.Setenv(Env, "")
	items := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	for _, c := range []struct {
		n    int
		want []int
	}{
		{1, []int{0}},
		{2, []int{0, 9}},
		{4, []int{0, 3, 6, 9}},
		{10, items},
		{20, items},
		{0, items},
	} {
		if got := Sample(items, c.n); !slices.Equal(got, c.want) {
			t.Errorf("Sample(10 items, %d) = %v, want %v", c.n, got, c.want)
		}
	}
	var ran []int
	for i := range 7 {
		if Every(i, 3) {
			ran = append(ran, i)
		}
	}
	if !slices.Equal(ran, []int{0, 3, 6}) {
		t.Errorf("quick Every(i, 3) ran %v", ran)
	}
	if got := Size(3, 300); got != 3 {
		t.Errorf("quick Size = %d", got)
	}
	t.Setenv(Env, "1")
	if got := Sample(items, 2); !slices.Equal(got, items) {
		t.Errorf("long Sample = %v, want all", got)
	}
	if !Every(1, 3) {
		t.Errorf("long Every(1, 3) = false")
	}
	if got := Size(3, 300); got != 300 {
		t.Errorf("long Size = %d", got)
	}
}
