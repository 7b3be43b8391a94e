package levelzero

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

// eventPoolSize is the number of events of each event pool; a context
// creates another pool when all slots of its pools are taken.
const eventPoolSize = 64

// context is a Level Zero context over devices of one driver.
type context struct {
	p       *platform
	ze      *ze.Lib
	handle  ze.Context
	devices []*device
	owned   bool // the context handle is destroyed with the last hold (false: wrapped, another library's)

	mu        sync.Mutex
	queues    map[*queue]struct{}
	initLists map[*device]ze.CommandList // synchronous lists for buffer uploads
	// imageFormats caches SupportedImageFormats, which asks the driver of
	// every format.
	imageFormats map[formatsKey][]driver.ImageFormat

	// Event slots: plain events, and events with kernel timestamps for
	// profiling queues.
	plain, timed eventAllocator

	// refs counts the context handle and the objects made in it (queues,
	// buffers, programs, events): ur lets them outlive Context.Release, so
	// the Level Zero context is destroyed when the last of them goes.
	refs atomic.Int32
}

// NewContext creates a context over devices of one of the adapter's
// drivers.
func (a *adapter) NewContext(devs []driver.Device) (driver.Context, error) {
	p, ds, handles, err := contextDevices(devs)
	if err != nil {
		return nil, err
	}
	h, r := a.ze.ContextCreateEx(p.handle, handles)
	if err := check("zeContextCreateEx", r); err != nil {
		return nil, err
	}
	return a.newContext(p, h, ds, true), nil
}

// contextDevices checks that devs are of one driver and returns them.
func contextDevices(devs []driver.Device) (*platform, []*device, []ze.Device, error) {
	if len(devs) == 0 {
		return nil, nil, nil, driver.Errorf(driver.ResultInvalidValue, "no devices")
	}
	p := devs[0].(*device).p
	ds := make([]*device, len(devs))
	handles := make([]ze.Device, len(devs))
	for i, dd := range devs {
		d := dd.(*device)
		if d.p != p {
			return nil, nil, nil, driver.Errorf(driver.ResultInvalidDevice, "a Level Zero context holds devices of one driver; %q and %q are of different drivers", ds[0].info.Name, d.info.Name)
		}
		ds[i], handles[i] = d, d.handle
	}
	return p, ds, handles, nil
}

func (a *adapter) newContext(p *platform, h ze.Context, ds []*device, owned bool) *context {
	c := &context{p: p, ze: a.ze, handle: h, devices: ds, owned: owned, queues: map[*queue]struct{}{}, initLists: map[*device]ze.CommandList{}}
	c.plain = eventAllocator{c: c, flags: ze.EventPoolFlagHostVisible}
	c.timed = eventAllocator{c: c, flags: ze.EventPoolFlagHostVisible | ze.EventPoolFlagKernelTimestamp}
	c.refs.Store(1)
	return c
}

func (c *context) retain() { c.refs.Add(1) }

func (c *context) Native() uintptr { return uintptr(c.handle) }

// Release drops the handle's hold on the context; the context goes when
// the objects made in it are released too.
func (c *context) Release() error { return c.unref() }

// unref drops one hold; the last destroys what the context still owns,
// then the context.
func (c *context) unref() error {
	if c.refs.Add(-1) != 0 {
		return nil
	}
	c.mu.Lock()
	for d, l := range c.initLists {
		c.ze.CommandListDestroy(l)
		delete(c.initLists, d)
	}
	c.mu.Unlock()
	c.plain.destroy()
	c.timed.destroy()
	if !c.owned {
		return nil
	}
	return check("zeContextDestroy", c.ze.ContextDestroy(c.handle))
}

// quiesce waits until every queue of the context has finished its work,
// so that memory, kernels and modules can be freed: Level Zero requires
// that the device no longer uses them.
func (c *context) quiesce() error {
	c.mu.Lock()
	qs := make([]*queue, 0, len(c.queues))
	for q := range c.queues {
		qs = append(qs, q)
	}
	c.mu.Unlock()
	var first error
	for _, q := range qs {
		if err := q.Finish(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// initList returns the context's synchronous immediate command list on d,
// created on first use; commands appended to it are complete when the
// append returns. The caller holds c.mu.
func (c *context) initList(d *device) (ze.CommandList, error) {
	if l, ok := c.initLists[d]; ok {
		return l, nil
	}
	desc := &ze.CommandQueueDesc{Ordinal: d.computeOrdinal, Mode: ze.CommandQueueModeSynchronous}
	l, r := c.ze.CommandListCreateImmediate(c.handle, d.handle, desc)
	if err := check("zeCommandListCreateImmediate", r); err != nil {
		return 0, err
	}
	c.initLists[d] = l
	return l, nil
}

// mem is a buffer: a device allocation on the context's device, or a
// shared allocation when the context has several devices. A borrowed one
// (a sub-buffer, or a pointer another library allocated and keeps) frees
// nothing. An image (image.go) has no address: ptr is 0.
type mem struct {
	c        *context
	ptr      uintptr // kept in the struct: SetArgMem passes its address
	size     uint64
	borrowed bool
	image    *image
}

// argValue is what a kernel argument of the memory is: a buffer's device
// address, or an image's ze_image_handle_t.
func (m *mem) argValue() uintptr {
	if m.image != nil {
		return uintptr(m.image.handle)
	}
	return m.ptr
}

func (c *context) NewBuffer(_ driver.MemFlags, size uint64, host []byte) (driver.Mem, error) {
	var ptr uintptr
	var r ze.Result
	fn := "zeMemAllocDevice"
	if len(c.devices) == 1 {
		ptr, r = c.ze.MemAllocDevice(c.handle, c.devices[0].handle, uintptr(size), 0, 0)
	} else {
		fn = "zeMemAllocShared"
		ptr, r = c.ze.MemAllocShared(c.handle, 0, uintptr(size), 0)
	}
	if err := check(fn, r); err != nil {
		return nil, err
	}
	m := &mem{c: c, ptr: ptr, size: size}
	c.retain()
	if len(host) > 0 {
		c.mu.Lock()
		l, err := c.initList(c.devices[0])
		if err == nil {
			err = check("zeCommandListAppendMemoryCopy", c.ze.CommandListAppendCopyFromHost(l, ptr, unsafe.Pointer(&host[0]), uintptr(len(host)), 0, nil))
		}
		c.mu.Unlock()
		if err != nil {
			c.ze.MemFree(c.handle, ptr)
			c.unref()
			return nil, err
		}
	}
	return m, nil
}

// Release frees the allocation once the context's queues are idle.
func (m *mem) Release() error {
	var err error
	if m.image != nil {
		err = m.c.quiesce()
		if err2 := check("zeImageDestroy", m.c.ze.ImageDestroy(m.image.handle)); err == nil {
			err = err2
		}
	} else if !m.borrowed {
		err = m.c.quiesce()
		if err2 := check("zeMemFree", m.c.ze.MemFree(m.c.handle, m.ptr)); err == nil {
			err = err2
		}
	}
	if err2 := m.c.unref(); err == nil {
		err = err2
	}
	return err
}

func (m *mem) Size() uint64    { return m.size }
func (m *mem) Native() uintptr { return m.argValue() }

// eventAllocator hands out event slots from pools of one kind.
type eventAllocator struct {
	c     *context
	flags uint32

	mu    sync.Mutex
	pools []ze.EventPool
	free  []eventSlot
}

type eventSlot struct {
	pool  ze.EventPool
	index uint32
}

// get creates an event in a free slot, creating a pool when none is free.
// Events are signalled with host scope, so that the host sees the memory
// the command wrote once it sees the event, and invalidate device caches
// when a command waits on them.
func (a *eventAllocator) get() (ze.Event, eventSlot, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.free) == 0 {
		p, r := a.c.ze.EventPoolCreate(a.c.handle, a.flags, eventPoolSize, nil)
		if err := check("zeEventPoolCreate", r); err != nil {
			return 0, eventSlot{}, err
		}
		a.pools = append(a.pools, p)
		for i := eventPoolSize - 1; i >= 0; i-- {
			a.free = append(a.free, eventSlot{pool: p, index: uint32(i)})
		}
	}
	s := a.free[len(a.free)-1]
	e, r := a.c.ze.EventCreate(s.pool, s.index, ze.EventScopeFlagHost, ze.EventScopeFlagDevice)
	if err := check("zeEventCreate", r); err != nil {
		return 0, eventSlot{}, err
	}
	a.free = a.free[:len(a.free)-1]
	return e, s, nil
}

// put destroys an event and frees its slot. The event's command must be
// complete (or never have been appended).
func (a *eventAllocator) put(e ze.Event, s eventSlot) error {
	err := check("zeEventDestroy", a.c.ze.EventDestroy(e))
	a.mu.Lock()
	a.free = append(a.free, s)
	a.mu.Unlock()
	return err
}

func (a *eventAllocator) destroy() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range a.pools {
		a.c.ze.EventPoolDestroy(p)
	}
	a.pools, a.free = nil, nil
}
