package driver

import (
	"sync/atomic"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// QuickGate lets a queue's launches (NativeCall) skip the Go scheduler's
// system-call accounting while the driver is known not to make them wait,
// since a quick call that waits holds up every stop-the-world pause of the
// garbage collector (docs/design.md, "Quick calls"). A launch call
// returns within microseconds unless
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
	gate dl.QuickGate // the first field: NativeCall hands a *QuickGate to dl as one
}

// NewQuickGate returns a queue's gate: Limit quick calls per Refill, none
// while *busy (the adapter's calls in flight that can make a launch wait,
// which many gates may share) is not zero. Its budget is empty until the
// first Refill.
func NewQuickGate(busy *atomic.Int32, limit int64) *QuickGate {
	return &QuickGate{gate: *dl.NewQuickGate(busy, limit)}
}

// inner is the gate as dl takes it; nil for a nil gate.
func (g *QuickGate) inner() *dl.QuickGate { return (*dl.QuickGate)(unsafe.Pointer(g)) }

// Take counts the next launch against the budget and reports whether it
// may be a quick call. A nil gate never allows one.
func (g *QuickGate) Take() bool { return g.inner().Take() }

// Spend counts a command enqueued some other way, which fills the queue
// as a launch does. It does nothing on a nil gate.
func (g *QuickGate) Spend() { g.inner().Spend() }

// Refill restores the budget: the queue was seen empty. It does nothing
// on a nil gate.
func (g *QuickGate) Refill() { g.inner().Refill() }
