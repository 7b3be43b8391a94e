package bench

import (
	"testing"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/internal/harness/testenv"
)

// newLauncher skips without a PoCL CPU device (fails if UR_REQUIRE_ADAPTERS
// names opencl).
func newLauncher(tb testing.TB) *Launcher {
	tb.Helper()
	testenv.MustHaveAdapter(tb, "opencl")
	dev, err := FirstPoCLCPU()
	if err != nil {
		if testenv.IsRequired("opencl") {
			tb.Fatalf("%v (UR_REQUIRE_ADAPTERS=opencl; the benchmark runs on PoCL)", err)
		}
		tb.Skip(err)
	}
	l, err := NewLauncher(dev)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := l.Close(); err != nil {
			tb.Error(err)
		}
	})
	return l
}

// BenchmarkLaunch times the sequence of launch.c: per iteration, set the
// buffer argument and launch add1 over 1024 work-items with no event; one
// Finish at the end is part of the time.
func BenchmarkLaunch(b *testing.B) {
	l := newLauncher(b)
	b.ReportAllocs()
	b.ResetTimer()
	if err := l.Launch(b.N); err != nil {
		b.Fatal(err)
	}
	if err := l.Queue.Finish(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if err := l.Check(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSetArgMem times Kernel.SetArgMem alone: the cost of one call
// through gour into the driver. launch.c --setarg is its C counterpart.
func BenchmarkSetArgMem(b *testing.B) {
	l := newLauncher(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Kernel.SetArgMem(0, l.Buffer); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLaunch runs a few rounds and checks that every launch ran and, except
// under -race, that the launch path allocates nothing.
func TestLaunch(t *testing.T) {
	l := newLauncher(t)
	for range 3 {
		if _, _, err := l.Round(100); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if err := l.Launch(1); err != nil {
			t.Fatal(err)
		}
	})
	if err := l.Queue.Finish(); err != nil {
		t.Fatal(err)
	}
	if allocs != 0 && !raceEnabled {
		t.Errorf("SetArgMem + Launch allocates %v times per launch, want 0", allocs)
	}
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := Median(tc.in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
