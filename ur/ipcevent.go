package ur

import (
	"bytes"
	"context"
	"os"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// This file shares events between processes, the piece that goes with
// shared memory (ipc.go): a producer signals an event on its queue once
// its work on the shared memory is enqueued, and a consumer's queue waits
// for that event on the device, so the consumer enqueues its work at once
// instead of waiting on the host for a message that the data is ready.
// CUDA has it (cuIpcGetEventHandle, cuIpcOpenEventHandle on an event made
// with CU_EVENT_INTERPROCESS), as Level Zero (zeEventPoolGetIpcHandle,
// zeEventPoolOpenIpcHandle on a pool made with ZE_EVENT_POOL_FLAG_IPC);
// OpenCL gives ErrUnsupportedFeature.
//
// An IPCEvent is not the event of one command but a point its signals
// move: it is complete when the work before its latest signal is. The
// drivers differ on an event not signalled yet (complete on CUDA, not on
// Level Zero) and on a signal made while another process has yet to wait
// for the one before, so a program that runs on both follows one rule: a
// process waits only for a signal it was told of (the producer sends its
// message as soon as SignalIPCEvent returns, not once the work is done),
// and the producer signals again only once the consumers' waits for the
// previous signal have completed.

// IPCEventHandle is the handle of an IPCEvent for another process: bytes
// to send as they are. Its envelope is IPCMemHandle's under a magic of its
// own, so that either handle given where the other is expected is a typed
// error and never reaches the driver, whose memory and event handles are
// alike (64 bytes on CUDA).
type IPCEventHandle []byte

const ipcEventMagic = "gourEVT1"

// parseIPCEventHandle parses h. The size field holds the payload's
// length, so a handle cut short or run on is no handle.
func parseIPCEventHandle(h IPCEventHandle) (ipcHandle, bool) {
	p, ok := parseEnvelope(ipcEventMagic, h)
	return p, ok && p.size == uint64(len(p.payload))
}

// IPCEvent is an event that several processes share: one makes it
// (Context.NewIPCEvent) and sends its handle, the others open it
// (Context.OpenIPCEvent). Any of them may signal it on a queue of its
// device (Queue.SignalIPCEvent) and wait for it there (Queue.WaitIPCEvent)
// or on the host (Wait, Query). The process that made it must keep it
// until the others have released theirs, and the one that signalled last
// until the waits for that signal are done (CUDA's rule for imported
// events).
type IPCEvent struct {
	object
	ctx *Context
	dev *Device
	drv driver.IPCEvent
	// handle is the handle an opened event was opened from, which
	// Handle passes on: the event stays the maker's, and so does the
	// process its envelope names.
	handle IPCEventHandle
}

func (e *IPCEvent) traceObj() *object {
	if e == nil {
		return nil
	}
	return &e.object
}

func (e *IPCEvent) enter(op string) error {
	if e == nil {
		return nilHandle("IPCEvent", op)
	}
	return e.object.enter("IPCEvent", ErrInvalidEvent, op)
}

// enterIPCEvents enters the context for op and returns its IPC events, or
// the typed unsupported error; on nil error the caller must leave the
// context.
func (c *Context) enterIPCEvents(op string, dev *Device) (driver.IPCEventContext, error) {
	if err := c.enter(op); err != nil {
		return nil, err
	}
	ic, ok := c.drv.(driver.IPCEventContext)
	if !ok {
		c.life.leave()
		return nil, newError(ErrUnsupportedFeature, op, c.adapter.name, "the %s adapter cannot share events between processes", c.adapter.name)
	}
	if err := c.checkVMDevice(op, dev); err != nil {
		c.life.leave()
		return nil, err
	}
	return ic, nil
}

func (c *Context) newIPCEvent(dev *Device, drv driver.IPCEvent, handle IPCEventHandle) *IPCEvent {
	e := &IPCEvent{object: object{adapter: c.adapter}, ctx: c, dev: dev, drv: drv, handle: handle}
	e.created("IPCEvent")
	e.life.free = drv.Release
	return e
}

// NewIPCEvent makes an event on dev, one of the context's devices, that
// other processes can open (cuda.core's EventOptions(ipc_enabled=True)).
// It has not been signalled; it records no times.
func (c *Context) NewIPCEvent(dev *Device) (rh *IPCEvent, rerr error) {
	const op = "Context.NewIPCEvent"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c, dev)
		defer endNewOf(&tc, &rh, &rerr)
	}

	ic, err := c.enterIPCEvents(op, dev)
	if err != nil {
		return nil, err
	}
	defer c.life.leave()
	ev, err := ic.NewIPCEvent(dev.drv)
	if err != nil {
		return nil, wrapError(err, op, c.adapter.name)
	}
	return c.newIPCEvent(dev, ev, nil), nil
}

// OpenIPCEvent opens the event of a handle another process made, on dev,
// one of the context's devices (cuda.core's Event.from_ipc_descriptor).
// Release closes this process's view of it. Bytes that are no event
// handle (a memory handle among them), a handle of another adapter or of
// this very process (use the event itself) are ErrInvalidValue; one of a
// process that has exited ErrInvalidEvent, its event being gone.
func (c *Context) OpenIPCEvent(dev *Device, h IPCEventHandle) (rh *IPCEvent, rerr error) {
	const op = "Context.OpenIPCEvent"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c, dev)
		defer endNewOf(&tc, &rh, &rerr)
	}

	ic, err := c.enterIPCEvents(op, dev)
	if err != nil {
		return nil, err
	}
	defer c.life.leave()
	p, ok := parseIPCEventHandle(h)
	switch {
	case !ok:
		if _, mem := parseIPCHandle(IPCMemHandle(h)); mem {
			return nil, newError(ErrInvalidValue, op, c.adapter.name, "a memory handle (IPCMemHandle), not an event's: open it with OpenIPCMemHandle")
		}
		return nil, newError(ErrInvalidValue, op, c.adapter.name, "%d bytes that are no IPC event handle of gour", len(h))
	case p.adapter != c.adapter.name:
		return nil, newError(ErrInvalidValue, op, c.adapter.name, "a handle of the %s adapter", p.adapter)
	case p.pid == os.Getpid():
		return nil, newError(ErrInvalidValue, op, c.adapter.name, "a handle this process made: a process cannot open its own handles, use the event")
	case processGone(p.pid):
		return nil, newError(ErrInvalidEvent, op, c.adapter.name, "process %d, which made the handle, has exited: its event is gone", p.pid)
	}
	ev, err := ic.OpenIPCEvent(dev.drv, p.payload)
	if err != nil {
		return nil, wrapError(err, op, c.adapter.name)
	}
	return c.newIPCEvent(dev, ev, bytes.Clone(h)), nil
}

// Handle returns the event's handle for another process (cuda.core's
// get_ipc_descriptor). An opened event gives the handle it was opened
// from, so a process can pass the event on.
func (e *IPCEvent) Handle() (rv IPCEventHandle, rerr error) {
	const op = "IPCEvent.Handle"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, e)
		defer tc.end(&rerr)
	}

	if err := e.enter(op); err != nil {
		return nil, err
	}
	defer e.life.leave()
	if e.handle != nil {
		return bytes.Clone(e.handle), nil
	}
	payload, err := e.drv.Handle()
	if err != nil {
		return nil, wrapError(err, op, e.adapter.name)
	}
	if len(payload) == 0 {
		return nil, newError(ErrUnsupportedFeature, op, e.adapter.name, "the driver gave an empty handle")
	}
	return ipcEnvelope(ipcEventMagic, e.adapter.name, uint64(len(payload)), payload), nil
}

// SignalIPCEvent signals e on q: e completes once the work enqueued on q
// before has completed, this signal replacing any earlier one
// (cuEventRecord; on Level Zero a reset of the event, then a barrier that
// signals it). The signal is submitted when the call returns, so the
// process may tell the others at once. q must be a queue of e's device
// and context: ErrInvalidQueue or ErrInvalidContext otherwise.
func (q *Queue) SignalIPCEvent(e *IPCEvent) (rerr error) {
	const op = "Queue.SignalIPCEvent"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, e)
		defer tc.end(&rerr)
	}

	return q.ipcEvent(op, e, driver.IPCEvent.EnqueueSignal)
}

// WaitIPCEvent makes the work enqueued on q from now on wait until e's
// latest signal completes, on the device: the host goes on at once
// (cuStreamWaitEvent, zeCommandListAppendWaitOnEvents). Wait only for a
// signal made before, of which another process told this one: an event
// never signalled holds nothing back on CUDA and everything on Level
// Zero. q must be a queue of e's device and context.
func (q *Queue) WaitIPCEvent(e *IPCEvent) (rerr error) {
	const op = "Queue.WaitIPCEvent"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, e)
		defer tc.end(&rerr)
	}

	return q.ipcEvent(op, e, driver.IPCEvent.EnqueueWait)
}

func (q *Queue) ipcEvent(op string, e *IPCEvent, enqueue func(driver.IPCEvent, driver.Queue) error) error {
	if err := q.enter(op); err != nil {
		return err
	}
	defer q.life.leave()
	if err := e.enter(op); err != nil {
		return err
	}
	defer e.life.leave()
	if err := q.sameAdapter(&e.object, "IPCEvent", ErrInvalidContext, op); err != nil {
		return err
	}
	if e.ctx != q.ctx {
		return newError(ErrInvalidContext, op, q.adapter.name, "the IPC event belongs to another context")
	}
	if e.dev != q.device {
		return newError(ErrInvalidQueue, op, q.adapter.name, "the IPC event is on %s, the queue's device is %s", e.dev.Name(), q.device.Name())
	}
	return wrapError(enqueue(e.drv, q.drv), op, q.adapter.name)
}

// Wait blocks until the event's latest signal has completed or ctx is
// done; the same rule as WaitIPCEvent's holds for an event not signalled.
func (e *IPCEvent) Wait(ctx context.Context) (rerr error) {
	const op = "IPCEvent.Wait"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, e)
		defer tc.end(&rerr)
	}

	if err := e.enter(op); err != nil {
		return err
	}
	return e.waitEntered(ctx, op, e.drv)
}

// Query reports, without blocking, whether the event's latest signal has
// completed (cuEventQuery, zeEventQueryStatus).
func (e *IPCEvent) Query() (rv bool, rerr error) {
	const op = "IPCEvent.Query"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, e)
		defer tc.end(&rerr)
	}

	if err := e.enter(op); err != nil {
		return false, err
	}
	defer e.life.leave()
	done, err := e.drv.Query()
	return done, wrapError(err, op, e.adapter.name)
}

// Release releases the event: in the process that made it, the event
// itself, which the others must have released first; in one that opened
// it, this process's view of it.
func (e *IPCEvent) Release() error {
	if e == nil {
		return nilHandle("IPCEvent", "IPCEvent.Release")
	}
	return e.release("IPCEvent", ErrInvalidEvent)
}

// Opened reports whether the event was opened from another process's
// handle rather than made here.
func (e *IPCEvent) Opened() bool {
	if e.enter("IPCEvent.Opened") != nil {
		return false
	}
	defer e.life.leave()
	return e.handle != nil
}

// Device is the device the event is on; nil for a nil or released event.
func (e *IPCEvent) Device() *Device {
	if e.enter("IPCEvent.Device") != nil {
		return nil
	}
	defer e.life.leave()
	return e.dev
}

// Native returns the vendor's event (CUevent, ze_event_handle_t); 0 for a
// nil or released event.
func (e *IPCEvent) Native() uintptr {
	if e.enter("IPCEvent.Native") != nil {
		return 0
	}
	defer e.life.leave()
	return e.drv.Native()
}
