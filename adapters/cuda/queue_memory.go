package cuda

import (
	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// USMCopy is cuMemcpyAsync, which unified addressing lets take any two
// pointers: device, managed, pinned host, or pageable host memory (which
// the driver stages before it returns). Keeping pageable memory alive and
// in place until the copy completes is the front end's business.
func (q *queue) USMCopy(dst, src uintptr, size uint64, blocking bool, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	return q.enqueue("cuMemcpyAsync", blocking, wait, wantEvent, func(s cu.Stream) cu.Result {
		return q.cu.MemcpyAsync(cu.DevicePtr(dst), cu.DevicePtr(src), uintptr(size), s)
	})
}

func (q *queue) USMFill(ptr uintptr, pattern []byte, size uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	return q.fill(cu.DevicePtr(ptr), pattern, size, wait, wantEvent)
}

// USMPrefetch is cuMemPrefetchAsync. A prefetch is a hint: where CUDA
// would refuse it, on memory that is not managed (device and host
// allocations do not migrate) or on a device that cannot migrate managed
// memory while kernels run (CONCURRENT_MANAGED_ACCESS 0, as on Windows),
// it is a marker and nothing moves, as in the Unified Runtime's CUDA
// adapter.
func (q *queue) USMPrefetch(ptr uintptr, size uint64, toHost bool, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	loc := cu.MemLocation{Type: cu.MemLocationTypeDevice, ID: int32(q.dev.ordinal)}
	if toHost {
		loc = cu.MemLocation{Type: cu.MemLocationTypeHost}
	}
	prefetch := q.dev.prefetch
	return q.enqueue("cuMemPrefetchAsync", false, wait, wantEvent, func(s cu.Stream) cu.Result {
		if !prefetch || !q.managed(ptr) {
			return cu.Success
		}
		return q.cu.MemPrefetchAsync(cu.DevicePtr(ptr), uintptr(size), loc, s)
	})
}

// managed reports whether ptr is managed memory; the caller holds bind.
func (q *queue) managed(ptr uintptr) bool {
	m, r := q.cu.PointerGetAttribute(cu.PointerAttributeIsManaged, cu.DevicePtr(ptr))
	return r == cu.Success && m != 0
}

// USMAdvise is cuMemAdvise, which applies at once rather than in stream
// order; the event, when wanted, completes with the work enqueued before.
// Advice about memory that is not managed, which CUDA refuses, is ignored,
// as a prefetch is.
func (q *queue) USMAdvise(ptr uintptr, size uint64, advice driver.USMAdvice, wantEvent bool) (driver.Event, error) {
	a, loc, ok := cuAdvice(advice, q.dev.ordinal)
	if !ok {
		return nil, driver.Errorf(driver.ResultInvalidEnumeration, "no USM advice %d", advice)
	}
	if !q.cu.HasMemAdvise() {
		return nil, driver.Errorf(driver.ResultUnsupportedFeature, "the CUDA driver has no cuMemAdvise")
	}
	return q.enqueue("cuMemAdvise", false, nil, wantEvent, func(s cu.Stream) cu.Result {
		if !q.managed(ptr) {
			return cu.Success
		}
		return q.cu.MemAdvise(cu.DevicePtr(ptr), uintptr(size), a, loc)
	})
}

// cuAdvice maps advice to CUDA's and the location it names: the queue's
// device, or the host for AdvisePreferHost.
func cuAdvice(advice driver.USMAdvice, ordinal cu.Device) (cu.MemAdvise, cu.MemLocation, bool) {
	dev := cu.MemLocation{Type: cu.MemLocationTypeDevice, ID: int32(ordinal)}
	switch advice {
	case driver.AdviseReadMostly:
		return cu.AdviseSetReadMostly, dev, true
	case driver.AdviseClearReadMostly:
		return cu.AdviseUnsetReadMostly, dev, true
	case driver.AdvisePreferDevice:
		return cu.AdviseSetPreferredLocation, dev, true
	case driver.AdvisePreferHost:
		return cu.AdviseSetPreferredLocation, cu.MemLocation{Type: cu.MemLocationTypeHost}, true
	case driver.AdviseAccessedByDevice:
		return cu.AdviseSetAccessedBy, dev, true
	case driver.AdviseClearAccessedByDevice:
		return cu.AdviseUnsetAccessedBy, dev, true
	}
	return 0, cu.MemLocation{}, false
}

// Marker records an event after the wait list on the stream. A stream
// runs its commands in order, so the event completes after every command
// enqueued before it, and every later command already waits for it:
// barrier changes nothing on one stream. An out-of-order queue joins its
// streams (markerAll).
func (q *queue) Marker(wait []driver.Event, barrier bool) (driver.Event, error) {
	if q.ooo != nil {
		return q.markerAll(wait, barrier)
	}
	return q.enqueue("cuEventRecord", false, wait, true, func(s cu.Stream) cu.Result { return cu.Success })
}

// CopyRect is one cuMemcpy3DAsync: buffers are device memory, pointers
// unified ones, which CUDA resolves to device, managed or host memory.
// CUDA's 3D copy takes a slice's height in rows, so a slice pitch that is
// not a whole number of rows becomes one 2D copy per slice.
func (q *queue) CopyRect(dst, src driver.RectOperand, r driver.Rect, blocking bool, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	p := &cu.Memcpy3D{
		WidthInBytes: r.Region[0], Height: r.Region[1], Depth: r.Region[2],
		SrcXInBytes: r.SrcOrigin[0], SrcY: r.SrcOrigin[1],
		SrcPitch:    r.SrcRowPitch,
		DstXInBytes: r.DstOrigin[0], DstY: r.DstOrigin[1],
		DstPitch: r.DstRowPitch,
	}
	var srcBase, dstBase cu.DevicePtr
	p.SrcMemoryType, srcBase = rectOperand(src)
	p.DstMemoryType, dstBase = rectOperand(dst)
	whole := r.SrcRowPitch != 0 && r.DstRowPitch != 0 &&
		r.SrcSlicePitch%r.SrcRowPitch == 0 && r.DstSlicePitch%r.DstRowPitch == 0
	return q.enqueue("cuMemcpy3DAsync", blocking, wait, wantEvent, func(s cu.Stream) cu.Result {
		if whole {
			p.SrcDevice, p.SrcZ, p.SrcHeight = srcBase, r.SrcOrigin[2], r.SrcSlicePitch/r.SrcRowPitch
			p.DstDevice, p.DstZ, p.DstHeight = dstBase, r.DstOrigin[2], r.DstSlicePitch/r.DstRowPitch
			return q.cu.Memcpy3DAsync(p, s)
		}
		p.Depth = 1
		p.SrcHeight, p.DstHeight = r.SrcOrigin[1]+r.Region[1], r.DstOrigin[1]+r.Region[1]
		for z := range r.Region[2] {
			p.SrcDevice = srcBase + cu.DevicePtr((r.SrcOrigin[2]+z)*r.SrcSlicePitch)
			p.DstDevice = dstBase + cu.DevicePtr((r.DstOrigin[2]+z)*r.DstSlicePitch)
			if res := q.cu.Memcpy3DAsync(p, s); res != cu.Success {
				return res
			}
		}
		return cu.Success
	})
}

// rectOperand is the memory type and address of one side of a CopyRect.
func rectOperand(o driver.RectOperand) (cu.MemoryType, cu.DevicePtr) {
	if o.Mem != nil {
		return cu.MemoryTypeDevice, o.Mem.(*mem).ptr
	}
	return cu.MemoryTypeUnified, cu.DevicePtr(o.Ptr)
}
