package opencl

import (
	ctxpkg "context"
	"unsafe"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

// USMCopy is clEnqueueMemcpyINTEL or clEnqueueSVMMemcpy; either side may
// be ordinary host memory.
func (q *queue) USMCopy(dst, src uintptr, size uint64, blocking bool, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	e, ev := q.newEvent(wantEvent)
	switch q.ctx.via {
	case usmIntel:
		st := q.ctx.intel.EnqueueMemcpy(q.handle, blocking, dst, src, uintptr(size), waitList(wait), ev)
		return q.result("clEnqueueMemcpyINTEL", e, st)
	case usmSVM:
		st := q.lib.EnqueueSVMMemcpy(q.handle, blocking, dst, src, uintptr(size), waitList(wait), ev)
		return q.result("clEnqueueSVMMemcpy", e, st)
	}
	return nil, q.ctx.noUSM()
}

// USMFill is clEnqueueMemFillINTEL or clEnqueueSVMMemFill, which take the
// same patterns as the front end: powers of two up to 128 bytes.
func (q *queue) USMFill(ptr uintptr, pattern []byte, size uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	e, ev := q.newEvent(wantEvent)
	switch q.ctx.via {
	case usmIntel:
		st := q.ctx.intel.EnqueueMemFill(q.handle, ptr, unsafe.Pointer(&pattern[0]), uintptr(len(pattern)), uintptr(size), waitList(wait), ev)
		return q.result("clEnqueueMemFillINTEL", e, st)
	case usmSVM:
		st := q.lib.EnqueueSVMMemFill(q.handle, ptr, unsafe.Pointer(&pattern[0]), uintptr(len(pattern)), uintptr(size), waitList(wait), ev)
		return q.result("clEnqueueSVMMemFill", e, st)
	}
	return nil, q.ctx.noUSM()
}

// USMPrefetch is clEnqueueMigrateMemINTEL or clEnqueueSVMMigrateMem (2.1).
// Where the driver has neither, a prefetch is a hint with nothing to do:
// a marker after the wait list, so that its event still orders the queue.
func (q *queue) USMPrefetch(ptr uintptr, size uint64, toHost bool, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	if q.ctx.via == usmNone {
		return nil, q.ctx.noUSM()
	}
	var flags uint64
	if toHost {
		flags = cl.MigrateMemObjectHost
	}
	e, ev := q.newEvent(wantEvent)
	fn, st := "", cl.InvalidOperation
	switch {
	case q.ctx.via == usmIntel && q.ctx.intel.HasMigrate():
		fn, st = "clEnqueueMigrateMemINTEL", q.ctx.intel.EnqueueMigrateMem(q.handle, ptr, uintptr(size), flags, waitList(wait), ev)
	case q.ctx.via == usmSVM && q.ctx.svmMigrate:
		fn, st = "clEnqueueSVMMigrateMem", q.lib.EnqueueSVMMigrateMem(q.handle, ptr, uintptr(size), flags, waitList(wait), ev)
	}
	if st != cl.InvalidOperation {
		return q.result(fn, e, st)
	}
	// No migration, or a driver that exports it but does not do it (an
	// optional 2.1 feature of an OpenCL 3.0 driver answers
	// CL_INVALID_OPERATION): the hint has nothing to do.
	return q.orderOnly(wait, e, ev)
}

// USMAdvise is a marker: SVM has no advice, and cl_intel_unified_shared_memory
// defines no advice values for clEnqueueMemAdviseINTEL (0x4208-0x420F are
// reserved), so no driver.USMAdvice has an OpenCL counterpart. Intel's own
// Unified Runtime adapter does the same.
func (q *queue) USMAdvise(ptr uintptr, size uint64, advice driver.USMAdvice, wantEvent bool) (driver.Event, error) {
	if q.ctx.via == usmNone {
		return nil, q.ctx.noUSM()
	}
	e, ev := q.newEvent(wantEvent)
	return q.orderOnly(nil, e, ev)
}

// orderOnly stands for a command with nothing to do: a marker after the
// wait list, enqueued only where there is a wait list to honour or an
// event to give (the queue is in order, so later commands follow it).
func (q *queue) orderOnly(wait []driver.Event, e *event, ev *cl.Event) (driver.Event, error) {
	if len(wait) == 0 && ev == nil {
		return nil, nil
	}
	return q.result("clEnqueueMarkerWithWaitList", e, q.lib.EnqueueMarkerWithWaitList(q.handle, waitList(wait), ev))
}

// Marker is clEnqueueMarkerWithWaitList, or with barrier
// clEnqueueBarrierWithWaitList.
func (q *queue) Marker(wait []driver.Event, barrier bool) (driver.Event, error) {
	e, ev := q.newEvent(true)
	if barrier {
		return q.result("clEnqueueBarrierWithWaitList", e, q.lib.EnqueueBarrierWithWaitList(q.handle, waitList(wait), ev))
	}
	return q.result("clEnqueueMarkerWithWaitList", e, q.lib.EnqueueMarkerWithWaitList(q.handle, waitList(wait), ev))
}

// CopyRect copies a region between buffers (clEnqueueCopyBufferRect),
// between a buffer and host-accessible memory (clEnqueueReadBufferRect,
// clEnqueueWriteBufferRect) or between pointers (USM copies row by row,
// merged where rows or slices are contiguous on both sides). OpenCL has no
// call between a buffer and device USM: that gives ErrUnsupportedFeature.
func (q *queue) CopyRect(dst, src driver.RectOperand, r driver.Rect, blocking bool, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	if (dst.Mem != nil || src.Mem != nil) && r.Region[2] > 1 &&
		(r.SrcSlicePitch%r.SrcRowPitch != 0 || r.DstSlicePitch%r.DstRowPitch != 0) {
		return q.copyRectSlices(dst, src, r, blocking, wait, wantEvent)
	}
	region := [3]uintptr{uintptr(r.Region[0]), uintptr(r.Region[1]), uintptr(r.Region[2])}
	switch {
	case dst.Mem != nil && src.Mem != nil:
		g := &cl.CopyRect{
			SrcOrigin: sizes(r.SrcOrigin), DstOrigin: sizes(r.DstOrigin), Region: region,
			SrcRowPitch: uintptr(r.SrcRowPitch), SrcSlicePitch: uintptr(r.SrcSlicePitch),
			DstRowPitch: uintptr(r.DstRowPitch), DstSlicePitch: uintptr(r.DstSlicePitch),
		}
		// The copy does not block: a blocking one waits for its own event.
		e, ev := q.newEvent(wantEvent || blocking)
		st := q.lib.EnqueueCopyBufferRect(q.handle, src.Mem.(*mem).handle, dst.Mem.(*mem).handle, g, waitList(wait), ev)
		if st != cl.Success || !blocking {
			return q.result("clEnqueueCopyBufferRect", e, st)
		}
		if err := e.Wait(ctxpkg.Background()); err != nil {
			e.Release()
			return nil, err
		}
		if !wantEvent {
			return nil, e.Release()
		}
		return e, nil
	case dst.Mem != nil || src.Mem != nil:
		buf, host, fn := dst.Mem, src.Ptr, "clEnqueueWriteBufferRect"
		g := &cl.BufferRect{
			BufferOrigin: sizes(r.DstOrigin), HostOrigin: sizes(r.SrcOrigin), Region: region,
			BufferRowPitch: uintptr(r.DstRowPitch), BufferSlicePitch: uintptr(r.DstSlicePitch),
			HostRowPitch: uintptr(r.SrcRowPitch), HostSlicePitch: uintptr(r.SrcSlicePitch),
		}
		if buf == nil {
			buf, host, fn = src.Mem, dst.Ptr, "clEnqueueReadBufferRect"
			g = &cl.BufferRect{
				BufferOrigin: sizes(r.SrcOrigin), HostOrigin: sizes(r.DstOrigin), Region: region,
				BufferRowPitch: uintptr(r.SrcRowPitch), BufferSlicePitch: uintptr(r.SrcSlicePitch),
				HostRowPitch: uintptr(r.DstRowPitch), HostSlicePitch: uintptr(r.DstSlicePitch),
			}
		}
		ok, err := q.ctx.hostAccessible(host)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, driver.Errorf(driver.ResultUnsupportedFeature,
				"OpenCL has no rectangular copy between a buffer and device USM at %#x: copy through host or shared memory, or between buffers", host)
		}
		e, ev := q.newEvent(wantEvent)
		var st cl.Status
		if fn == "clEnqueueWriteBufferRect" {
			st = q.lib.EnqueueWriteBufferRect(q.handle, buf.(*mem).handle, blocking, g, host, waitList(wait), ev)
		} else {
			st = q.lib.EnqueueReadBufferRect(q.handle, buf.(*mem).handle, blocking, g, host, waitList(wait), ev)
		}
		return q.waitedResult(fn, e, st, blocking)
	}
	return q.copyRectRows(dst.Ptr, src.Ptr, r, blocking, wait, wantEvent)
}

// copyRectSlices copies slice by slice a region whose slice pitch is not
// a multiple of its row pitch, which OpenCL's rect calls refuse
// (CL_INVALID_VALUE) and the front end allows: each slice is a 2D copy
// with the slice's offset folded into its origin. On an in-order queue
// the last slice's event (and wait) covers them all; on an out-of-order
// one a barrier after them does (joinPieces).
func (q *queue) copyRectSlices(dst, src driver.RectOperand, r driver.Rect, blocking bool, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	slices := r.Region[2]
	for z := uint64(0); z < slices; z++ {
		s := r
		s.Region[2] = 1
		s.SrcOrigin = [3]uint64{r.SrcOrigin[0] + (r.SrcOrigin[2]+z)*r.SrcSlicePitch, r.SrcOrigin[1], 0}
		s.DstOrigin = [3]uint64{r.DstOrigin[0] + (r.DstOrigin[2]+z)*r.DstSlicePitch, r.DstOrigin[1], 0}
		s.SrcSlicePitch, s.DstSlicePitch = r.SrcRowPitch*r.Region[1], r.DstRowPitch*r.Region[1]
		last := z == slices-1 && !q.outOfOrder
		ev, err := q.CopyRect(dst, src, s, blocking && last, wait, wantEvent && last)
		if err != nil || last {
			return ev, err
		}
	}
	return q.joinPieces(blocking, wantEvent)
}

// joinPieces ends a command made of several on an out-of-order queue,
// where the last piece's event does not cover the others: a barrier after
// them all stands for the command, and waits for it where it blocks.
func (q *queue) joinPieces(blocking, wantEvent bool) (driver.Event, error) {
	if !blocking && !wantEvent {
		return nil, nil
	}
	ev, err := q.Marker(nil, true)
	if err != nil {
		return nil, err
	}
	if blocking {
		if err := ev.Wait(ctxpkg.Background()); err != nil {
			ev.Release()
			return nil, err
		}
	}
	if !wantEvent {
		return nil, ev.Release()
	}
	return ev, nil
}

// sizes converts an origin to size_t.
func sizes(o [3]uint64) [3]uintptr { return [3]uintptr{uintptr(o[0]), uintptr(o[1]), uintptr(o[2])} }

// copyRectRows emulates a rectangular copy between pointers, which OpenCL
// lacks, with one USM copy per row, per slice where rows are contiguous on
// both sides, or one in all where slices are too. Each copy gets the wait
// list; on an in-order queue the last copy's event (and, for a blocking
// copy, its wait) covers them all, on an out-of-order one a barrier.
func (q *queue) copyRectRows(dst, src uintptr, r driver.Rect, blocking bool, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	width, rows, slices := r.Region[0], r.Region[1], r.Region[2]
	srcStart := r.SrcOrigin[0] + r.SrcOrigin[1]*r.SrcRowPitch + r.SrcOrigin[2]*r.SrcSlicePitch
	dstStart := r.DstOrigin[0] + r.DstOrigin[1]*r.DstRowPitch + r.DstOrigin[2]*r.DstSlicePitch
	rowsContiguous := r.SrcRowPitch == width && r.DstRowPitch == width
	if rowsContiguous {
		width, rows = width*rows, 1
		if slices == 1 || (r.SrcSlicePitch == width && r.DstSlicePitch == width) {
			width, slices = width*slices, 1
		}
	}
	n := rows * slices
	for i := uint64(0); i < n; i++ {
		y, z := i%rows, i/rows
		so := srcStart + y*r.SrcRowPitch + z*r.SrcSlicePitch
		do := dstStart + y*r.DstRowPitch + z*r.DstSlicePitch
		last := i == n-1 && !q.outOfOrder
		ev, err := q.USMCopy(dst+uintptr(do), src+uintptr(so), width, blocking && last, wait, wantEvent && last)
		if err != nil || last {
			return ev, err
		}
	}
	return q.joinPieces(blocking, wantEvent)
}
