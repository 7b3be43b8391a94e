package levelzero

import (
	"math"
	"unsafe"

	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

// USMCopy is zeCommandListAppendMemoryCopy, which takes device, shared and
// host allocations and ordinary host memory alike; the front end keeps
// host memory alive and in place until the copy completes.
func (q *queue) USMCopy(dst, src uintptr, size uint64, blocking bool, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	cmd, err := q.begin(wait, wantEvent)
	if err != nil {
		return nil, err
	}
	r := q.ze.CommandListAppendMemoryCopy(q.list, dst, src, uintptr(size), cmd.signal, cmd.wait)
	ev, err := q.end("zeCommandListAppendMemoryCopy", cmd, r, nil)
	return q.blocking(blocking, ev, err)
}

// USMFill is FillBuffer at a pointer: zeCommandListAppendMemoryFill, or
// for a pattern longer than the compute engine fills, doubling copies.
func (q *queue) USMFill(ptr uintptr, pattern []byte, size uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.fill(ptr, pattern, size, wait, wantEvent)
}

// USMPrefetch is zeCommandListAppendMemoryPrefetch on shared memory.
// Level Zero prefetches to the list's device only, and only shared memory
// migrates: a prefetch to the host, or of other memory, only orders the
// queue, as the front end documents of a hint.
func (q *queue) USMPrefetch(ptr uintptr, size uint64, toHost bool, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	shared := !toHost && q.c.usmType(ptr) == ze.MemoryTypeShared
	return q.hint("zeCommandListAppendMemoryPrefetch", wait, wantEvent, func() ze.Result {
		if !shared {
			return ze.Success
		}
		return q.ze.CommandListAppendMemoryPrefetch(q.list, ptr, uintptr(size))
	})
}

// USMAdvise is zeCommandListAppendMemAdvise on shared memory, with the
// queue's device; advice about other memory only orders the queue.
// Level Zero 1.4 has no host location and no "accessed by": AdvisePreferHost
// clears the device preference, leaving placement to the driver, and the
// accessed-by advice has nothing to map to and only orders the queue.
func (q *queue) USMAdvise(ptr uintptr, size uint64, advice driver.USMAdvice, wantEvent bool) (driver.Event, error) {
	a, ok, known := zeAdvice(advice)
	if !known {
		return nil, driver.Errorf(driver.ResultInvalidEnumeration, "no USM advice %d", advice)
	}
	shared := ok && q.c.usmType(ptr) == ze.MemoryTypeShared
	return q.hint("zeCommandListAppendMemAdvise", nil, wantEvent, func() ze.Result {
		if !shared {
			return ze.Success
		}
		return q.ze.CommandListAppendMemAdvise(q.list, q.dev.handle, ptr, uintptr(size), a)
	})
}

// zeAdvice maps advice to Level Zero's; ok is false for advice Level Zero
// has no counterpart of, known false for advice that does not exist.
func zeAdvice(advice driver.USMAdvice) (a ze.MemoryAdvice, ok, known bool) {
	switch advice {
	case driver.AdviseReadMostly:
		return ze.MemoryAdviceSetReadMostly, true, true
	case driver.AdviseClearReadMostly:
		return ze.MemoryAdviceClearReadMostly, true, true
	case driver.AdvisePreferDevice:
		return ze.MemoryAdviceSetPreferredLocation, true, true
	case driver.AdvisePreferHost:
		return ze.MemoryAdviceClearPreferredLocation, true, true
	case driver.AdviseAccessedByDevice, driver.AdviseClearAccessedByDevice:
		return 0, false, true
	}
	return 0, false, false
}

// hint appends a command that takes no events (prefetch, advice): the
// wait list goes before it as zeCommandListAppendWaitOnEvents, and the
// event after it as a barrier, which signals once everything before it,
// the hint included, is done, whether or not the list is in order.
func (q *queue) hint(fn string, wait []driver.Event, wantEvent bool, appendHint func() ze.Result) (driver.Event, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	cmd, err := q.begin(wait, wantEvent)
	if err != nil {
		return nil, err
	}
	if len(cmd.wait) > 0 {
		if r := q.ze.CommandListAppendWaitOnEvents(q.list, cmd.wait); r != ze.Success {
			return q.end("zeCommandListAppendWaitOnEvents", cmd, r, nil)
		}
	}
	if r := appendHint(); r != ze.Success {
		return q.end(fn, cmd, r, nil)
	}
	if cmd.signal == 0 {
		return q.end(fn, cmd, ze.Success, nil)
	}
	return q.end("zeCommandListAppendBarrier", cmd, q.ze.CommandListAppendBarrier(q.list, cmd.signal, nil), nil)
}

// Marker is a barrier that signals its event: it completes after the
// wait list and everything enqueued before it, and later commands start
// after it, so barrier changes nothing on an in-order queue.
func (q *queue) Marker(wait []driver.Event, _ bool) (driver.Event, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	cmd, err := q.begin(wait, true)
	if err != nil {
		return nil, err
	}
	r := q.ze.CommandListAppendBarrier(q.list, cmd.signal, cmd.wait)
	ev, err := q.end("zeCommandListAppendBarrier", cmd, r, nil)
	if err == nil {
		q.pending = false // the barrier orders what follows
	}
	return ev, err
}

// CopyRect is one zeCommandListAppendMemoryCopyRegion. Its regions,
// origins and pitches are 32-bit: the origins are folded into the
// pointers (in 64 bits), the same region goes to both sides, and extents
// or pitches past 4 GiB give UNSUPPORTED_SIZE. A 2D copy has depth 0, as
// Level Zero asks, and no slice pitch.
func (q *queue) CopyRect(dst, src driver.RectOperand, r driver.Rect, blocking bool, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	dptr := rectBase(dst) + uintptr(r.DstOrigin[0]+r.DstOrigin[1]*r.DstRowPitch+r.DstOrigin[2]*r.DstSlicePitch)
	sptr := rectBase(src) + uintptr(r.SrcOrigin[0]+r.SrcOrigin[1]*r.SrcRowPitch+r.SrcOrigin[2]*r.SrcSlicePitch)
	depth, dslice, sslice := r.Region[2], r.DstSlicePitch, r.SrcSlicePitch
	if depth == 1 {
		depth, dslice, sslice = 0, 0, 0
	}
	for _, v := range [...]uint64{r.Region[0], r.Region[1], depth, r.DstRowPitch, dslice, r.SrcRowPitch, sslice} {
		if v > math.MaxUint32 {
			return nil, driver.Errorf(driver.ResultUnsupportedSize, "zeCommandListAppendMemoryCopyRegion takes 32-bit extents and pitches: region %v, pitches %d/%d and %d/%d",
				r.Region, r.DstRowPitch, r.DstSlicePitch, r.SrcRowPitch, r.SrcSlicePitch)
		}
	}
	region := &ze.CopyRegion{Width: uint32(r.Region[0]), Height: uint32(r.Region[1]), Depth: uint32(depth)}
	q.mu.Lock()
	defer q.mu.Unlock()
	cmd, err := q.begin(wait, wantEvent)
	if err != nil {
		return nil, err
	}
	res := q.ze.CommandListAppendMemoryCopyRegion(q.list, dptr, region, uint32(r.DstRowPitch), uint32(dslice),
		sptr, region, uint32(r.SrcRowPitch), uint32(sslice), cmd.signal, cmd.wait)
	ev, err := q.end("zeCommandListAppendMemoryCopyRegion", cmd, res, nil)
	return q.blocking(blocking, ev, err)
}

// rectBase is the address of one side of a CopyRect: a buffer's device
// address, or the pointer.
func rectBase(o driver.RectOperand) uintptr {
	if o.Mem != nil {
		return o.Mem.(*mem).ptr
	}
	return o.Ptr
}

// SetArgPointer passes the address as the argument's value, as SetArgMem
// passes a buffer's: a Level Zero buffer is a pointer too.
func (k *kernel) SetArgPointer(index uint32, ptr uintptr) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if index >= k.numArgs {
		return driver.Errorf(driver.ResultInvalidKernelArgumentIndex, "argument %d: kernel %s takes %d", index, k.name, k.numArgs)
	}
	k.memArgs[index] = ptr
	return k.setArg(index, unsafe.Sizeof(uintptr(0)), unsafe.Pointer(&k.memArgs[index]))
}
