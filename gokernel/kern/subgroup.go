package kern

import (
	"fmt"
	"math"
	"sync"
)

// Subgroups (OpenCL's sub-groups, CUDA's warps) are the work-items of a
// work-group that a device runs in lockstep, and that exchange registers
// without shared memory or a barrier: shuffles, reductions and ballots.
//
// A subgroup is consecutive work-items of a work-group, in the order of
// their linear local id (LocalID(0) + LocalID(1)·LocalSize(0) +
// LocalID(2)·LocalSize(0)·LocalSize(1)); the last may be smaller. Its size
// is the device's: 32 on CUDA (a warp), the implementation's on OpenCL
// (8, 16, 32 or 64), CPUSubgroupSize on the CPU. A kernel reads it with
// SubgroupSize and must not assume it. Every work-item of a subgroup must
// reach the same subgroup operations in the same order, as every
// work-item of a group must reach the same barriers: on the CPU each one
// waits, like a barrier among the subgroup, for the others, and RunCPU
// reports a work-item that returned while the others wait.
//
// A kernel using them needs a device aspect: gokernel.AspectSubgroups
// (sizes, ids, reductions; OpenCL's cl_khr_subgroups),
// AspectSubgroupShuffle (Shuffle, ShuffleXor; cl_khr_subgroup_shuffle),
// AspectSubgroupBallot (Ballot; cl_khr_subgroup_ballot), checked before
// the kernel is built. On the CPU a subgroup operation orders memory
// among the subgroup, as a barrier does, which a device's does not
// promise: the race detector does not report a race that only a shuffle
// would leave.

// CPUSubgroupSize is the size of a subgroup on the CPU (RunCPU): a
// warp's, the most common.
const CPUSubgroupSize = 32

// SubgroupValue is what a subgroup operation exchanges: 32- and 64-bit
// numbers.
type SubgroupValue interface {
	int32 | uint32 | int64 | uint64 | int | float32 | float64
}

// SubgroupSize is the number of work-items of this work-item's subgroup:
// get_sub_group_size(); on CUDA 32, but for the last warp of a
// work-group whose size is not a multiple of 32.
func (it Item) SubgroupSize() int { return it.sub().size }

// SubgroupLocalID is the work-item's index in its subgroup (its lane):
// get_sub_group_local_id().
func (it Item) SubgroupLocalID() int { return it.linear() % it.g.sgSize }

// SubgroupID is the subgroup's index in the work-group:
// get_sub_group_id().
func (it Item) SubgroupID() int { return it.linear() / it.g.sgSize }

// NumSubgroups is the number of subgroups of the work-group:
// get_num_sub_groups().
func (it Item) NumSubgroups() int { return len(it.g.subgroups) }

// Shuffle is v of the subgroup's work-item lane (sub_group_shuffle,
// __shfl_sync). lane must be in [0, SubgroupSize()): on the CPU another
// panics, as an index out of range does; on a device it is undefined.
func Shuffle[T SubgroupValue](it Item, v T, lane int) T {
	return exchange(it, v, func(vals []any, me int) T {
		if lane < 0 || lane >= len(vals) {
			panic(fmt.Sprintf("kern.Shuffle: lane %d of a subgroup of %d", lane, len(vals)))
		}
		return vals[lane].(T)
	})
}

// ShuffleXor is v of the work-item whose lane is this one's xor mask
// (sub_group_shuffle_xor, __shfl_xor_sync): the butterfly of a
// reduction. The lane must be in the subgroup, as Shuffle's.
func ShuffleXor[T SubgroupValue](it Item, v T, mask int) T {
	return exchange(it, v, func(vals []any, me int) T {
		lane := me ^ mask
		if lane < 0 || lane >= len(vals) {
			panic(fmt.Sprintf("kern.ShuffleXor: lane %d (%d xor %d) of a subgroup of %d", lane, me, mask, len(vals)))
		}
		return vals[lane].(T)
	})
}

// SubgroupAdd is the sum of v over the subgroup, the same in every
// work-item of it (sub_group_reduce_add). Integers wrap as Go's do.
// Floats are added on the CPU and on CUDA in one order, a tree: lane l
// adds lane l+16, then l+8, ..., l+1 (where those lanes are in the
// subgroup), lane 0's sum the result; OpenCL's order is the device's.
func SubgroupAdd[T SubgroupValue](it Item, v T) T {
	return reduce(it, v, func(a, b T) T { return a + b })
}

// SubgroupMax is the largest v of the subgroup (sub_group_reduce_max);
// for floats, as max is in a kernel, a NaN gives the other value (fmax).
func SubgroupMax[T SubgroupValue](it Item, v T) T {
	return reduce(it, v, func(a, b T) T {
		if isNaN(a) || b > a {
			return b
		}
		return a
	})
}

// SubgroupMin is the smallest v of the subgroup (sub_group_reduce_min),
// a NaN giving the other value as SubgroupMax's does.
func SubgroupMin[T SubgroupValue](it Item, v T) T {
	return reduce(it, v, func(a, b T) T {
		if isNaN(a) || b < a {
			return b
		}
		return a
	})
}

// Ballot is a mask of the subgroup's work-items whose pred is true: bit
// l for lane l (sub_group_ballot, __ballot_sync), the same in every
// work-item of the subgroup.
func Ballot(it Item, pred bool) uint64 {
	return exchange(it, pred, func(vals []any, _ int) uint64 {
		var m uint64
		for l, p := range vals {
			if p.(bool) {
				m |= 1 << l
			}
		}
		return m
	})
}

func isNaN[T SubgroupValue](v T) bool {
	switch x := any(v).(type) {
	case float32:
		return math.IsNaN(float64(x))
	case float64:
		return math.IsNaN(x)
	}
	return false
}

// reduce is op over the subgroup's values in the tree order SubgroupAdd
// documents.
func reduce[T SubgroupValue](it Item, v T, op func(a, b T) T) T {
	return exchange(it, v, func(vals []any, _ int) T {
		n := len(vals)
		acc := make([]T, n)
		for l, x := range vals {
			acc[l] = x.(T)
		}
		for off := CPUSubgroupSize / 2; off > 0; off /= 2 {
			for l := range n {
				if l+off < n {
					acc[l] = op(acc[l], acc[l+off])
				}
			}
		}
		return acc[0]
	})
}

// exchange gives every work-item of it's subgroup what read makes of the
// values all of them gave (vals[lane]), once all have given theirs: the
// subgroup's barrier.
func exchange[T any, V any](it Item, v V, read func(vals []any, me int) T) T {
	s := it.sub()
	lane := it.SubgroupLocalID()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken {
		panic(ErrGroupBroken)
	}
	// Two sets of slots, by the phase's parity: a work-item cannot give
	// the next-but-one operation's value before every work-item has read
	// this one's, for the next operation waits for all of them.
	phase := s.phase
	vals := s.vals[phase&1]
	vals[lane] = v
	s.arrived++
	switch {
	case s.arrived == s.size:
		s.arrived = 0
		s.phase++
		s.cond.Broadcast()
	case s.arrived+s.exited == s.size:
		e := &DivergenceError{Returned: s.firstExited}
		s.mu.Unlock()
		it.g.Break()
		s.mu.Lock() // for the deferred Unlock
		panic(e)
	default:
		for phase == s.phase && !s.broken {
			s.cond.Wait()
		}
		if s.broken {
			panic(ErrGroupBroken)
		}
	}
	return read(vals, lane)
}

// subgroup is a subgroup's state on the CPU.
type subgroup struct {
	size int

	mu      sync.Mutex
	cond    *sync.Cond
	arrived int
	exited  int // work-items that returned
	phase   int
	vals    [2][]any
	broken  bool

	firstExited [3]int // the global id of the first work-item that returned
}

func newSubgroup(size int) *subgroup {
	s := &subgroup{size: size, vals: [2][]any{make([]any, size), make([]any, size)}}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// linear is the work-item's linear local id.
func (it Item) linear() int {
	return it.local[0] + it.localSize[0]*(it.local[1]+it.localSize[1]*it.local[2])
}

func (it Item) sub() *subgroup { return it.g.subgroups[it.SubgroupID()] }
