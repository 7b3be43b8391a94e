package cuda

import (
	ctxpkg "context"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// This file shares events between processes (driver.IPCEventContext)
// with cuIpcGetEventHandle and cuIpcOpenEventHandle. A CUDA event is a
// point in a stream's work that cuEventRecord moves, which is the
// IPCEvent's contract as it is: signalling records, waiting is
// cuStreamWaitEvent on the last record, and an event never recorded is
// complete.

var _ driver.IPCEventContext = (*context)(nil)

// ipcEvent is an event made with CU_EVENT_INTERPROCESS (which CUDA takes
// only with CU_EVENT_DISABLE_TIMING), or one opened from another
// process's handle.
type ipcEvent struct {
	dev    *device
	ev     cu.Event
	opened bool
}

func (c *context) NewIPCEvent(dev driver.Device) (driver.IPCEvent, error) {
	d := dev.(*device)
	if err := d.bind(); err != nil {
		return nil, err
	}
	defer unbind()
	ev, r := d.a.cu.EventCreate(cu.EventInterprocess | cu.EventDisableTiming)
	if err := check("cuEventCreate", r); err != nil {
		return nil, err
	}
	return &ipcEvent{dev: d, ev: ev}, nil
}

func (c *context) OpenIPCEvent(dev driver.Device, handle []byte) (driver.IPCEvent, error) {
	d := dev.(*device)
	if len(handle) != cu.IPCHandleSize {
		return nil, driver.Errorf(driver.ResultInvalidValue, "a CUDA IPC event handle has %d bytes, not %d", cu.IPCHandleSize, len(handle))
	}
	if err := d.bind(); err != nil {
		return nil, err
	}
	defer unbind()
	var h [cu.IPCHandleSize]byte
	copy(h[:], handle)
	ev, r := d.a.cu.IpcOpenEventHandle(h)
	if err := check("cuIpcOpenEventHandle", r); err != nil {
		return nil, err
	}
	return &ipcEvent{dev: d, ev: ev, opened: true}, nil
}

func (e *ipcEvent) Native() uintptr { return uintptr(e.ev) }

func (e *ipcEvent) Handle() ([]byte, error) {
	if e.opened { // the front end passes the handle it opened on instead
		return nil, driver.Errorf(driver.ResultInvalidValue, "an opened IPC event has no handle of its own")
	}
	if err := e.dev.bind(); err != nil {
		return nil, err
	}
	defer unbind()
	h, r := e.dev.a.cu.IpcGetEventHandle(e.ev)
	if err := check("cuIpcGetEventHandle", r); err != nil {
		return nil, err
	}
	return h[:], nil
}

// ipcQueue is q as this adapter's queue, refused while it captures: in a
// capture cuEventRecord and cuStreamWaitEvent become edges of the graph,
// not a signal another process sees or a wait for one.
func ipcQueue(dq driver.Queue) (*queue, error) {
	q := dq.(*queue)
	if q.capturing.Load() {
		return nil, driver.Errorf(driver.ResultInvalidOperation, "the queue is capturing a command buffer, which cannot signal or wait for an IPC event")
	}
	return q, nil
}

// EnqueueSignal records the event on the queue's stream. On an
// out-of-order queue the first stream first waits for the others
// (joinFirst), so the record follows the work of every stream.
func (e *ipcEvent) EnqueueSignal(dq driver.Queue) error {
	q, err := ipcQueue(dq)
	if err != nil {
		return err
	}
	if err := q.dev.bind(); err != nil {
		return err
	}
	defer unbind()
	s := q.stream
	if ss := q.ooo; ss != nil {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		s = ss.streams[0]
		if err := ss.joinFirst(q.cu); err != nil {
			return err
		}
	}
	q.quick.Spend()
	return check("cuEventRecord", q.cu.EventRecord(e.ev, s))
}

// EnqueueWait makes each of the queue's streams wait for the event's
// last record.
func (e *ipcEvent) EnqueueWait(dq driver.Queue) error {
	q, err := ipcQueue(dq)
	if err != nil {
		return err
	}
	if err := q.dev.bind(); err != nil {
		return err
	}
	defer unbind()
	streams := []cu.Stream{q.stream}
	if q.ooo != nil {
		streams = q.ooo.streams
	}
	for _, s := range streams {
		if r := q.cu.StreamWaitEvent(s, e.ev, 0); r != cu.Success {
			return cuError("cuStreamWaitEvent", r)
		}
	}
	return nil
}

// Wait blocks in cuEventSynchronize, which cannot be cancelled; the front
// end honours the context around it.
func (e *ipcEvent) Wait(ctxpkg.Context) error {
	if err := e.dev.bind(); err != nil {
		return err
	}
	defer unbind()
	return check("cuEventSynchronize", e.dev.a.cu.EventSynchronize(e.ev))
}

func (e *ipcEvent) Query() (bool, error) {
	if err := e.dev.bind(); err != nil {
		return false, err
	}
	defer unbind()
	switch r := e.dev.a.cu.EventQuery(e.ev); r {
	case cu.Success:
		return true, nil
	case cu.NotReady:
		return false, nil
	default:
		return false, cuError("cuEventQuery", r)
	}
}

// Release destroys the event; an opened one is only closed, the event
// staying its maker's.
func (e *ipcEvent) Release() error {
	if err := e.dev.bind(); err != nil {
		return err
	}
	defer unbind()
	return check("cuEventDestroy", e.dev.a.cu.EventDestroy(e.ev))
}
