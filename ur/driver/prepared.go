package driver

import (
	"sync/atomic"

	"github.com/gour-dev/gour/internal/dl"
)

// LaunchPreparer is implemented by queues that can reduce a launch of one
// kernel over one index space to a single C call (NativeLaunch), checked
// once instead of at every launch. The front end makes that call itself,
// so a prepared launch runs no adapter code unless it fails. Queues
// without it are launched through Queue.Launch.
type LaunchPreparer interface {
	// PrepareLaunch checks the launch as Launch would, with no wait list
	// and no event, and returns its native call.
	PrepareLaunch(k Kernel, r NDRange) (*NativeLaunch, error)
}

// NativeLaunch is a launch as one C call, Fn(Args...), whose 32-bit
// result is 0 on success: cuLaunchKernel, clEnqueueNDRangeKernel.
//
// It is read-only once made, so any goroutine may call it. A call that
// fails enqueues nothing, so the front end answers a failure by launching
// again through Queue.Launch, which makes the error (or, where the driver
// wanted state the call does not set, such as CUDA's current context,
// succeeds).
type NativeLaunch struct {
	// The record is current while *Gen == Want: the adapter bumps *Gen
	// when a change of the kernel (the layout of its arguments, its shared
	// memory) makes the call stale. A nil Gen never goes stale. Like
	// setting arguments, that change is ordered with launches by the
	// caller, so Gen is a plain word.
	Gen  *uint64
	Want uint64
	Fn   uintptr
	Args dl.Args
	// Keep holds the memory Args points into (the kernel's argument
	// table, the sizes), so that it lives as long as the record.
	Keep any
	// Quick, when not nil, decides call by call whether the call may be
	// made with dl.CallQuick; nil makes every call with dl.Call.
	Quick *QuickGate
}

// Current reports whether the call still launches what it was made for.
func (n *NativeLaunch) Current() bool { return n.Gen == nil || *n.Gen == n.Want }

// Call makes the C call and reports whether it succeeded. (The front
// end's hot path makes the same call inline, without this frame.)
func (n *NativeLaunch) Call() bool { return int32(dl.CallQuickIf(n.Quick.Take(), n.Fn, &n.Args)) == 0 }

// QuickGate lets a queue's launches skip the Go scheduler's system-call
// accounting (dl.CallQuick) while the driver is known not to make them
// wait, since a quick call that waits holds up every stop-the-world pause
// of the garbage collector. A launch call returns within microseconds
// unless
//   - the queue's launch queue is full (cuLaunchKernel then waits for a
//     launch to finish: 1021 pending launches per stream on the H100,
//     measured in docs/benchmarks.md), so a queue may make Limit quick
//     calls, and the other commands enqueued count too, until it is known
//     to have drained (Refill, after a synchronization);
//   - another thread holds a lock the launch needs, as the driver does
//     while it loads a module (cuModuleLoadData, or the lazy load of a
//     function, which waits for the device to drain with the lock held),
//     so no call is quick while the adapter has such a call in flight
//     (Busy).
//
// The adapter must also make sure a launch never loads code itself (CUDA's
// lazy loading): only a gate's owner knows its driver well enough to make
// one. The zero budget allows no quick call until the first Refill.
type QuickGate struct {
	budget atomic.Int64
	// Busy counts the adapter's calls in flight that can make a launch
	// wait; it may be shared by many gates.
	Busy *atomic.Int32
	// Limit is how many commands the queue may hold, pending, before its
	// launches stop being quick.
	Limit int64
}

// Take counts the next launch against the budget and reports whether it
// may be a quick call. A nil gate never allows one.
func (g *QuickGate) Take() bool {
	return g != nil && g.budget.Add(-1) >= 0 && g.Busy.Load() == 0
}

// Spend counts a command enqueued some other way, which fills the queue
// as a launch does. It does nothing on a nil gate.
func (g *QuickGate) Spend() {
	if g != nil {
		g.budget.Add(-1)
	}
}

// Refill restores the budget: the queue was seen empty. It does nothing
// on a nil gate.
func (g *QuickGate) Refill() {
	if g != nil {
		g.budget.Store(g.Limit)
	}
}
