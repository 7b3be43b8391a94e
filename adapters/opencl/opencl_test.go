package opencl_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gour-dev/gour/adapters/opencl"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

const addOneSource = `__kernel void add1(__global float* y) { size_t i = get_global_id(0); y[i] += 1.0f; }`

// launchFixture builds add1 on the first OpenCL device and binds a
// 1024-float buffer to it.
type launchFixture struct {
	q *ur.Queue
	k *ur.Kernel
	y *ur.Mem
}

func newLaunchFixture(tb testing.TB) *launchFixture {
	tb.Helper()
	dev := firstOpenCLDevice(tb)
	ctx, err := ur.NewContext(dev)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ctx.Release() })
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { q.Release() })
	prog, err := ctx.NewProgramFromSource(addOneSource)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { prog.Release() })
	if err := prog.Build(""); err != nil {
		tb.Fatal(err)
	}
	k, err := prog.NewKernel("add1")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { k.Release() })
	y, err := ctx.NewBufferFrom(ur.MemReadWrite, make([]byte, 1024*4))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { y.Release() })
	if err := k.SetArgMem(0, y); err != nil {
		tb.Fatal(err)
	}
	return &launchFixture{q: q, k: k, y: y}
}

// TestLaunchAllocatesNothing pins the hot path: setting a buffer argument,
// a scalar argument path and launching make no Go allocation.
func TestLaunchAllocatesNothing(t *testing.T) {
	f := newLaunchFixture(t)
	r := ur.Range1D(1024)
	var launchErr error
	allocs := testing.AllocsPerRun(200, func() {
		if err := f.k.SetArgMem(0, f.y); err != nil {
			launchErr = err
		}
		if err := f.q.Launch(f.k, r); err != nil {
			launchErr = err
		}
	})
	if launchErr != nil {
		t.Fatal(launchErr)
	}
	if err := f.q.Finish(); err != nil {
		t.Fatal(err)
	}
	if allocs != 0 && !raceEnabled {
		t.Errorf("SetArgMem + Launch: %v allocations per launch, want 0", allocs)
	}
	out := make([]float32, 1024)
	if err := f.q.ReadBuffer(f.y, 0, ur.AsBytes(out)); err != nil {
		t.Fatal(err)
	}
	// AllocsPerRun runs the function once more than it counts.
	if want := float32(201); out[0] != want || out[1023] != want {
		t.Errorf("after 201 launches y[0], y[1023] = %v, %v; want %v", out[0], out[1023], want)
	}
}

// BenchmarkLaunch is the sequence scripts/bench compares with C: set the
// buffer argument, launch 1024 work-items, no event.
func BenchmarkLaunch(b *testing.B) {
	f := newLaunchFixture(b)
	r := ur.Range1D(1024)
	b.ReportAllocs()
	for b.Loop() {
		if err := f.k.SetArgMem(0, f.y); err != nil {
			b.Fatal(err)
		}
		if err := f.q.Launch(f.k, r); err != nil {
			b.Fatal(err)
		}
	}
	if err := f.q.Finish(); err != nil {
		b.Fatal(err)
	}
}

// TestOpenWithoutPlatform runs the adapter against an ICD loader that finds
// no vendor: it must report "not available" with the reason, not fail.
// The ICD loader reads its vendors once per process, so the check runs in a
// fresh copy of the test binary.
func TestOpenWithoutPlatform(t *testing.T) {
	if os.Getenv("GOUR_OPENCL_CHILD") == "1" {
		a, err := opencl.Open()
		if err == nil {
			t.Fatalf("Open found adapter %s with an empty vendor directory", a.Name())
		}
		if !errors.Is(err, ur.ErrAdapterNotAvailable) {
			t.Fatalf("Open: %v, want an error matching ur.ErrAdapterNotAvailable", err)
		}
		fmt.Println("REPORTED:", err)
		return
	}
	empty := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestOpenWithoutPlatform$", "-test.v")
	cmd.Env = append(os.Environ(), "GOUR_OPENCL_CHILD=1", "OCL_ICD_VENDORS="+empty, "OCL_ICD_FILENAMES=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "REPORTED: adapter not available: opencl:") {
		t.Fatalf("child did not report the adapter as not available:\n%s", out)
	}
}

// firstOpenCLDevice is the first OpenCL device discovery selects; the
// test skips without one.
func firstOpenCLDevice(tb testing.TB) *ur.Device {
	tb.Helper()
	testenv.MustHaveAdapter(tb, opencl.Name)
	sys, err := ur.Discover(ur.Config{Selector: "opencl:*"})
	if err != nil {
		tb.Fatal(err)
	}
	if len(sys.Devices) == 0 {
		tb.Skip("no OpenCL device selected")
	}
	return sys.Devices[0]
}
