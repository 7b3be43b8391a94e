package kern

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gour-dev/gour/dtype"
)

// Item is one work-item of a launch: its ids and sizes in each of three
// dimensions (indices past the launch's dimensions are 0, sizes 1), and
// its work-group's barrier and shared memory. A kernel receives it as its
// first parameter and passes it to the device functions that need it; it
// is a value the compiler turns into the device's builtins, so a kernel
// must not keep it beyond its call.
type Item struct {
	global, local, group  [3]int
	globalSize, localSize [3]int
	g                     *Group
}

// GlobalID is the work-item's index in dimension d (0, 1 or 2) of the
// index space: get_global_id(d), blockIdx·blockDim + threadIdx.
func (it Item) GlobalID(d int) int { return it.global[d] }

// LocalID is the work-item's index in its work-group: get_local_id(d),
// threadIdx.
func (it Item) LocalID(d int) int { return it.local[d] }

// GroupID is the work-group's index: get_group_id(d), blockIdx.
func (it Item) GroupID(d int) int { return it.group[d] }

// GlobalSize is the index space's size in dimension d: get_global_size(d).
func (it Item) GlobalSize(d int) int { return it.globalSize[d] }

// LocalSize is the work-group's size: get_local_size(d), blockDim.
func (it Item) LocalSize(d int) int { return it.localSize[d] }

// NumGroups is the number of work-groups: get_num_groups(d), gridDim.
func (it Item) NumGroups(d int) int { return it.globalSize[d] / it.localSize[d] }

// Barrier waits until every work-item of the work-group has reached it,
// and makes their writes to shared and global memory before it visible
// to all of them after it (barrier(CLK_LOCAL_MEM_FENCE |
// CLK_GLOBAL_MEM_FENCE), __syncthreads). Every work-item of the group
// must reach the same barriers, as on a device.
func (it Item) Barrier() { it.g.barrier() }

// Shared returns n elements of the work-group's shared memory (OpenCL's
// __local, CUDA's __shared__), the same for every work-item of the
// group. n must be a constant, and the call a statement of the kernel
// function's own body (not of a branch or loop, nor of a device
// function), so that every work-item makes the same calls in the same
// order: the k-th call of each work-item returns the group's k-th array.
// Its elements start as zeros on the CPU and undefined on a device.
func Shared[T any](it Item, n int) []T {
	return it.g.shared(it.local, n, func() any { return make([]T, n) }).([]T)
}

// Group is a work-group's state on the CPU: its barrier, shared memory
// and subgroups. RunCPU makes it.
type Group struct {
	size      int // work-items
	sgSize    int // the size of its subgroups but the last
	subgroups []*subgroup

	mu      sync.Mutex
	cond    *sync.Cond
	arrived int
	exited  int // work-items that returned
	phase   int
	broken  bool // a work-item panicked: the barrier no longer waits

	firstExited [3]int // the global id of the first work-item that returned

	// smu guards the shared arrays. It is not mu: a lock both Shared and
	// the barrier took would order every work-item's accesses before a
	// barrier with the next work-item's after its Shared call, hiding
	// from the race detector the very race a missing barrier leaves.
	smu    sync.Mutex
	arrays []any
	calls  map[[3]int]int // per work-item: Shared calls made
}

// NewGroup returns the state of a work-group of size work-items, in
// subgroups of CPUSubgroupSize.
func NewGroup(size int) *Group {
	g := &Group{size: size, sgSize: CPUSubgroupSize, calls: make(map[[3]int]int, size)}
	g.cond = sync.NewCond(&g.mu)
	for first := 0; first < size; first += g.sgSize {
		g.subgroups = append(g.subgroups, newSubgroup(min(g.sgSize, size-first)))
	}
	return g
}

// NewItem returns the work-item of the given ids and sizes in group g:
// what RunCPU passes to a kernel.
func NewItem(g *Group, global, local, group, globalSize, localSize [3]int) Item {
	return Item{global: global, local: local, group: group, globalSize: globalSize, localSize: localSize, g: g}
}

// barrier is a reusable barrier: the last work-item to arrive starts the
// next phase and wakes the others. The mutex orders every write before
// the barrier with every read after it, for the race detector too.
func (g *Group) barrier() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.broken {
		panic(ErrGroupBroken)
	}
	phase := g.phase
	g.arrived++
	if g.arrived == g.size {
		g.arrived = 0
		g.phase++
		g.cond.Broadcast()
		return
	}
	if g.arrived+g.exited == g.size {
		e := &DivergenceError{Returned: g.firstExited}
		g.mu.Unlock()
		g.Break()
		g.mu.Lock() // for the deferred Unlock
		panic(e)
	}
	for phase == g.phase && !g.broken {
		g.cond.Wait()
	}
	if g.broken {
		panic(ErrGroupBroken)
	}
}

// ErrGroupBroken is what Barrier panics with once another work-item of
// the group has panicked: the group cannot reach the barrier together.
var ErrGroupBroken = errors.New("kern: another work-item of the group panicked")

// ErrDivergence is what a DivergenceError matches.
var ErrDivergence = errors.New("kern: work-items diverged at a barrier or subgroup operation")

// DivergenceError is a work-item that returned while others of its
// work-group or subgroup wait for it at a barrier or subgroup operation,
// where on a device the kernel would hang or be undefined: what Done
// returns, and what the waiting work-item that finds it panics with.
type DivergenceError struct {
	Returned [3]int // the global id of the work-item that returned
}

func (e *DivergenceError) Error() string {
	return fmt.Sprintf("kern: work-item %v returned while others of its work-group or subgroup wait for it at a barrier or subgroup operation: every one must reach the same ones", e.Returned)
}

// Is reports whether target is ErrDivergence.
func (e *DivergenceError) Is(target error) bool { return target == ErrDivergence }

// Break releases the work-items waiting at the group's barrier and its
// subgroups' operations, after a work-item panicked.
func (g *Group) Break() {
	g.mu.Lock()
	g.broken = true
	g.cond.Broadcast()
	g.mu.Unlock()
	for _, s := range g.subgroups {
		s.mu.Lock()
		s.broken = true
		s.cond.Broadcast()
		s.mu.Unlock()
	}
}

// Done records that work-item it returned. It is ErrDivergence, and
// breaks the group, if the others of its group or subgroup wait for it.
func (g *Group) Done(it Item) error {
	g.mu.Lock()
	if g.exited == 0 {
		g.firstExited = it.global
	}
	g.exited++
	stuck := g.arrived > 0 && g.arrived+g.exited == g.size
	g.mu.Unlock()
	if len(g.subgroups) > 0 {
		s := it.sub()
		s.mu.Lock()
		if s.exited == 0 {
			s.firstExited = it.global
		}
		s.exited++
		stuck = stuck || s.arrived > 0 && s.arrived+s.exited == s.size
		s.mu.Unlock()
	}
	if stuck {
		g.Break()
		return &DivergenceError{Returned: it.global}
	}
	return nil
}

func (g *Group) shared(item [3]int, n int, make func() any) any {
	g.smu.Lock()
	defer g.smu.Unlock()
	k := g.calls[item]
	g.calls[item] = k + 1
	if k == len(g.arrays) {
		g.arrays = append(g.arrays, make())
	}
	return g.arrays[k]
}

// Atomic operations on global or shared memory. Each returns the value
// the memory held before (atomic_add, atomicAdd).

// AtomicAddInt32 adds v to *p.
func AtomicAddInt32(p *int32, v int32) int32 { return atomic.AddInt32(p, v) - v }

// AtomicAddUint32 adds v to *p.
func AtomicAddUint32(p *uint32, v uint32) uint32 { return atomic.AddUint32(p, v) - v }

// AtomicAddInt64 adds v to *p.
func AtomicAddInt64(p *int64, v int64) int64 { return atomic.AddInt64(p, v) - v }

// AtomicAddUint64 adds v to *p.
func AtomicAddUint64(p *uint64, v uint64) uint64 { return atomic.AddUint64(p, v) - v }

// AtomicMaxInt32 stores the larger of *p and v in *p.
func AtomicMaxInt32(p *int32, v int32) int32 {
	for {
		old := atomic.LoadInt32(p)
		if old >= v || atomic.CompareAndSwapInt32(p, old, v) {
			return old
		}
	}
}

// AtomicMinInt32 stores the smaller of *p and v in *p.
func AtomicMinInt32(p *int32, v int32) int32 {
	for {
		old := atomic.LoadInt32(p)
		if old <= v || atomic.CompareAndSwapInt32(p, old, v) {
			return old
		}
	}
}

// AtomicCASInt32 stores v in *p if *p is old.
func AtomicCASInt32(p *int32, old, v int32) int32 {
	for {
		cur := atomic.LoadInt32(p)
		if cur != old || atomic.CompareAndSwapInt32(p, old, v) {
			return cur
		}
	}
}

// AtomicXchgInt32 stores v in *p.
func AtomicXchgInt32(p *int32, v int32) int32 { return atomic.SwapInt32(p, v) }

// AtomicAndUint32 stores *p & v in *p.
func AtomicAndUint32(p *uint32, v uint32) uint32 { return atomic.AndUint32(p, v) }

// AtomicOrUint32 stores *p | v in *p.
func AtomicOrUint32(p *uint32, v uint32) uint32 { return atomic.OrUint32(p, v) }

// AtomicXorUint32 stores *p ^ v in *p.
func AtomicXorUint32(p *uint32, v uint32) uint32 {
	for {
		old := atomic.LoadUint32(p)
		if atomic.CompareAndSwapUint32(p, old, old^v) {
			return old
		}
	}
}

// AtomicAddFloat32 adds v to *p (through compare-and-swap on devices and
// here).
func AtomicAddFloat32(p *float32, v float32) float32 {
	u := (*uint32)(unsafe.Pointer(p))
	for {
		old := atomic.LoadUint32(u)
		if atomic.CompareAndSwapUint32(u, old, math.Float32bits(math.Float32frombits(old)+v)) {
			return math.Float32frombits(old)
		}
	}
}

// Float16 is an IEEE 754 binary16 number as its bits: a storage type.
// A kernel converts it to float32 (Float32) to compute and back (F16);
// arithmetic on a Float16 itself is on its bits, as on a uint16.
type Float16 uint16

// BFloat16 is a bfloat16 number (the upper half of a float32) as its
// bits: a storage type, as Float16 is.
type BFloat16 uint16

// Float32 is h's value.
func (h Float16) Float32() float32 { return dtype.Float16From(uint16(h)) }

// Float32 is h's value.
func (h BFloat16) Float32() float32 { return dtype.BFloat16From(uint16(h)) }

// F16 is f rounded to the nearest Float16 (ties to even), as the
// compiled kernels round it.
func F16(f float32) Float16 { return Float16(dtype.Float16Bits(f)) }

// BF16 is f rounded to the nearest BFloat16 (ties to even).
func BF16(f float32) BFloat16 { return BFloat16(dtype.BFloat16Bits(f)) }
