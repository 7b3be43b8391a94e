package ur

import (
	"runtime"
	"testing"

	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/ur/driver"
)

// nativeQueue prepares every launch as a driver.NativeCall of libc's
// abs(arg): a C call that succeeds while arg is 0.
type nativeQueue struct {
	driver.Queue
	abs, arg uintptr
	launches int // launches through the adapter's Launch
}

func (q *nativeQueue) PrepareLaunch(driver.Kernel, driver.NDRange) (driver.PreparedLaunch, error) {
	return &driver.NativeCall{Fn: q.abs, Args: driver.NativeArgs{q.arg}}, nil
}

func (q *nativeQueue) Launch(driver.Kernel, driver.NDRange, []driver.Event, bool) (driver.Event, error) {
	q.launches++
	return nil, nil
}

func newNativeQueue(t *testing.T) *nativeQueue {
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
	return &nativeQueue{abs: abs}
}

// A prepared launch that is a driver.NativeCall is made by the front end
// directly: one C call per launch (counted by runtime.NumCgoCall, as the
// call has no gate), none through the adapter, no allocation; a failing
// call falls back to the adapter's Launch.
func TestNativeCallLaunches(t *testing.T) {
	drv := newNativeQueue(t)
	q, k, p, _ := preparedOver(t, drv)
	before := runtime.NumCgoCall()
	for range 3 {
		if err := p.Launch(); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 { // the first two go through the adapter, the second prepares the third
		if err := q.Launch(k, Range1D(64)); err != nil {
			t.Fatal(err)
		}
	}
	if calls := runtime.NumCgoCall() - before; calls != 4 || drv.launches != 2 {
		t.Errorf("3 prepared launches and 3 repeated ones: %d C calls, %d adapter launches; want 4, 2", calls, drv.launches)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if err := p.Launch(); err != nil {
			t.Fatal(err)
		}
		if err := q.Launch(k, Range1D(64)); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("prepared and repeated launches: %v allocs, want 0", allocs)
	}
	drv.arg = 5 // abs(5) != 0: the calls prepared from now on fail
	failing, err := q.PrepareLaunch(k, Range1D(64))
	if err != nil {
		t.Fatal(err)
	}
	defer failing.Release()
	if err := failing.Launch(); err != nil || drv.launches != 3 {
		t.Errorf("a failing call: Launch = %v with %d adapter launches; want nil, 3", err, drv.launches)
	}
}
