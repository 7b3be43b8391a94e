package ur

import (
	"errors"
	"sync"
	"testing"

	"github.com/gour-dev/gour/ur/driver"
)

// launchCounts launches k over r on q n times and returns the adapter's
// counts of preparations and launches.
func launchCounts(t *testing.T, drv *preparingQueue, q *Queue, k *Kernel, r NDRange, n int) (prepares, launches int) {
	t.Helper()
	for range n {
		if err := q.Launch(k, r); err != nil {
			t.Fatal(err)
		}
	}
	return drv.counts()
}

// The second launch in a row over the same range prepares the call; from
// the third on, Launch makes it without the adapter.
func TestLaunchRepeatIsPreparedOnce(t *testing.T) {
	drv := new(preparingQueue)
	q, k := fakeLaunchHandles(drv, new([2]int))
	r := Range1D(64)
	for i, want := range [][2]int{{0, 1}, {1, 2}, {1, 2}, {1, 2}} {
		if p, l := launchCounts(t, drv, q, k, r, 1); p != want[0] || l != want[1] {
			t.Fatalf("after launch %d: %d prepares, %d adapter launches; want %d, %d", i+1, p, l, want[0], want[1])
		}
	}
	allocs := testing.AllocsPerRun(100, func() {
		if err := q.Launch(k, r); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("repeated Launch: %v allocs, want 0", allocs)
	}
}

// Ranges that change from launch to launch are never prepared, so Launch
// allocates nothing.
func TestLaunchChangingRangesIsNotPrepared(t *testing.T) {
	drv := new(preparingQueue)
	q, k := fakeLaunchHandles(drv, new([2]int))
	a, b := Range1D(64), Range1D(128)
	allocs := testing.AllocsPerRun(100, func() {
		if err := q.Launch(k, a); err != nil {
			t.Fatal(err)
		}
		if err := q.Launch(k, b); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("alternating ranges: %v allocs, want 0", allocs)
	}
	if p, _ := drv.counts(); p != 0 {
		t.Errorf("alternating ranges: %d prepares, want 0", p)
	}
	// Nor is the same range on another queue of the context.
	other := &Queue{object: object{adapter: q.adapter}, ctx: q.ctx, drv: drv}
	_, before := drv.counts()
	if p, l := launchCounts(t, drv, q, k, a, 2); p != 1 || l != before+2 {
		t.Fatalf("%d prepares, %d adapter launches; want 1, %d", p, l, before+2)
	}
	if p, l := launchCounts(t, drv, other, k, a, 1); p != 1 || l != before+3 {
		t.Errorf("the same range on another queue: %d prepares, %d adapter launches; want 1, %d", p, l, before+3)
	}
}

// A prepared repeat gone stale is prepared again and launched, without
// the adapter's Launch; one that fails goes through the adapter, whose
// error Launch returns.
func TestLaunchRepeatStaleOrFailing(t *testing.T) {
	drv := new(preparingQueue)
	q, k := fakeLaunchHandles(drv, new([2]int))
	r := Range1D(64)
	launchCounts(t, drv, q, k, r, 3)
	drv.gen++
	if p, l := launchCounts(t, drv, q, k, r, 2); p != 2 || l != 2 {
		t.Errorf("after going stale: %d prepares, %d adapter launches; want 2, 2", p, l)
	}
	drv.fail = true // launches prepared from now on fail
	drv.gen++
	drv.launchErr = driver.Errorf(driver.ResultOutOfResources, "no room")
	err := q.Launch(k, r)
	var e *Error
	if !errors.Is(err, ErrOutOfResources) || !errors.As(err, &e) || e.Op != "Queue.Launch" {
		t.Errorf("Launch = %v, want ErrOutOfResources from Queue.Launch", err)
	}
	// A failing repeat whose adapter launch succeeds is not prepared again
	// at every launch: preparing would not help.
	drv.launchErr = nil
	if p, l := launchCounts(t, drv, q, k, r, 10); p != 3 || l != 13 {
		t.Errorf("failing repeat: %d prepares, %d adapter launches; want 3, 13", p, l)
	}
}

// A repeat that can no longer be prepared is dropped, and its launches go
// through the adapter, which says what is wrong.
func TestLaunchRepeatThatCannotBePreparedAgain(t *testing.T) {
	drv := &refusingQueue{}
	q, k := fakeLaunchHandles(drv, new([2]int))
	r := Range1D(64)
	launchCounts(t, &drv.preparingQueue, q, k, r, 3)
	drv.gen++
	drv.refuse = driver.Errorf(driver.ResultInvalidKernelArgs, "argument 1 not set")
	drv.launchErr = drv.refuse
	if err := q.Launch(k, r); !errors.Is(err, ErrInvalidKernelArgs) {
		t.Errorf("Launch = %v, want ErrInvalidKernelArgs", err)
	}
	if k.repeats.launch.Load() != nil {
		t.Error("the repeat that could not be prepared again is kept")
	}
}

// refusingQueue fails PrepareLaunch with refuse, when set.
type refusingQueue struct {
	preparingQueue
	refuse error
}

func (q *refusingQueue) PrepareLaunch(k driver.Kernel, r driver.NDRange) (driver.PreparedLaunch, error) {
	if q.refuse != nil {
		return nil, q.refuse
	}
	return q.preparingQueue.PrepareLaunch(k, r)
}

// The guards come before the repeat: a released queue or kernel is an
// error, not a launch.
func TestLaunchRepeatAfterRelease(t *testing.T) {
	drv := new(preparingQueue)
	q, k := fakeLaunchHandles(drv, new([2]int))
	r := Range1D(64)
	launchCounts(t, drv, q, k, r, 3)
	if err := k.Release(); err != nil {
		t.Fatal(err)
	}
	if err := q.Launch(k, r); !errors.Is(err, ErrInvalidKernel) {
		t.Errorf("Launch of a released kernel = %v, want ErrInvalidKernel", err)
	}
	if err := q.Release(); err != nil {
		t.Fatal(err)
	}
	if err := q.Launch(k, r); !errors.Is(err, ErrInvalidQueue) {
		t.Errorf("Launch on a released queue = %v, want ErrInvalidQueue", err)
	}
}

// A kernel that switches between its prepared launch and another one
// repeated in between does not prepare at every switch, only after
// replaceAfter launches through the adapter.
func TestLaunchSwitchingPreparesSeldom(t *testing.T) {
	drv := new(preparingQueue)
	q, k := fakeLaunchHandles(drv, new([2]int))
	a, b := Range1D(64), Range1D(128)
	launchCounts(t, drv, q, k, a, 2) // a is prepared
	cycle := func() {
		for _, r := range []NDRange{a, b, b} {
			if err := q.Launch(k, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	allocs := testing.AllocsPerRun(50, cycle)
	if allocs != 0 {
		t.Errorf("a, b, b, ...: %v allocs per cycle, want 0", allocs)
	}
	if p, _ := drv.counts(); p != 1 {
		t.Fatalf("a, b, b, ...: %d prepares, want 1", p)
	}
	for range replaceAfter {
		cycle()
	}
	if p, _ := drv.counts(); p != 2 {
		t.Errorf("after %d more cycles: %d prepares, want 2 (b replaced a)", replaceAfter, p)
	}
}

// A repeated Queue.Launch makes one call of the adapter's prepared launch,
// as a PreparedLaunch does: on CUDA, its quick call (the adapter's tests
// check the gate).
func TestLaunchRepeatCallsThePreparedLaunch(t *testing.T) {
	drv := new(preparingQueue)
	q, k := fakeLaunchHandles(drv, new([2]int))
	if p, l := launchCounts(t, drv, q, k, Range1D(64), 50); p != 1 || l != 2 || drv.calls.Load() != 48 {
		t.Errorf("50 launches: %d prepares, %d prepared launches, %d adapter launches; want 1, 48, 2",
			p, drv.calls.Load(), l)
	}
}

// The second launch with arguments in a row of a kernel over one range
// on one queue prepares it where the adapter prepares such launches, and the
// launches after it go through the prepared table with the arguments each
// passes; other ranges, wait lists, events and values by bytes go through
// the adapter, a freed pointer is still refused, and goroutines launching
// at once all launch.
func TestLaunchArgsRepeatsPrepared(t *testing.T) {
	k, _, q, _, m := argSetup(t)
	pq := &prepQueue{}
	q.drv = pq
	r := Range1D(64)
	launch := func(r NDRange, v uint32) {
		t.Helper()
		if err := q.Launch(k, r, ArgBuffer(m), ArgOf(v)); err != nil {
			t.Fatal(err)
		}
	}
	launch(r, 1)
	if pq.prepared != 0 {
		t.Fatalf("prepared after one launch")
	}
	launch(r, 2) // the repeat: through the adapter, then prepared
	if pq.prepared != 1 || pq.viaTable.Load() != 0 {
		t.Fatalf("after a repeat: %d prepared, %d through the table; want 1, 0", pq.prepared, pq.viaTable.Load())
	}
	v := uint32(2)
	allocs := testing.AllocsPerRun(100, func() {
		v++
		launch(r, v)
	})
	if allocs != 0 && !raceEnabled {
		t.Errorf("a repeated Launch with arguments allocates %v times, want 0", allocs)
	}
	want := uint64(v) * uint64(v+1) / 2 // 1 + 2 + ... + v: every value reached a launch
	if n, sum := pq.viaTable.Load(), pq.sum.Load(); n != 101 || sum != want {
		t.Errorf("%d launches through the table summing %d, want 101 summing %d", n, sum, want)
	}

	// Another range, a wait list, an event: the adapter's launch, and the
	// prepared one stays (replaced only after replaceAfter of those).
	before := pq.viaTable.Load()
	launch(Range1D(128), 1)
	launch(Range1D(128), 1)
	ev, err := q.EnqueueLaunch(k, r, LaunchOptions{}, ArgBuffer(m), ArgOf(uint32(1)))
	if err != nil {
		t.Fatal(err)
	}
	if ev != nil {
		ev.Release()
	}
	if pq.viaTable.Load() != before || pq.prepared != 1 {
		t.Errorf("other launches: %d through the table, %d prepared; want none, 1", pq.viaTable.Load()-before, pq.prepared)
	}
	launch(r, 1)
	if pq.viaTable.Load() != before+1 {
		t.Error("the prepared launch was not used again for its range")
	}

	// A value by bytes is never kept: its slice may change.
	b := []byte{5, 0, 0, 0}
	for range 3 {
		if err := q.Launch(k, r, ArgBuffer(m), ArgBytes(b)); err != nil {
			t.Fatal(err)
		}
	}
	if pq.viaTable.Load() != before+1 {
		t.Error("a launch with a value by bytes went through the table")
	}

	// A pointer freed after the table took it is refused.
	u := &USM{object: object{adapter: k.adapter}, ctx: k.ctx, kind: USMDevice, addr: 0x1000, size: 64}
	u.life.free = func() error { return nil }
	for range 3 {
		if err := q.Launch(k, r, ArgPtr(u.Ptr()), ArgOf(uint32(1))); err != nil {
			t.Fatal(err)
		}
	}
	if err := u.Free(); err != nil {
		t.Fatal(err)
	}
	err = q.Launch(k, r, ArgPtr(u.Ptr()), ArgOf(uint32(1)))
	wantArgError(t, "a pointer freed after the table took it", err, ErrInvalidMemObject, "freed")

	// Goroutines at once: each launch goes through the table or the
	// adapter, none is lost.
	start := pq.launches.Load()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if err := q.Launch(k, r, ArgBuffer(m), ArgOf(uint32(1))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := pq.launches.Load() - start; n != 1600 {
		t.Errorf("8 goroutines × 200 launches made %d", n)
	}
}
