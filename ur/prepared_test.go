package ur

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/ur/driver"
)

// preparingQueue is an adapter queue whose prepared launch is libc's
// abs(arg): 0, a success, unless the test sets arg.
type preparingQueue struct {
	driver.Queue
	abs       uintptr
	arg       uintptr
	gen       uint64
	launchErr error
	quick     *driver.QuickGate

	mu                 sync.Mutex
	prepares, launches int
}

func (q *preparingQueue) PrepareLaunch(driver.Kernel, driver.NDRange) (*driver.NativeLaunch, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.prepares++
	return &driver.NativeLaunch{Fn: q.abs, Args: dl.Args{q.arg}, Gen: &q.gen, Want: q.gen, Quick: q.quick}, nil
}

func (q *preparingQueue) Launch(driver.Kernel, driver.NDRange, []driver.Event, bool) (driver.Event, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.launches++
	return nil, q.launchErr
}

func (q *preparingQueue) counts() (prepares, launches int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.prepares, q.launches
}

// fakeLaunchHandles returns a queue over drv and a kernel of its context,
// whose releases count in freed.
func fakeLaunchHandles(drv driver.Queue, freed *[2]int) (*Queue, *Kernel) {
	a := &Adapter{name: "fake"}
	ctx := &Context{object: object{adapter: a}}
	prog := &Program{object: object{adapter: a}, ctx: ctx}
	q := &Queue{object: object{adapter: a}, ctx: ctx, drv: drv}
	k := &Kernel{object: object{adapter: a}, ctx: ctx, program: prog}
	q.life.free = func() error { freed[0]++; return nil }
	k.life.free = func() error { freed[1]++; return nil }
	return q, k
}

// preparedOver prepares a launch over 64 work-items on a queue over drv;
// freed counts the frees of the queue and of the kernel.
func preparedOver(t testing.TB, drv driver.Queue) (q *Queue, k *Kernel, p *PreparedLaunch, freed *[2]int) {
	t.Helper()
	freed = new([2]int)
	q, k = fakeLaunchHandles(drv, freed)
	p, err := q.PrepareLaunch(k, Range1D(64))
	if err != nil {
		t.Fatal(err)
	}
	return q, k, p, freed
}

func newPreparingQueue(t testing.TB) *preparingQueue {
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
	return &preparingQueue{abs: abs}
}

func TestPreparedLaunchMakesTheNativeCall(t *testing.T) {
	drv := newPreparingQueue(t)
	_, _, p, _ := preparedOver(t, drv)
	for range 3 {
		if err := p.Launch(); err != nil {
			t.Fatal(err)
		}
	}
	if prepares, launches := drv.counts(); prepares != 1 || launches != 0 {
		t.Errorf("3 launches: %d prepares, %d adapter launches; want 1, 0", prepares, launches)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if err := p.Launch(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Launch: %v allocs, want 0", allocs)
	}
	if err := p.Release(); err != nil {
		t.Fatal(err)
	}
	if err := p.Launch(); !errors.Is(err, ErrInvalidValue) {
		t.Errorf("Launch after Release = %v, want ErrInvalidValue", err)
	}
	if err := p.Release(); !errors.Is(err, ErrInvalidValue) {
		t.Errorf("second Release = %v, want ErrInvalidValue", err)
	}
	var nilLaunch *PreparedLaunch
	if err := nilLaunch.Launch(); !errors.Is(err, ErrInvalidNullHandle) {
		t.Errorf("nil Launch = %v, want ErrInvalidNullHandle", err)
	}
}

func TestPreparedLaunchPreparesAgainWhenStale(t *testing.T) {
	drv := newPreparingQueue(t)
	_, _, p, _ := preparedOver(t, drv)
	defer p.Release()
	drv.gen++ // say, the kernel's arguments took a new layout
	if err := p.Launch(); err != nil {
		t.Fatal(err)
	}
	if err := p.Launch(); err != nil {
		t.Fatal(err)
	}
	if prepares, launches := drv.counts(); prepares != 2 || launches != 0 {
		t.Errorf("after the record went stale: %d prepares, %d adapter launches; want 2, 0", prepares, launches)
	}
}

// A native call that fails is made again through the adapter's Launch,
// whose error Launch returns.
func TestPreparedLaunchFailureGoesThroughTheAdapter(t *testing.T) {
	drv := newPreparingQueue(t)
	drv.arg = 5 // abs(5) != 0: the native call fails
	drv.launchErr = driver.Errorf(driver.ResultOutOfResources, "no room")
	_, _, p, _ := preparedOver(t, drv)
	defer p.Release()
	err := p.Launch()
	var e *Error
	if !errors.Is(err, ErrOutOfResources) || !errors.As(err, &e) || e.Op != "PreparedLaunch.Launch" {
		t.Errorf("Launch = %v, want ErrOutOfResources from PreparedLaunch.Launch", err)
	}
	drv.launchErr = nil // the adapter's launch succeeds where the native call did not
	if err := p.Launch(); err != nil {
		t.Errorf("Launch = %v, want nil when the adapter's launch succeeds", err)
	}
	if _, launches := drv.counts(); launches != 2 {
		t.Errorf("%d adapter launches, want 2", launches)
	}
}

// Without LaunchPreparer, the adapter's Launch makes every launch.
func TestPreparedLaunchWithoutPreparer(t *testing.T) {
	drv := newPreparingQueue(t)
	_, _, p, _ := preparedOver(t, struct{ driver.Queue }{drv})
	defer p.Release()
	if err := p.Launch(); err != nil {
		t.Fatal(err)
	}
	if prepares, launches := drv.counts(); prepares != 0 || launches != 1 {
		t.Errorf("%d prepares, %d adapter launches; want 0, 1", prepares, launches)
	}
}

func TestPrepareLaunchChecks(t *testing.T) {
	drv := newPreparingQueue(t)
	var freed [2]int
	q, k := fakeLaunchHandles(drv, &freed)
	if _, err := q.PrepareLaunch(k, NDRange{Dims: 4}); !errors.Is(err, ErrInvalidWorkDimension) {
		t.Errorf("4 dimensions: %v, want ErrInvalidWorkDimension", err)
	}
	other, _ := fakeLaunchHandles(drv, &freed)
	other.adapter = q.adapter
	if _, err := other.PrepareLaunch(k, Range1D(8)); !errors.Is(err, ErrInvalidContext) {
		t.Errorf("kernel of another context: %v, want ErrInvalidContext", err)
	}
	if q.life.refs.Load() != 0 || k.life.refs.Load() != 0 {
		t.Errorf("failed PrepareLaunch left the queue (%d) or kernel (%d) entered", q.life.refs.Load(), k.life.refs.Load())
	}
	if err := k.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := q.PrepareLaunch(k, Range1D(8)); !errors.Is(err, ErrInvalidKernel) {
		t.Errorf("released kernel: %v, want ErrInvalidKernel", err)
	}
}

// Releasing the queue or the kernel makes Launch fail, and frees them only
// once the PreparedLaunch is released.
func TestPreparedLaunchHoldsQueueAndKernel(t *testing.T) {
	drv := newPreparingQueue(t)
	q, k, p, freed := preparedOver(t, drv)
	if err := k.Release(); err != nil {
		t.Fatal(err)
	}
	if err := p.Launch(); !errors.Is(err, ErrInvalidKernel) {
		t.Errorf("Launch after the kernel's Release = %v, want ErrInvalidKernel", err)
	}
	if err := q.Release(); err != nil {
		t.Fatal(err)
	}
	if err := p.Launch(); !errors.Is(err, ErrInvalidQueue) {
		t.Errorf("Launch after the queue's Release = %v, want ErrInvalidQueue", err)
	}
	if *freed != [2]int{} {
		t.Fatalf("freed %v while the PreparedLaunch holds them, want none", freed)
	}
	if err := p.Release(); err != nil {
		t.Fatal(err)
	}
	if *freed != [2]int{1, 1} {
		t.Errorf("freed %v after the PreparedLaunch's Release, want the queue and the kernel once each", freed)
	}
}

// Launches racing the Release of the queue and then of the prepared launch
// either work or fail with the released handle's error; the queue is freed
// once, after the last launch.
func TestPreparedLaunchRacesRelease(t *testing.T) {
	drv := newPreparingQueue(t)
	q, _, p, freed := preparedOver(t, drv)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for {
				err := p.Launch()
				if err == nil {
					continue
				}
				if !errors.Is(err, ErrInvalidQueue) && !errors.Is(err, ErrInvalidValue) {
					errs <- err
				}
				return
			}
		})
	}
	if err := q.Release(); err != nil {
		t.Fatal(err)
	}
	if err := p.Release(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if freed[0] != 1 {
		t.Errorf("queue freed %d times, want 1", freed[0])
	}
}

// BenchmarkPreparedLaunch times PreparedLaunch.Launch whose native call is
// libc's abs: the front end's cost over one C call (compare with
// `go test -bench Call ./internal/dl`), with hot caches.
func BenchmarkPreparedLaunch(b *testing.B) {
	_, _, p, _ := preparedOver(b, newPreparingQueue(b))
	defer p.Release()
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Launch(); err != nil {
			b.Fatal(err)
		}
	}
}

// cgoCallsOf runs launch n times and returns how many of its C calls went
// through runtime.cgocall, which counts them; quick calls are not counted.
func cgoCallsOf(t *testing.T, n int, launch func() error) int64 {
	t.Helper()
	before := runtime.NumCgoCall()
	for range n {
		if err := launch(); err != nil {
			t.Fatal(err)
		}
	}
	return runtime.NumCgoCall() - before
}

// quickGate gives drv a gate of limit quick calls, full, and returns its
// busy count.
func quickGate(drv *preparingQueue, limit int64) *atomic.Int32 {
	busy := new(atomic.Int32)
	drv.quick = &driver.QuickGate{Busy: busy, Limit: limit}
	drv.quick.Refill()
	return busy
}

// A prepared launch is a quick call while its gate allows: within the
// budget, and while the adapter has nothing in flight that can make it
// wait.
func TestPreparedLaunchIsQuickWhileTheGateAllows(t *testing.T) {
	drv := newPreparingQueue(t)
	busy := quickGate(drv, 10)
	_, _, p, _ := preparedOver(t, drv)
	if n := cgoCallsOf(t, 10, p.Launch); n != 0 {
		t.Errorf("10 launches within a budget of 10: %d cgo calls, want 0", n)
	}
	if n := cgoCallsOf(t, 5, p.Launch); n != 5 {
		t.Errorf("5 launches past the budget: %d cgo calls, want 5", n)
	}
	drv.quick.Refill()
	busy.Add(1)
	if n := cgoCallsOf(t, 3, p.Launch); n != 3 {
		t.Errorf("3 launches while the adapter is busy: %d cgo calls, want 3", n)
	}
	busy.Add(-1)
	if n := cgoCallsOf(t, 3, p.Launch); n != 0 {
		t.Errorf("3 launches after the busy call ended: %d cgo calls, want 0", n)
	}
	if _, launches := drv.counts(); launches != 0 {
		t.Errorf("%d launches through the adapter, want 0", launches)
	}
}

// Without a gate every call goes through runtime.cgocall.
func TestPreparedLaunchWithoutGateIsNeverQuick(t *testing.T) {
	drv := newPreparingQueue(t)
	_, _, p, _ := preparedOver(t, drv)
	if n := cgoCallsOf(t, 5, p.Launch); n != 5 {
		t.Errorf("5 launches without a gate: %d cgo calls, want 5", n)
	}
}
