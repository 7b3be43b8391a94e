package compare

import (
	"slices"
	"testing"

	"github.com/gour-dev/gour/compare/record"
)

// The rounds of three processes make one metric, each process's share and
// median kept; a metric that failed in any is failed.
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
		{ok("a", 1, 40, 50)}, // b and c left out: they failed before
	})
	if len(got) != 3 {
		t.Fatalf("%d metrics, want 3", len(got))
	}
	if a := got[0]; !slices.Equal(a.Rounds, []float64{10, 30, 20, 40, 50}) || a.Median != 30 || a.Min != 10 || a.Max != 50 || a.Seconds != 4 ||
		!slices.Equal(a.ProcessRounds, []int{2, 1, 2}) || !slices.Equal(a.ProcessMedians, []float64{20, 20, 45}) {
		t.Errorf("a = %+v, want the rounds 10, 30, 20, 40, 50 (median 30) of processes of 2, 1 and 2 rounds (medians 20, 20, 45), and 4 s", a)
	}
	for i := 1; i < 3; i++ {
		if m := got[i]; m.Check != record.CheckWrong || m.Detail != "y[3] = 7" || m.Seconds != 3 || m.ProcessRounds != nil || m.ProcessMedians != nil {
			t.Errorf("metric %d = %+v, want wrong, with the detail and 3 s, and no processes", i, m)
		}
	}
}
