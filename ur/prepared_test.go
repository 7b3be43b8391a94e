package ur

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gour-dev/gour/ur/driver"
)

// preparingQueue is an adapter queue that prepares launches (fakeLaunch)
// and counts what the front end asks of it.
type preparingQueue struct {
	driver.Queue
	gen       uint64 // the kernel's state: a launch prepared at another gen is stale
	fail      bool   // prepared launches fail
	launchErr error  // the adapter's Launch's answer

	calls atomic.Int64 // prepared launches made (fakeLaunch.Launch calls)

	mu                 sync.Mutex
	prepares, launches int
}

func (q *preparingQueue) PrepareLaunch(driver.Kernel, driver.NDRange) (driver.PreparedLaunch, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.prepares++
	return &fakeLaunch{q: q, gen: q.gen, fail: q.fail}, nil
}

func (q *preparingQueue) Launch(driver.Kernel, driver.NDRange, []driver.Event, bool) (driver.Event, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.launches++
	return nil, q.launchErr
}

// counts returns how many launches the queue prepared and how many went
// through its Launch.
func (q *preparingQueue) counts() (prepares, launches int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.prepares, q.launches
}

// fakeLaunch is preparingQueue's prepared launch: stale once the queue's
// gen moved on, failed where the queue said so when it was prepared.
type fakeLaunch struct {
	q    *preparingQueue
	gen  uint64
	fail bool
}

func (l *fakeLaunch) Launch() driver.LaunchStatus {
	l.q.calls.Add(1)
	switch {
	case l.q.gen != l.gen:
		return driver.LaunchStale
	case l.fail:
		return driver.LaunchFailed
	}
	return driver.Launched
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

// Each Launch is one call of the adapter's prepared launch.
func TestPreparedLaunchCallsTheAdaptersLaunch(t *testing.T) {
	drv := new(preparingQueue)
	_, _, p, _ := preparedOver(t, drv)
	for range 3 {
		if err := p.Launch(); err != nil {
			t.Fatal(err)
		}
	}
	if prepares, launches := drv.counts(); prepares != 1 || launches != 0 || drv.calls.Load() != 3 {
		t.Errorf("3 launches: %d prepares, %d prepared launches, %d adapter launches; want 1, 3, 0",
			prepares, drv.calls.Load(), launches)
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
	drv := new(preparingQueue)
	_, _, p, _ := preparedOver(t, drv)
	defer p.Release()
	drv.gen++ // say, the kernel's arguments took a new layout
	if err := p.Launch(); err != nil {
		t.Fatal(err)
	}
	if err := p.Launch(); err != nil {
		t.Fatal(err)
	}
	// The stale launch, the one prepared again, and the second Launch's.
	if prepares, launches := drv.counts(); prepares != 2 || launches != 0 || drv.calls.Load() != 3 {
		t.Errorf("after the launch went stale: %d prepares, %d prepared launches, %d adapter launches; want 2, 3, 0",
			prepares, drv.calls.Load(), launches)
	}
}

// A launch that is stale again as soon as it is prepared goes through the
// adapter rather than prepare forever.
func TestPreparedLaunchStaleOnceMoreGoesThroughTheAdapter(t *testing.T) {
	drv := &alwaysStaleQueue{}
	_, _, p, _ := preparedOver(t, drv)
	defer p.Release()
	if err := p.Launch(); err != nil {
		t.Fatal(err)
	}
	if prepares, launches := drv.counts(); prepares != 2 || launches != 1 {
		t.Errorf("%d prepares, %d adapter launches; want 2, 1", prepares, launches)
	}
}

// alwaysStaleQueue prepares launches that are always stale.
type alwaysStaleQueue struct{ preparingQueue }

func (q *alwaysStaleQueue) PrepareLaunch(k driver.Kernel, r driver.NDRange) (driver.PreparedLaunch, error) {
	l, err := q.preparingQueue.PrepareLaunch(k, r)
	l.(*fakeLaunch).gen-- // prepared for another state of the kernel
	return l, err
}

// An adapter that prepares nothing, without an error, leaves the launches
// to its Launch.
func TestPreparedLaunchOfNoneGoesThroughTheAdapter(t *testing.T) {
	drv := &preparingNoneQueue{}
	_, _, p, _ := preparedOver(t, drv)
	defer p.Release()
	if err := p.Launch(); err != nil {
		t.Fatal(err)
	}
	if prepares, launches := drv.counts(); prepares != 1 || launches != 1 {
		t.Errorf("%d prepares, %d adapter launches; want 1, 1", prepares, launches)
	}
}

// preparingNoneQueue's PrepareLaunch returns nil, nil.
type preparingNoneQueue struct{ preparingQueue }

func (q *preparingNoneQueue) PrepareLaunch(k driver.Kernel, r driver.NDRange) (driver.PreparedLaunch, error) {
	q.preparingQueue.PrepareLaunch(k, r) // counted
	return nil, nil
}

// A prepared launch that fails is made again through the adapter's
// Launch, whose error Launch returns.
func TestPreparedLaunchFailureGoesThroughTheAdapter(t *testing.T) {
	drv := &preparingQueue{fail: true}
	drv.launchErr = driver.Errorf(driver.ResultOutOfResources, "no room")
	_, _, p, _ := preparedOver(t, drv)
	defer p.Release()
	err := p.Launch()
	var e *Error
	if !errors.Is(err, ErrOutOfResources) || !errors.As(err, &e) || e.Op != "PreparedLaunch.Launch" {
		t.Errorf("Launch = %v, want ErrOutOfResources from PreparedLaunch.Launch", err)
	}
	drv.launchErr = nil // the adapter's launch succeeds where the prepared one did not
	if err := p.Launch(); err != nil {
		t.Errorf("Launch = %v, want nil when the adapter's launch succeeds", err)
	}
	if _, launches := drv.counts(); launches != 2 {
		t.Errorf("%d adapter launches, want 2", launches)
	}
}

// Without LaunchPreparer, the adapter's Launch makes every launch.
func TestPreparedLaunchWithoutPreparer(t *testing.T) {
	drv := new(preparingQueue)
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
	drv := new(preparingQueue)
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
	drv := new(preparingQueue)
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
	drv := new(preparingQueue)
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

// BenchmarkPreparedLaunch times PreparedLaunch.Launch over a prepared
// launch that does nothing: the front end's cost, the guards and one
// interface call, with hot caches.
func BenchmarkPreparedLaunch(b *testing.B) {
	_, _, p, _ := preparedOver(b, new(preparingQueue))
	defer p.Release()
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Launch(); err != nil {
			b.Fatal(err)
		}
	}
}
