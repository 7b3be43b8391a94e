package levelzero

import (
	ctxpkg "context"

	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

// This file shares events between processes (driver.IPCEventContext)
// with zeEventPoolGetIpcHandle and zeEventPoolOpenIpcHandle. Level Zero
// shares pools, not events: each IPC event is the one slot of a pool of
// its own made with ZE_EVENT_POOL_FLAG_IPC, and the other process opens
// the pool and creates the event of slot 0 in it. A Level Zero event
// keeps its state until reset, so a signal is a reset of the event
// appended to the queue, then a barrier that signals it.

var _ driver.IPCEventContext = (*context)(nil)

// ipcEvent is the event of an IPC pool this process made, or of one it
// opened from another process's handle.
type ipcEvent struct {
	c      *context
	pool   ze.EventPool
	ev     ze.Event
	opened bool
}

// ipcEventScopes: a signal flushes to the host, where the other process
// looks; a wait invalidates the device's caches.
const ipcSignalScope, ipcWaitScope = ze.EventScopeFlagHost, ze.EventScopeFlagDevice

func (c *context) NewIPCEvent(dev driver.Device) (driver.IPCEvent, error) {
	d := dev.(*device)
	p, r := c.ze.EventPoolCreate(c.handle, ze.EventPoolFlagIPC|ze.EventPoolFlagHostVisible, 1, []ze.Device{d.handle})
	if err := ipcCheck("zeEventPoolCreate", r); err != nil {
		return nil, err
	}
	return c.newIPCEvent(p, false)
}

func (c *context) OpenIPCEvent(dev driver.Device, handle []byte) (driver.IPCEvent, error) {
	if len(handle) != ze.IPCHandleSize {
		return nil, driver.Errorf(driver.ResultInvalidValue, "a Level Zero IPC event pool handle has %d bytes, not %d", ze.IPCHandleSize, len(handle))
	}
	var h [ze.IPCHandleSize]byte
	copy(h[:], handle)
	p, r := c.ze.EventPoolOpenIpcHandle(c.handle, h)
	if err := ipcCheck("zeEventPoolOpenIpcHandle", r); err != nil {
		return nil, err
	}
	return c.newIPCEvent(p, true)
}

// newIPCEvent creates the event of slot 0 of the pool, which it then
// owns; the event holds the context.
func (c *context) newIPCEvent(p ze.EventPool, opened bool) (*ipcEvent, error) {
	e := &ipcEvent{c: c, pool: p, opened: opened}
	ev, r := c.ze.EventCreate(p, 0, ipcSignalScope, ipcWaitScope)
	if r != ze.Success {
		e.closePool()
		return nil, zeError("zeEventCreate", r)
	}
	e.ev = ev
	c.retain()
	return e, nil
}

func (e *ipcEvent) closePool() error {
	if e.opened {
		return check("zeEventPoolCloseIpcHandle", e.c.ze.EventPoolCloseIpcHandle(e.pool))
	}
	return check("zeEventPoolDestroy", e.c.ze.EventPoolDestroy(e.pool))
}

func (e *ipcEvent) Native() uintptr { return uintptr(e.ev) }

func (e *ipcEvent) Handle() ([]byte, error) {
	if e.opened { // the front end passes the handle it opened on instead
		return nil, driver.Errorf(driver.ResultInvalidValue, "an opened IPC event has no handle of its own")
	}
	h, r := e.c.ze.EventPoolGetIpcHandle(e.pool)
	if err := ipcCheck("zeEventPoolGetIpcHandle", r); err != nil {
		return nil, err
	}
	return h[:], nil
}

// EnqueueSignal appends a reset of the event, then a barrier that
// signals it once everything before has run. Immediate lists submit as
// they append, so the signal is on its way when this returns.
func (e *ipcEvent) EnqueueSignal(dq driver.Queue) error {
	q := dq.(*queue)
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.order(); err != nil {
		return err
	}
	if err := check("zeCommandListAppendEventReset", q.ze.CommandListAppendEventReset(q.list, e.ev)); err != nil {
		return err
	}
	if err := check("zeCommandListAppendBarrier", q.ze.CommandListAppendBarrier(q.list, e.ev, nil)); err != nil {
		return err
	}
	q.appends++
	q.pending = false // the barrier orders what follows
	return nil
}

// EnqueueWait is zeCommandListAppendWaitOnEvents: the list's later
// commands start once the event is signalled.
func (e *ipcEvent) EnqueueWait(dq driver.Queue) error {
	q := dq.(*queue)
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.order(); err != nil {
		return err
	}
	if err := check("zeCommandListAppendWaitOnEvents", q.ze.CommandListAppendWaitOnEvents(q.list, []ze.Event{e.ev})); err != nil {
		return err
	}
	q.appends++
	q.pending = true
	return nil
}

// Wait blocks in zeEventHostSynchronize, as event.Wait.
func (e *ipcEvent) Wait(ctx ctxpkg.Context) error { return hostSynchronize(ctx, e.c.ze, e.ev) }

func (e *ipcEvent) Query() (bool, error) {
	switch r := e.c.ze.EventQueryStatus(e.ev); r {
	case ze.Success:
		return true, nil
	case ze.NotReady:
		return false, nil
	default:
		return false, zeError("zeEventQueryStatus", r)
	}
}

// Release waits for the context's queues (Level Zero requires that the
// device no longer uses an event it destroys), destroys the event and
// destroys the pool, or closes an opened one, the pool staying its
// maker's.
func (e *ipcEvent) Release() error {
	err := e.c.quiesce()
	if err2 := check("zeEventDestroy", e.c.ze.EventDestroy(e.ev)); err == nil {
		err = err2
	}
	if err2 := e.closePool(); err == nil {
		err = err2
	}
	if err2 := e.c.unref(); err == nil {
		err = err2
	}
	return err
}
