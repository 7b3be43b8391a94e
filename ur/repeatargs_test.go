package ur

import (
	"sync"
	"testing"
)

// The second LaunchArgs in a row of a kernel over one range on one queue
// prepares it where the adapter prepares launches with arguments, and the
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
		if err := q.LaunchArgs(k, r, ArgBuffer(m), ArgOf(v)); err != nil {
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
		t.Errorf("a repeated LaunchArgs allocates %v times, want 0", allocs)
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
	ev, err := q.EnqueueLaunchArgs(k, r, LaunchProperties{}, []Arg{ArgBuffer(m), ArgOf(uint32(1))})
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
		if err := q.LaunchArgs(k, r, ArgBuffer(m), ArgBytes(b)); err != nil {
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
		if err := q.LaunchArgs(k, r, ArgPtr(u.Ptr()), ArgOf(uint32(1))); err != nil {
			t.Fatal(err)
		}
	}
	if err := u.Free(); err != nil {
		t.Fatal(err)
	}
	err = q.LaunchArgs(k, r, ArgPtr(u.Ptr()), ArgOf(uint32(1)))
	wantArgError(t, "a pointer freed after the table took it", err, ErrInvalidMemObject, "freed")

	// Goroutines at once: each launch goes through the table or the
	// adapter, none is lost.
	start := pq.launches.Load()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if err := q.LaunchArgs(k, r, ArgBuffer(m), ArgOf(uint32(1))); err != nil {
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
