package cuda

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
)

// combiner serialises the argument launches that goroutines make on one
// in-order queue at once by flat combining: a launch is pushed onto a
// list, and whichever goroutine holds the queue's launch lock submits
// every launch on the list, back to back from its thread, while the
// others wait for theirs. The driver takes a lock of its own for each
// launch on a stream; with many threads calling at once its hand-offs
// cost more than the launches (64 goroutines launched at 0.6× the rate of
// one on the H100), and a Go mutex around the call still hands the lock
// over on every launch (0.9×). Combined, the driver sees one caller, and
// the goroutines prepare their arguments in parallel.
type combiner struct {
	mu      sync.Mutex                // held by the goroutine submitting
	pending atomic.Pointer[launchReq] // launches to submit, newest first
}

// launchReq is one launch waiting to be submitted.
type launchReq struct {
	next   *launchReq
	fn     cu.Function
	grid   [3]uint32
	block  [3]uint32
	shared uint32
	stream cu.Stream
	params *unsafe.Pointer
	res    cu.Result
	// state: 0 waiting, 1 submitted (res is set), 2 its goroutine sleeps
	// on wake.
	state atomic.Uint32
	wake  chan struct{}
}

var launchReqs = sync.Pool{New: func() any { return &launchReq{wake: make(chan struct{}, 1)} }}

// spinsBeforeSleep is how often a waiting goroutine yields before it
// sleeps: a launch takes a few microseconds, a yield a fraction of one.
const spinsBeforeSleep = 64

// launch submits one cuLaunchKernel on q: at once when no other goroutine
// is launching, else through the combining list.
func (c *combiner) launch(q *queue, fn cu.Function, geo *geometry, shared uint32, s cu.Stream, params *unsafe.Pointer) cu.Result {
	if c.pending.Load() == nil && c.mu.TryLock() {
		res := q.cu.LaunchKernelIn(q.dev.ctx, fn, geo.grid[0], geo.grid[1], geo.grid[2], geo.block[0], geo.block[1], geo.block[2], shared, s, params, nil)
		c.mu.Unlock()
		c.drain(q)
		return res
	}
	r := launchReqs.Get().(*launchReq)
	r.fn, r.grid, r.block, r.shared, r.stream, r.params = fn, geo.grid, geo.block, shared, s, params
	r.state.Store(0)
	for {
		old := c.pending.Load()
		r.next = old
		if c.pending.CompareAndSwap(old, r) {
			break
		}
	}
	c.drain(q)
	for spins := 0; r.state.Load() == 0; spins++ {
		if spins < spinsBeforeSleep {
			runtime.Gosched()
			continue
		}
		if r.state.CompareAndSwap(0, 2) {
			<-r.wake
		}
		break
	}
	res := r.res
	r.params, r.next = nil, nil
	launchReqs.Put(r)
	return res
}

// drain submits the pending launches for as long as there are some and
// the lock is free. Whoever holds the lock drains again after releasing
// it, so a launch pushed while the lock was held is never left behind.
func (c *combiner) drain(q *queue) {
	for c.pending.Load() != nil && c.mu.TryLock() {
		// Oldest first: reverse the list, newest first as pushed.
		var list *launchReq
		for r := c.pending.Swap(nil); r != nil; {
			next := r.next
			r.next, list = list, r
			r = next
		}
		for r := list; r != nil; {
			next := r.next // r is its goroutine's again once submitted
			r.res = q.cu.LaunchKernelIn(q.dev.ctx, r.fn, r.grid[0], r.grid[1], r.grid[2], r.block[0], r.block[1], r.block[2], r.shared, r.stream, r.params, nil)
			if r.state.Swap(1) == 2 {
				r.wake <- struct{}{}
			}
			r = next
		}
		c.mu.Unlock()
	}
}
