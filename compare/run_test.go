package compare

import (
	"context"
	"testing"
	"time"

	"github.com/gour-dev/gour/compare/record"
	"github.com/gour-dev/gour/internal/testenv"
)

// quick are options for a run that takes seconds on PoCL.
func quick(t *testing.T) Options {
	t.Helper()
	devs := testenv.Devices(t)
	return Options{
		Devices:     devs[:1],
		Rounds:      3,
		Launches:    20,
		BufferBytes: 1 << 20,
		KernelTime:  time.Millisecond,
		Cases:       []string{"TestContextOneDevice", "TestEnqueueLaunch1D", "TestEventProfilingNotAvailable"},
	}
}

func TestRunSmoke(t *testing.T) {
	rec, err := Run(context.Background(), quick(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range rec.Devices {
		for _, c := range d.Conformance {
			t.Logf("%s %s %s %.2fs %s", d.ID, c.Name, c.Status, c.Duration, c.Reason)
		}
		for _, m := range d.Metrics {
			t.Logf("%s %s %.3g %s (%.3g–%.3g) %s %s", d.ID, m.Name, m.Median, m.Unit, m.Min, m.Max, m.Check, m.Detail)
		}
	}
	_ = record.Pass
}
