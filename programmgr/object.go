package programmgr

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gour-dev/gour/ur"
)

// refCount is the reference count shared by Program and Kernel. The cache
// holds one reference while the object is cached; every Get hands one to
// its caller; the last Release frees the ur object, exactly once.
//
// A freed object's count is set to refsFreed, far below zero, so that the
// lock-free acquire of the fast path (which may race an eviction and the
// last Release) is one atomic add: a result above zero is a reference.
type refCount struct {
	n atomic.Int64
}

const refsFreed = math.MinInt64 / 2

// tryAcquire takes a reference unless the object is freed. It may revive
// an object whose count just reached zero but which is not freed yet; the
// Release that brought it to zero then leaves the freeing to the last
// holder.
func (r *refCount) tryAcquire() bool { return r.n.Add(1) > 0 }

// drop gives back one reference and reports whether the caller must free
// the object; ok is false when the object had no reference left (a
// Release too many).
func (r *refCount) drop() (free, ok bool) {
	switch n := r.n.Add(-1); {
	case n > 0:
		return false, true
	case n < 0:
		return false, false
	}
	return r.n.CompareAndSwap(0, refsFreed), true
}

// Program is a built program handed out by a Manager: a reference-counted
// wrapper of a *ur.Program. Each GetProgram returns one reference, which the
// caller gives back with Release; the cache holds its own while the program
// is cached. The ur.Program is released when the last reference goes, so a
// program evicted while in use stays valid until its users release it.
type Program struct {
	refs refCount
	// lastUse orders programs for LRU eviction: the value of the
	// manager's use clock when the program was last used.
	lastUse atomic.Uint64

	m       *Manager
	ur      *ur.Program
	image   *Image
	devices []*ur.Device
	spec    SpecValues
	options string
	size    int64
}

// UR returns the built ur.Program. It stays valid until the caller's
// reference is released; do not release it directly.
func (p *Program) UR() *ur.Program { return p.ur }

// Image returns the image the program was built from.
func (p *Program) Image() *Image { return p.image }

// Devices returns the devices the program was built for.
func (p *Program) Devices() []*ur.Device { return slices.Clone(p.devices) }

// Spec returns the specialization-constant values the program was built
// with (values equal to their defaults left out).
func (p *Program) Spec() SpecValues { return p.spec }

// Options returns the caller's build options of the program.
func (p *Program) Options() string { return p.options }

// Size is the sum of the program's binary sizes, in bytes: what it counts
// against the eviction threshold.
func (p *Program) Size() int64 { return p.size }

// Release gives back one reference. The last one releases the ur.Program
// and returns the driver's error, if any; a Release with no reference left
// returns an error carrying ur.ErrInvalidProgram.
func (p *Program) Release() error {
	last, ok := p.refs.drop()
	if !ok {
		return newError(ur.ErrInvalidProgram, "programmgr.Program.Release", "program was released more often than it was handed out")
	}
	if last {
		return p.ur.Release()
	}
	return nil
}

// touch records a use for LRU ordering without a lock: when the program is
// not already the most recently used one, it takes a fresh tick of the
// clock. A program used over and over writes nothing.
func (p *Program) touch(clock *atomic.Uint64) {
	if p.lastUse.Load() != clock.Load() {
		p.lastUse.Store(clock.Add(1))
	}
}

// Kernel is a kernel handed out by a Manager: a reference-counted wrapper
// of a *ur.Kernel, holding a reference to its Program.
//
// A cached Kernel is shared by every caller that asks for the same kernel.
// ur.Queue.Launch takes the arguments with the launch, so any number
// of goroutines launch it at once without a lock:
//
//	k, err := m.GetKernel(ctx, img, "axpy", dev, programmgr.SpecValues{}, "")
//	...
//	defer k.Release()
//	err = q.Launch(k.UR(), ur.Range1D(n), ur.ArgOf(float32(2)), ur.ArgBuffer(x), ur.ArgBuffer(y))
//
// A kernel's own arguments (SetArg*) are state in the driver: hold the
// Kernel's lock (Lock/Unlock) from setting them until the launch is
// enqueued.
type Kernel struct {
	refs     refCount
	fastHits atomic.Int64 // hits of the fast cache that returned this kernel

	mu      sync.Mutex
	m       *Manager
	ur      *ur.Kernel
	program *Program
	name    string
	device  *ur.Device
	tracked bool // counted in m.live (cached mode)
}

// UR returns the ur.Kernel. Hold the Kernel's lock while setting its
// arguments and launching it; do not release it directly.
func (k *Kernel) UR() *ur.Kernel { return k.ur }

// Lock locks the kernel's arguments for the caller.
func (k *Kernel) Lock() { k.mu.Lock() }

// TryLock tries to lock the kernel's arguments and reports whether it did.
func (k *Kernel) TryLock() bool { return k.mu.TryLock() }

// Unlock unlocks the kernel's arguments.
func (k *Kernel) Unlock() { k.mu.Unlock() }

// Name is the kernel's name.
func (k *Kernel) Name() string { return k.name }

// Device is the device the kernel was built for.
func (k *Kernel) Device() *ur.Device { return k.device }

// Program returns the program the kernel belongs to. The caller's
// reference to the kernel keeps the program alive; the program needs no
// Release of its own.
func (k *Kernel) Program() *Program { return k.program }

// Release gives back one reference. The last one releases the ur.Kernel,
// then the kernel's reference to its program; a Release with no reference
// left returns an error carrying ur.ErrInvalidKernel.
func (k *Kernel) Release() error {
	last, ok := k.refs.drop()
	if !ok {
		return newError(ur.ErrInvalidKernel, "programmgr.Kernel.Release", "kernel was released more often than it was handed out")
	}
	if !last {
		return nil
	}
	err := k.ur.Release()
	if k.tracked {
		k.m.forget(k)
	}
	if perr := k.program.Release(); err == nil {
		err = perr
	}
	return err
}
