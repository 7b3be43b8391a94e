package opencl

import (
	"sync"
	"unsafe"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

type queue struct {
	ctx    *context
	lib    *cl.Lib
	handle cl.Queue
	// outOfOrder: CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE. Commands are
	// ordered by their wait lists, markers and barriers only.
	outOfOrder bool

	// launchMu guards sizes, which live in the queue so that a launch
	// passes heap pointers to C and allocates nothing.
	launchMu sync.Mutex
	sizes    launchSizes
}

func (q *queue) Native() uintptr { return uintptr(q.handle) }
func (q *queue) Release() error {
	q.ctx.untrack(q)
	if q.ctx.guardsLaunches() {
		forgetQueue(q)
	}
	return check("clReleaseCommandQueue", q.lib.ReleaseCommandQueue(q.handle))
}
func (q *queue) Flush() error  { return q.check("clFlush", q.lib.Flush(q.handle), false) }
func (q *queue) Finish() error { return q.check("clFinish", q.lib.Finish(q.handle), true) }

// waitList converts a wait list; nil stays nil so launches without one
// allocate nothing.
func waitList(wait []driver.Event) []cl.Event {
	if len(wait) == 0 {
		return nil
	}
	out := make([]cl.Event, len(wait))
	for i, e := range wait {
		out[i] = e.(*event).handle
	}
	return out
}

// newEvent returns the event to fill, or nil when none is wanted.
func (q *queue) newEvent(want bool) (*event, *cl.Event) {
	if !want {
		return nil, nil
	}
	e := &event{lib: q.lib, q: q}
	return e, &e.handle
}

// result returns e as a driver.Event, keeping a nil *event a nil
// interface, or the error of the enqueue fn on q (q.check).
func (q *queue) result(fn string, e *event, st cl.Status) (driver.Event, error) {
	return q.waitedResult(fn, e, st, false)
}

// waitedResult is result for an enqueue that waited for the queue when
// blocking is set (a blocking read or write).
func (q *queue) waitedResult(fn string, e *event, st cl.Status, blocking bool) (driver.Event, error) {
	if err := q.check(fn, st, blocking); err != nil {
		return nil, err
	}
	if e == nil {
		return nil, nil
	}
	return e, nil
}

func (q *queue) WriteBuffer(m driver.Mem, blocking bool, offset uint64, src []byte, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	e, ev := q.newEvent(wantEvent)
	st := q.lib.EnqueueWriteBuffer(q.handle, m.(*mem).handle, blocking, uintptr(offset), uintptr(len(src)),
		unsafe.Pointer(&src[0]), waitList(wait), ev)
	return q.waitedResult("clEnqueueWriteBuffer", e, st, blocking)
}

func (q *queue) ReadBuffer(m driver.Mem, blocking bool, offset uint64, dst []byte, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	e, ev := q.newEvent(wantEvent)
	st := q.lib.EnqueueReadBuffer(q.handle, m.(*mem).handle, blocking, uintptr(offset), uintptr(len(dst)),
		unsafe.Pointer(&dst[0]), waitList(wait), ev)
	return q.waitedResult("clEnqueueReadBuffer", e, st, blocking)
}

func (q *queue) CopyBuffer(src, dst driver.Mem, srcOffset, dstOffset, size uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	e, ev := q.newEvent(wantEvent)
	st := q.lib.EnqueueCopyBuffer(q.handle, src.(*mem).handle, dst.(*mem).handle,
		uintptr(srcOffset), uintptr(dstOffset), uintptr(size), waitList(wait), ev)
	return q.result("clEnqueueCopyBuffer", e, st)
}

func (q *queue) FillBuffer(m driver.Mem, pattern []byte, offset, size uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	e, ev := q.newEvent(wantEvent)
	st := q.lib.EnqueueFillBuffer(q.handle, m.(*mem).handle, unsafe.Pointer(&pattern[0]), uintptr(len(pattern)),
		uintptr(offset), uintptr(size), waitList(wait), ev)
	return q.result("clEnqueueFillBuffer", e, st)
}

// launchSizes are the size arrays clEnqueueNDRangeKernel reads, kept in
// the heap for C.
type launchSizes struct {
	offset, global, local [3]uintptr
}

// set stores r's sizes and returns the pointers to pass: offset and local
// are nil when r has none (a zero offset, a driver-chosen work-group size).
func (s *launchSizes) set(r *driver.NDRange) (offset, global, local *uintptr) {
	for i := range r.Dims {
		s.global[i], s.local[i], s.offset[i] = uintptr(r.Global[i]), uintptr(r.Local[i]), uintptr(r.Offset[i])
		if r.Offset[i] != 0 {
			offset = &s.offset[0]
		}
	}
	if r.Local[0] != 0 {
		local = &s.local[0]
	}
	return offset, &s.global[0], local
}

// PrepareLaunch returns the launch of k over r as one
// clEnqueueNDRangeKernel call, a driver.NativeCall, with the sizes it
// points to in memory of its own. It never goes stale: the call names the
// kernel, whose arguments OpenCL keeps. What the driver checks (a bad
// work-group size, say) it reports when the launch is made: the call
// fails, and the front end's Queue.Launch makes the error.
func (q *queue) PrepareLaunch(k driver.Kernel, r driver.NDRange) (driver.PreparedLaunch, error) {
	if k.(*kernel).guard != nil {
		return &guardedLaunch{q: q, k: k, r: r}, nil
	}
	sizes := new(launchSizes)
	offset, global, local := sizes.set(&r)
	fn, args := q.lib.EnqueueNDRangeKernelCall(q.handle, k.(*kernel).handle, r.Dims, offset, global, local)
	return &driver.NativeCall{Fn: fn, Args: driver.NativeArgs(args), Keep: sizes}, nil
}

// Launch is the hot path: with no wait list and no event it allocates
// nothing.
func (q *queue) Launch(k driver.Kernel, r driver.NDRange, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	kk := k.(*kernel)
	e, ev := q.newEvent(wantEvent)
	kk.guard.enter(q)
	q.launchMu.Lock()
	offset, global, local := q.sizes.set(&r)
	st := q.lib.EnqueueNDRangeKernel(q.handle, kk.handle, r.Dims, offset, global, local, waitList(wait), ev)
	q.launchMu.Unlock()
	kk.guard.exit(q, st)
	return q.result("clEnqueueNDRangeKernel", e, st)
}

// guardedLaunch is a prepared launch where the driver needs the launch
// guard (poclguard.go): Queue.Launch each time, not one native call.
type guardedLaunch struct {
	q *queue
	k driver.Kernel
	r driver.NDRange
}

func (l *guardedLaunch) Launch() driver.LaunchStatus {
	if _, err := l.q.Launch(l.k, l.r, nil, false); err != nil {
		return driver.LaunchFailed
	}
	return driver.Launched
}
