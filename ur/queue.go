package ur

import (
	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// QueueProperties selects queue features.
type QueueProperties = driver.QueueProperties

// Queue is an in-order command queue on one device of a context. Enqueue
// calls return at once; blocking reads and writes, Finish and Event.Wait
// wait for the device.
type Queue struct {
	object
	ctx    *Context
	device *Device
	// deviceIndex is device's place among the context's devices, where
	// kernels keep their limits for it (Kernel.groups).
	deviceIndex int
	drv         driver.Queue
	props       QueueProperties
	// holds keeps the Go memory of non-blocking transfers alive until
	// they complete.
	holds holds
}

// NewQueue creates an in-order queue on dev, which must be in the context.
func (c *Context) NewQueue(dev *Device, props QueueProperties) (rh *Queue, rerr error) {
	const op = "Context.NewQueue"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		defer endNewOf(&tc, &rh, &rerr)
	}

	if err := c.enter(op); err != nil {
		return nil, err
	}
	defer c.life.leave()
	if dev == nil {
		return nil, nilHandle("Device", op)
	}
	if err := dev.usable(op); err != nil {
		return nil, err
	}
	if !c.hasDevice(dev) {
		return nil, newError(ErrInvalidDevice, op, c.adapter.name, "device %q is not in the context", dev.Name())
	}
	drvProps := traceQueueProps(props)
	drv, err := c.drv.NewQueue(dev.drv, drvProps)
	if err != nil {
		return nil, c.wrap(err, op)
	}
	q := c.newQueue(dev, drv, props)
	queueMade(q, drvProps)
	return q, nil
}

// newQueue makes the handle of an adapter's queue on dev.
func (c *Context) newQueue(dev *Device, drv driver.Queue, props QueueProperties) *Queue {
	q := &Queue{object: object{adapter: c.adapter}, ctx: c, device: dev, deviceIndex: c.deviceIndex(dev), drv: drv, props: props}
	q.created("Queue")
	q.life.free = func() error {
		q.holds.dropAll(true) // the queue's last transfers may still read them
		return drv.Release()
	}
	return q
}

// enterError is the error of a failed enter of q, nil or released.
func (q *Queue) enterError(op string) error {
	if q == nil {
		return nilHandle("Queue", op)
	}
	return q.releasedError("Queue", ErrInvalidQueue, op)
}

// enter checks that q is live and its context not lost (lost.go); on nil
// error the caller must call q.life.leave.
func (q *Queue) enter(op string) error {
	if q == nil || !q.life.enter() {
		return q.enterError(op)
	}
	if q.ctx.lost.first.Load() != nil {
		q.life.leave()
		return q.ctx.lostError(op)
	}
	return nil
}

// Release releases the queue once its commands have been submitted.
func (q *Queue) Release() error {
	if q == nil {
		return nilHandle("Queue", "Queue.Release")
	}
	if trace.Active() != nil {
		drainQueue(q, true)
	}
	return q.release("Queue", ErrInvalidQueue)
}

// Context returns the queue's context.
func (q *Queue) Context() *Context {
	if q == nil {
		return nil
	}
	return q.ctx
}

// Device returns the queue's device.
func (q *Queue) Device() *Device {
	if q == nil {
		return nil
	}
	return q.device
}

// Native returns the vendor handle (cl_command_queue, CUstream, ...); 0
// for a nil or released queue.
func (q *Queue) Native() uintptr {
	if q == nil || !q.life.enter() {
		return 0
	}
	defer q.life.leave()
	return q.drv.Native()
}

// NativeContext is the native context the queue's commands run in (a
// CUcontext, cl_context or ze_context_handle_t): with Native, what a
// vendor library bound to the queue needs, in one call. On CUDA it is
// the queue's device's context, also in a context of several devices. 0
// for a released queue.
func (q *Queue) NativeContext() uintptr {
	if q == nil || !q.life.enter() {
		return 0
	}
	defer q.life.leave()
	if nc, ok := q.drv.(driver.NativeContextQueue); ok {
		return nc.NativeContext()
	}
	return q.ctx.Native()
}

// Flush submits the queued commands to the device without waiting.
func (q *Queue) Flush() (rerr error) {
	const op = "Queue.Flush"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		defer tc.end(&rerr)
	}

	if err := q.enter(op); err != nil {
		return err
	}
	defer q.life.leave()
	return q.ctx.wrap(q.drv.Flush(), op)
}

// Finish waits until every queued command has completed.
func (q *Queue) Finish() (rerr error) {
	const op = "Queue.Finish"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		defer tc.endFinish(q, &rerr)
	}

	if err := q.enter(op); err != nil {
		return err
	}
	defer q.life.leave()
	if err := q.drv.Finish(); err != nil {
		return q.ctx.wrap(err, op)
	}
	q.holds.dropAll(false)
	return nil
}

// useMem enters a buffer argument and checks it belongs to the queue's
// context; on nil error the caller must leave it.
func (q *Queue) useMem(op string, m *Mem) error {
	if err := m.enter(op); err != nil {
		return err
	}
	if m.ctx != q.ctx {
		m.life.leave()
		if err := q.sameAdapter(&m.object, "Mem", ErrInvalidMemObject, op); err != nil {
			return err
		}
		return newError(ErrInvalidContext, op, q.adapter.name, "buffer belongs to another context")
	}
	return nil
}

// useBuffer is useMem for a buffer operation: an image there is
// ErrInvalidMemObject, before an adapter takes it for a buffer.
func (q *Queue) useBuffer(op string, m *Mem) error {
	if err := q.useMem(op, m); err != nil {
		return err
	}
	if err := m.notImage(op); err != nil {
		m.life.leave()
		return err
	}
	return nil
}

// useWaitList enters every event of a wait list and returns the adapter's
// events; the caller must call leaveEvents afterwards. The empty list of
// most enqueues is answered inline, without a call.
func (q *Queue) useWaitList(op string, wait []*Event) ([]driver.Event, error) {
	if len(wait) == 0 {
		return nil, nil
	}
	return q.enterWaitList(op, wait)
}

func (q *Queue) enterWaitList(op string, wait []*Event) ([]driver.Event, error) {
	out := make([]driver.Event, len(wait))
	for i, e := range wait {
		err := e.enter(op)
		if err == nil {
			if err = q.sameAdapter(&e.object, "Event", ErrInvalidEventWaitList, op); err != nil {
				e.life.leave()
			}
		}
		if err != nil {
			leaveEvents(wait[:i])
			return nil, newError(ErrInvalidEventWaitList, op, q.adapter.name, "wait list entry %d: %v", i, err)
		}
		out[i] = e.drv
	}
	return out, nil
}

// leaveEvents ends the use of a wait list; inline for an empty one.
func leaveEvents(events []*Event) {
	if len(events) > 0 {
		leaveEach(events)
	}
}

func leaveEach(events []*Event) {
	for _, e := range events {
		e.life.leave()
	}
}

// finishEnqueue shapes an adapter's answer to an enqueue; the event keeps
// host, the memory a non-blocking transfer reads or writes, alive.
func (q *Queue) finishEnqueue(op string, drv driver.Event, err error, host []byte) (*Event, error) {
	if err != nil {
		return nil, q.ctx.wrap(err, op)
	}
	if drv == nil {
		return nil, nil
	}
	return newEvent(q, drv, host), nil
}

// transfer is one read or write between host memory and a buffer.
type transfer struct {
	op       string
	toDevice bool // a write: host to the buffer
	// blocking waits for the copy and returns no event; otherwise the
	// copy runs after wait and its event is returned.
	blocking bool
	m        *Mem
	offset   uint64
	host     []byte
	wait     []*Event
}

// transfer is the shared body of reads and writes.
func (q *Queue) transfer(t transfer) (*Event, error) {
	op := t.op
	if err := q.enter(op); err != nil {
		return nil, err
	}
	defer q.life.leave()
	if err := q.useBuffer(op, t.m); err != nil {
		return nil, err
	}
	defer t.m.life.leave()
	if err := t.m.checkRange(op, t.offset, uint64(len(t.host))); err != nil {
		return nil, err
	}
	dw, err := q.useWaitList(op, t.wait)
	if err != nil {
		return nil, err
	}
	defer leaveEvents(t.wait)
	var ev driver.Event
	wantEvent := !t.blocking
	if t.toDevice {
		ev, err = q.drv.WriteBuffer(t.m.drv, t.blocking, t.offset, t.host, dw, wantEvent)
	} else {
		ev, err = q.drv.ReadBuffer(t.m.drv, t.blocking, t.offset, t.host, dw, wantEvent)
	}
	host := t.host // kept alive by the event of a copy still running
	if t.blocking {
		host = nil
	}
	return q.finishEnqueue(op, ev, err, host)
}

// WriteBuffer copies src into the buffer at offset and waits for the copy.
func (q *Queue) WriteBuffer(m *Mem, offset uint64, src []byte) (rerr error) {
	const op = "Queue.WriteBuffer"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, m)
		tc.args.Uint("bytes", uint64(len(src)))
		defer tc.end(&rerr)
	}

	_, err := q.transfer(transfer{op: op, toDevice: true, blocking: true, m: m, offset: offset, host: src})
	return err
}

// ReadBuffer copies the buffer's bytes at offset into dst and waits for the
// copy.
func (q *Queue) ReadBuffer(m *Mem, offset uint64, dst []byte) (rerr error) {
	const op = "Queue.ReadBuffer"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, m)
		tc.args.Uint("bytes", uint64(len(dst)))
		defer tc.end(&rerr)
	}

	_, err := q.transfer(transfer{op: op, blocking: true, m: m, offset: offset, host: dst})
	return err
}

// EnqueueWrite starts copying src into the buffer after the wait list. src
// must not change until the returned event completes.
func (q *Queue) EnqueueWrite(m *Mem, offset uint64, src []byte, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueWrite"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, m)
		tc.args.Uint("bytes", uint64(len(src)))
		defer tc.endEventOf(q, &rh, &rerr)
	}

	return q.transfer(transfer{op: op, toDevice: true, m: m, offset: offset, host: src, wait: wait})
}

// EnqueueRead starts copying the buffer into dst after the wait list. dst
// holds the data once the returned event completes.
func (q *Queue) EnqueueRead(m *Mem, offset uint64, dst []byte, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueRead"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, m)
		tc.args.Uint("bytes", uint64(len(dst)))
		defer tc.endEventOf(q, &rh, &rerr)
	}

	return q.transfer(transfer{op: op, m: m, offset: offset, host: dst, wait: wait})
}

// EnqueueCopy copies size bytes between buffers of the queue's context.
func (q *Queue) EnqueueCopy(src, dst *Mem, srcOffset, dstOffset, size uint64, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueCopy"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, src, dst)
		tc.args.Uint("bytes", size)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	if err := q.enter(op); err != nil {
		return nil, err
	}
	defer q.life.leave()
	if err := q.useBuffer(op, src); err != nil {
		return nil, err
	}
	defer src.life.leave()
	if err := q.useBuffer(op, dst); err != nil {
		return nil, err
	}
	defer dst.life.leave()
	if err := src.checkRange(op, srcOffset, size); err != nil {
		return nil, err
	}
	if err := dst.checkRange(op, dstOffset, size); err != nil {
		return nil, err
	}
	if src == dst && srcOffset < dstOffset+size && dstOffset < srcOffset+size {
		return nil, newError(ErrOverlappingRegions, op, q.adapter.name, "source and destination ranges overlap")
	}
	dw, err := q.useWaitList(op, wait)
	if err != nil {
		return nil, err
	}
	defer leaveEvents(wait)
	ev, err := q.drv.CopyBuffer(src.drv, dst.drv, srcOffset, dstOffset, size, dw, true)
	return q.finishEnqueue(op, ev, err, nil)
}

// EnqueueFill repeats pattern over size bytes of the buffer from offset.
// The pattern is 1, 2, 4, ..., 128 bytes long and divides offset and size.
func (q *Queue) EnqueueFill(m *Mem, pattern []byte, offset, size uint64, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueFill"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, m)
		tc.args.Uint("bytes", size)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	if err := q.enter(op); err != nil {
		return nil, err
	}
	defer q.life.leave()
	if err := q.useBuffer(op, m); err != nil {
		return nil, err
	}
	defer m.life.leave()
	if err := checkPattern(op, q.adapter.name, pattern, offset, size); err != nil {
		return nil, err
	}
	if err := m.checkRange(op, offset, size); err != nil {
		return nil, err
	}
	dw, err := q.useWaitList(op, wait)
	if err != nil {
		return nil, err
	}
	defer leaveEvents(wait)
	ev, err := q.drv.FillBuffer(m.drv, pattern, offset, size, dw, true)
	return q.finishEnqueue(op, ev, err, nil)
}
