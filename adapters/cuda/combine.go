package cuda

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/ur/driver"
)

// combiner serialises the argument launches that goroutines make on one
// in-order queue at once by flat combining: a launch is pushed onto a
// list, and whichever goroutine holds the queue's launch lock submits
// every launch on the list, back to back from its thread, while the
// others wait for theirs. The driver takes a lock of its own for each
// launch on a stream; with many threads calling at once its hand-offs
// cost more than the launches (many goroutines launched at a lower rate
// than one), and a Go mutex around the call still hands the lock over on
// every launch (docs/benchmarks.md, "The launch model on the H100").
// Combined, the driver sees one caller, and
// the goroutines prepare their arguments in parallel.
type combiner struct {
	mu      sync.Mutex                // held by the goroutine submitting
	pending atomic.Pointer[launchReq] // launches to submit, newest first
}

// launchReq is one launch waiting to be submitted.
type launchReq struct {
	next *launchReq
	call *driver.NativeCall
	res  cu.Result
	// state: 0 waiting, 1 submitted (res is set), 2 its goroutine sleeps
	// on wake.
	state atomic.Uint32
	wake  chan struct{}
}

var launchReqs = sync.Pool{New: func() any { return &launchReq{wake: make(chan struct{}, 1)} }}

// spinsBeforeSleep is how often a waiting goroutine yields before it
// sleeps: a launch takes a few microseconds, a yield a fraction of one.
const spinsBeforeSleep = 64

// launch submits call, a cuLaunchKernel on q, at once when no other
// goroutine is launching, else through the combining list.
func (c *combiner) launch(q *queue, call *driver.NativeCall) cu.Result {
	if c.pending.Load() == nil && c.mu.TryLock() {
		res := submit(q, call)
		c.mu.Unlock()
		c.drain(q)
		return res
	}
	r := launchReqs.Get().(*launchReq)
	r.call = call
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
	r.call, r.next = nil, nil
	launchReqs.Put(r)
	return res
}

// submit makes call: quickly where the queue's gate allows (the launch
// call of a PreparedLaunch), and again making the context current where
// the driver wants it.
func submit(q *queue, call *driver.NativeCall) cu.Result {
	if call.Launch() == driver.Launched {
		return cu.Success
	}
	return q.cu.LaunchCallIn(q.dev.ctx, (*dl.Args)(&call.Args))
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
			r.res = submit(q, r.call)
			if r.state.Swap(1) == 2 {
				r.wake <- struct{}{}
			}
			r = next
		}
		c.mu.Unlock()
	}
}
