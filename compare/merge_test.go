package compare

import (
	"slices"
	"testing"

	"github.com/gour-dev/gour/compare/record"
)

// The rounds of two processes make one metric; a metric that failed in
// either is failed.
func TestMergeMetrics(t *testing.T) {
	ok := func(name string, secs float64, rounds ...float64) record.Metric {
		m := record.Metric{Name: name, Check: record.CheckOK, Rounds: rounds, Seconds: secs}
		m.Summarize()
		return m
	}
	wrong := func(name string) record.Metric {
		return record.Metric{Name: name, Check: record.CheckWrong, Detail: "y[3] = 7", Seconds: 2}
	}
	got := mergeMetrics([][]record.Metric{
		{ok("a", 1, 10, 30), ok("b", 1, 5), wrong("c")},
		{ok("a", 2, 20), wrong("b"), ok("c", 1, 6)},
	})
	if len(got) != 3 {
		t.Fatalf("%d metrics, want 3", len(got))
	}
	if a := got[0]; !slices.Equal(a.Rounds, []float64{10, 30, 20}) || a.Median != 20 || a.Min != 10 || a.Max != 30 || a.Seconds != 3 {
		t.Errorf("a = %+v, want the rounds 10, 30, 20 (median 20) and 3 s", a)
	}
	for i := 1; i < 3; i++ {
		if m := got[i]; m.Check != record.CheckWrong || m.Detail != "y[3] = 7" || m.Seconds != 3 {
			t.Errorf("metric %d = %+v, want wrong, with the detail and 3 s", i, m)
		}
	}
}
