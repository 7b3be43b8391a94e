package cuda

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/ur/driver"
)

// These tests need no GPU: libc's abs stands in for cuLaunchKernel, so a
// prepared launch's call succeeds while its argument is 0.

// absLaunch returns a prepared launch of k, made as PrepareLaunch makes
// it, whose call is abs(arg), through gate (nil: no quick calls).
func absLaunch(t *testing.T, k *kernel, arg uintptr, gate *driver.QuickGate) *driver.NativeCall {
	t.Helper()
	lib, err := dl.Open("libc.so.6")
	if err != nil {
		t.Skipf("libc.so.6 not loadable: %v", err)
	}
	t.Cleanup(func() { lib.Close() })
	abs, err := lib.Lookup("abs")
	if err != nil {
		t.Skipf("libc: %v", err)
	}
	return &driver.NativeCall{Fn: abs, Args: driver.NativeArgs{arg}, Gen: &k.gen, Want: k.gen, Quick: gate, Keep: k}
}

// launchStatuses makes n launches of p and returns how many of their C
// calls went through runtime.cgocall, which counts them (quick calls are
// not counted), failing on any status but Launched.
func launchStatuses(t *testing.T, p *driver.NativeCall, n int) (cgoCalls int64) {
	t.Helper()
	before := runtime.NumCgoCall()
	for range n {
		if st := p.Launch(); st != driver.Launched {
			t.Fatalf("Launch = %v, want Launched", st)
		}
	}
	return runtime.NumCgoCall() - before
}

// fullGate returns a gate of limit quick calls, full, and its busy count.
func fullGate(limit int64) (*driver.QuickGate, *atomic.Int32) {
	busy := new(atomic.Int32)
	g := driver.NewQuickGate(busy, limit)
	g.Refill()
	return g, busy
}

// A prepared launch is a quick call while its gate allows: within the
// budget, and while the adapter has nothing in flight that can make it
// wait.
func TestPreparedLaunchIsQuickWhileTheGateAllows(t *testing.T) {
	g, busy := fullGate(10)
	p := absLaunch(t, new(kernel), 0, g)
	if n := launchStatuses(t, p, 10); n != 0 {
		t.Errorf("10 launches within a budget of 10: %d cgo calls, want 0", n)
	}
	if n := launchStatuses(t, p, 5); n != 5 {
		t.Errorf("5 launches past the budget: %d cgo calls, want 5", n)
	}
	g.Refill()
	busy.Add(1)
	if n := launchStatuses(t, p, 3); n != 3 {
		t.Errorf("3 launches while the adapter is busy: %d cgo calls, want 3", n)
	}
	busy.Add(-1)
	if n := launchStatuses(t, p, 3); n != 0 {
		t.Errorf("3 launches after the busy call ended: %d cgo calls, want 0", n)
	}
}

// Without a gate every call goes through runtime.cgocall.
func TestPreparedLaunchWithoutGateIsNeverQuick(t *testing.T) {
	p := absLaunch(t, new(kernel), 0, nil)
	if n := launchStatuses(t, p, 5); n != 5 {
		t.Errorf("5 launches without a gate: %d cgo calls, want 5", n)
	}
}

// A launch made stale by the kernel enqueues nothing (makes no call), and
// one whose call fails reports it.
func TestPreparedLaunchStatuses(t *testing.T) {
	k := new(kernel)
	k.layout([]uintptr{8})
	stale := absLaunch(t, k, 0, nil)
	k.setLocal(0, 0) // no change: still current
	if st := stale.Launch(); st != driver.Launched {
		t.Errorf("Launch before any change = %v, want Launched", st)
	}
	k.layout([]uintptr{8, 8})
	before := runtime.NumCgoCall()
	if st := stale.Launch(); st != driver.LaunchStale {
		t.Errorf("Launch after a new argument layout = %v, want LaunchStale", st)
	}
	if n := runtime.NumCgoCall() - before; n != 0 {
		t.Errorf("the stale launch made %d C calls, want none", n)
	}
	fresh := absLaunch(t, k, 0, nil)
	k.setLocal(0, 64) // new shared memory
	if st := fresh.Launch(); st != driver.LaunchStale {
		t.Errorf("Launch after resizing shared memory = %v, want LaunchStale", st)
	}
	if st := absLaunch(t, k, 5, nil).Launch(); st != driver.LaunchFailed {
		t.Errorf("Launch whose call returns 5 = %v, want LaunchFailed", st)
	}
}

// The prepared launch allocates nothing.
func TestPreparedLaunchAllocatesNothing(t *testing.T) {
	g, _ := fullGate(1 << 30)
	p := absLaunch(t, new(kernel), 0, g)
	if allocs := testing.AllocsPerRun(100, func() { p.Launch() }); allocs != 0 {
		t.Errorf("Launch: %v allocs, want 0", allocs)
	}
}
