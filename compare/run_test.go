package compare

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gour-dev/gour/compare/record"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// quick are options for a run that takes seconds on PoCL, on the first
// device with benchmark kernels.
func quick(t *testing.T) Options {
	t.Helper()
	for _, d := range testenv.Devices(t) {
		if _, err := kernelSource(d.Backend()); err == nil {
			return Options{
				Devices:     []*ur.Device{d},
				Rounds:      3,
				Launches:    20,
				BufferBytes: 1 << 20,
				KernelTime:  time.Millisecond,
				Cases:       []string{"TestContextOneDevice", "TestEnqueueLaunch1D"},
			}
		}
	}
	t.Skip("no OpenCL or CUDA device")
	return Options{}
}

// TestRunEveryMetric runs every metric and two conformance cases on a
// device: every metric must be measured and checked ok, with its rounds.
func TestRunEveryMetric(t *testing.T) {
	opts := quick(t)
	rec, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Validate(); err != nil {
		t.Fatal(err)
	}
	d := rec.Devices[0]
	if d.ID != fmt.Sprintf("%s:%d", opts.Devices[0].Backend(), opts.Devices[0].Index()) || d.Name == "" {
		t.Errorf("device %q %q, want the id and name of %v", d.ID, d.Name, opts.Devices[0])
	}
	if len(d.Metrics) != len(metrics) {
		t.Fatalf("%d metrics, want %d", len(d.Metrics), len(metrics))
	}
	for _, m := range d.Metrics {
		if m.Check != record.CheckOK || len(m.Rounds) != opts.Rounds || m.Median <= 0 || m.Min > m.Median || m.Median > m.Max {
			t.Errorf("%s: check %s (%s), rounds %v, median %g in [%g, %g]; want ok, %d positive rounds", m.Name, m.Check, m.Detail, m.Rounds, m.Median, m.Min, m.Max, opts.Rounds)
		}
	}
	if fma := d.Metric("fma"); fma.Peak <= 0 || !strings.Contains(fma.Detail, "lanes") {
		t.Errorf("fma: peak %g, detail %q; want a peak and its assumption", fma.Peak, fma.Detail)
	}
	if len(d.Conformance) != 2 {
		t.Fatalf("conformance %+v, want 2 cases", d.Conformance)
	}
	for _, c := range d.Conformance {
		if c.Status != record.Pass {
			t.Errorf("case %s: %s (%s), want pass", c.Name, c.Status, c.Reason)
		}
	}
	if rec.Settings.Env["POCL_KERNEL_CACHE"] == "" || rec.Gour.GoVersion == "" || rec.Machine.CPUs == 0 {
		t.Errorf("record lacks its settings or build: %+v %+v", rec.Settings, rec.Gour)
	}
}

// TestMetricTimeout makes a metric hang past its timeout (every launch
// takes a second): it is recorded as timed out, and the next metric is
// measured by a new child.
func TestMetricTimeout(t *testing.T) {
	opts := quick(t)
	opts.Cases = []string{}
	opts.Metrics = []string{"launch.queue", "copy.h2d"}
	opts.LaunchDelay = time.Second
	opts.MetricTimeout = 2 * time.Second
	start := time.Now()
	rec, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	ms := rec.Devices[0].Metrics
	if len(ms) != 2 || ms[0].Check != record.CheckTimeout || !strings.Contains(ms[0].Detail, "killed") || ms[1].Check != record.CheckOK {
		t.Fatalf("metrics %+v, want launch.queue timed out and copy.h2d ok", ms)
	}
	// The hung metric timed out once: the processes after the first left
	// it out, and measured copy.h2d each.
	if ms[0].Seconds > 3*opts.MetricTimeout.Seconds() || len(ms[1].ProcessMedians) != opts.Rounds {
		t.Errorf("launch.queue took %.1f s, copy.h2d has %d process medians; want one timeout of %v, and %d", ms[0].Seconds, len(ms[1].ProcessMedians), opts.MetricTimeout, opts.Rounds)
	}
	// Uncut, the hung metric's 20 launches of a second would take a minute
	// a round; cut, the run takes its timeout and a child start a process
	// (seconds each under -race on busy cores).
	if took := time.Since(start); took > 40*time.Second {
		t.Errorf("the run took %v: the hung metric was not cut off", took)
	}
}

// TestCaseTimeout gives a conformance case less time than it needs: it is
// recorded as timed out and the case after it still runs.
func TestCaseTimeout(t *testing.T) {
	opts := quick(t)
	opts.Metrics = []string{}
	opts.Cases = []string{"TestEnqueueManyLaunchesInOrder", "TestContextOneDevice"}
	opts.CaseTimeout = 5 * time.Millisecond
	rec, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	cs := rec.Devices[0].Conformance
	if len(cs) != 2 || cs[0].Status != record.Timeout || !strings.Contains(cs[0].Reason, "killed") {
		t.Fatalf("cases %+v, want the first timed out", cs)
	}
	if cs[1].Status != record.Pass && cs[1].Status != record.Timeout {
		t.Errorf("case after the timeout: %+v, want it run", cs[1])
	}
}

func TestBadOptions(t *testing.T) {
	dev := quick(t).Devices
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{}, "no device"},
		{Options{Devices: dev, Metrics: []string{"launch.bogus"}}, `unknown metric "launch.bogus"`},
		{Options{Devices: dev, Cases: []string{"TestBogus"}}, `unknown conformance case "TestBogus"`},
		{Options{Devices: dev, Rounds: -1}, "at least 1"},
	} {
		_, err := Run(context.Background(), tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run(%+v) = %v, want an error saying %q", tc.opts, err, tc.want)
		}
	}
	_, err := Run(context.Background(), Options{Devices: dev, Metrics: []string{"nope"}})
	var unknown *UnknownError
	if !errors.As(err, &unknown) {
		t.Errorf("unknown metric: %T, want *UnknownError", err)
	}
}
