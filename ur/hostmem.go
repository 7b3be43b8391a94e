package ur

import (
	"os"
	"runtime"
	"unsafe"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// HostRegistration is Go memory page-locked for the devices of a context
// (Context.RegisterHost), so that copies from and to it are asynchronous
// and overlap kernels, as from a USMHost allocation.
type HostRegistration struct {
	object
	ctx *Context
	mem []byte
	pin runtime.Pinner
}

// PageAlignedBytes returns n bytes of Go memory starting on a page
// boundary, to register with Context.RegisterHost. The slice keeps the
// whole allocation alive.
func PageAlignedBytes(n int) []byte {
	page := os.Getpagesize()
	b := make([]byte, n+page)
	off := (page - int(uintptr(unsafe.Pointer(&b[0])))%page) % page
	return b[off : off+n : off+n]
}

// RegisterHost page-locks b, which must start on a page boundary and span
// whole pages (PageAlignedBytes makes such memory), for asynchronous
// copies (cuMemHostRegister). gour pins b so that the garbage collector
// neither moves nor frees it until Release, which unlocks it. Adapters
// without page-locking (OpenCL has no call for memory it did not
// allocate) give ErrUnsupportedFeature: use AllocHost there.
func (c *Context) RegisterHost(b []byte) (rh *HostRegistration, rerr error) {
	const op = "Context.RegisterHost"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		tc.args.Uint("bytes", uint64(len(b)))
		defer tc.end(&rerr)
	}

	if err := c.enter(op); err != nil {
		return nil, err
	}
	defer c.life.leave()
	hr, ok := c.drv.(driver.HostRegisterContext)
	if !ok {
		return nil, newError(ErrUnsupportedFeature, op, c.adapter.name, "the %s adapter cannot page-lock memory it did not allocate: allocate with AllocHost", c.adapter.name)
	}
	if len(b) == 0 {
		return nil, newError(ErrInvalidSize, op, c.adapter.name, "memory to register is empty")
	}
	page := uintptr(os.Getpagesize())
	addr := uintptr(unsafe.Pointer(&b[0]))
	if addr%page != 0 || uintptr(len(b))%page != 0 {
		return nil, newError(ErrInvalidValue, op, c.adapter.name,
			"%d bytes at %#x are not whole pages of %d bytes: use PageAlignedBytes", len(b), addr, page)
	}
	r := &HostRegistration{object: object{adapter: c.adapter}, ctx: c, mem: b}
	r.pin.Pin(&b[0])
	if err := hr.HostRegister(addr, uint64(len(b))); err != nil {
		r.pin.Unpin()
		return nil, wrapError(err, op, c.adapter.name)
	}
	r.created("HostRegistration")
	r.life.free = func() error {
		defer r.pin.Unpin()
		return hr.HostUnregister(addr)
	}
	return r, nil
}

// Bytes returns the registered memory; nil once released.
func (r *HostRegistration) Bytes() []byte {
	if r.enter("HostRegistration.Bytes") != nil {
		return nil
	}
	defer r.life.leave()
	return r.mem
}

func (r *HostRegistration) enter(op string) error {
	if r == nil {
		return nilHandle("HostRegistration", op)
	}
	return r.object.enter("HostRegistration", ErrInvalidValue, op)
}

// Release unlocks the memory; copies still using it must have completed.
func (r *HostRegistration) Release() error {
	if r == nil {
		return nilHandle("HostRegistration", "HostRegistration.Release")
	}
	return r.release("HostRegistration", ErrInvalidValue)
}

// FreeMemory reports the device's free and total memory now
// (cuMemGetInfo); adapters whose drivers cannot tell give
// ErrUnsupportedFeature.
func (d *Device) FreeMemory() (free, total uint64, err error) {
	const op = "Device.FreeMemory"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, d)
		defer tc.end(&err)
	}

	if d == nil {
		return 0, 0, nilHandle("Device", op)
	}
	if err := d.usable(op); err != nil {
		return 0, 0, err
	}
	mr, ok := d.drv.(driver.MemoryReporter)
	if !ok {
		return 0, 0, newError(ErrUnsupportedFeature, op, d.adapter.name, "the %s driver does not report free memory", d.adapter.name)
	}
	free, total, err = mr.FreeMemory()
	return free, total, wrapError(err, op, d.adapter.name)
}

// EnqueueMarker returns an event that completes when the wait list has
// completed, or, with an empty list, when every command enqueued before
// it has (urEnqueueEventsWait).
func (q *Queue) EnqueueMarker(wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueMarker"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	return q.marker(op, wait, false)
}

// EnqueueBarrier is EnqueueMarker that also holds back every command
// enqueued after it until it completes (urEnqueueEventsWaitWithBarrier).
func (q *Queue) EnqueueBarrier(wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueBarrier"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	return q.marker(op, wait, true)
}

func (q *Queue) marker(op string, wait []*Event, barrier bool) (*Event, error) {
	if err := q.enter(op); err != nil {
		return nil, err
	}
	defer q.life.leave()
	mq, ok := q.drv.(driver.MarkerQueue)
	if !ok {
		return nil, newError(ErrUnsupportedFeature, op, q.adapter.name, "the %s adapter's queues have no markers", q.adapter.name)
	}
	dw, err := q.useWaitList(op, wait)
	if err != nil {
		return nil, err
	}
	defer leaveEvents(wait)
	ev, err := mq.Marker(dw, barrier)
	return q.finishEnqueue(op, ev, err, nil)
}
