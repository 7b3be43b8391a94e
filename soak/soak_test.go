package soak_test

import (
	"context"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/soak"
	"github.com/gour-dev/gour/ur"
	"github.com/gour-dev/gour/ur/leaktest"
)

var (
	duration = flag.Duration("soak.duration", 20*time.Second, "how long TestSoak runs")
	workers  = flag.Int("soak.workers", 8, "TestSoak's goroutines")
	seed     = flag.Uint64("soak.seed", 0, "TestSoak's seed (0: a new one, printed)")
	kinds    = flag.String("soak.kinds", "", "TestSoak's kinds of call, comma-separated (empty: all)")
)

// TestMain fails the run on handles left unreleased when leak checking is
// on (make test sets GOUR_LEAK_CHECK=1).
func TestMain(m *testing.M) { os.Exit(leaktest.Main(m)) }

// TestSoak runs the soak over every selected device for -soak.duration
// and fails on any failed call; it prints the report either way.
func TestSoak(t *testing.T) {
	testenv.CheckRequired(t)
	var devs []*ur.Device
	for _, d := range testenv.System(t).Devices {
		switch d.Backend() {
		case "opencl", "cuda", "level_zero":
			devs = append(devs, d)
		}
	}
	if len(devs) == 0 {
		t.Skipf("no device: %s", testenv.Reasons(testenv.System(t)))
	}
	opts := soak.Options{Devices: devs, Duration: *duration, Workers: *workers, Seed: *seed}
	if *kinds != "" {
		opts.Kinds = strings.Split(*kinds, ",")
	}
	r, err := soak.Run(context.Background(), opts)
	if r != nil {
		t.Log("\n" + r.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Failures) > 0 {
		t.Errorf("%d of %d calls failed (seed %d)", len(r.Failures), r.Total(), r.Seed)
	}
	want := opts.Kinds
	if want == nil {
		want = soak.Kinds()
	}
	for _, kind := range want {
		if r.Ops[kind] == 0 {
			t.Errorf("no %s call in %v", kind, r.Elapsed)
		}
	}
}
