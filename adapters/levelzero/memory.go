package levelzero

import (
	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

// This file is the adapter's side of the memory model beyond whole
// buffers (ur/driver/memory.go): USM allocations, sub-buffers and the
// native handles of other libraries. Level Zero core has no memory pools
// (the front end pools USMAlloc'd blocks), no call that page-locks memory
// it did not allocate, and no free-memory query (Sysman's needs its own
// initialization): the adapter implements none of those interfaces.

// The optional interfaces of the memory model the adapter implements.
var (
	_ driver.USMContext    = (*context)(nil)
	_ driver.NativeContext = (*context)(nil)
	_ driver.USMQueue      = (*queue)(nil)
	_ driver.MarkerQueue   = (*queue)(nil)
	_ driver.RectQueue     = (*queue)(nil)
	_ driver.PointerKernel = (*kernel)(nil)
	_ driver.SubBufferMem  = (*mem)(nil)
	_ driver.NativeWrapper = (*adapter)(nil)
)

// USMAlloc is zeMemAllocDevice, zeMemAllocHost or zeMemAllocShared (a
// shared allocation on dev). Each allocation holds the context, as
// buffers do, so that it may outlive Context.Release.
func (c *context) USMAlloc(kind driver.USMKind, dd driver.Device, size, alignment uint64) (uintptr, error) {
	var ptr uintptr
	var r ze.Result
	var fn string
	switch kind {
	case driver.USMDevice:
		fn = "zeMemAllocDevice"
		ptr, r = c.ze.MemAllocDevice(c.handle, dd.(*device).handle, uintptr(size), uintptr(alignment), 0)
	case driver.USMHost:
		fn = "zeMemAllocHost"
		ptr, r = c.ze.MemAllocHost(c.handle, uintptr(size), uintptr(alignment))
	case driver.USMShared:
		fn = "zeMemAllocShared"
		ptr, r = c.ze.MemAllocShared(c.handle, dd.(*device).handle, uintptr(size), uintptr(alignment))
	default:
		return 0, driver.Errorf(driver.ResultInvalidValue, "no USM kind %d", kind)
	}
	if err := check(fn, r); err != nil {
		return 0, err
	}
	c.retain()
	return ptr, nil
}

// USMFree waits for the context's queues before zeMemFree, as buffer
// release does: Level Zero requires that the device no longer uses memory
// it frees, and freeing memory a command still uses may hang the device.
func (c *context) USMFree(ptr uintptr) error {
	err := c.quiesce()
	if err2 := check("zeMemFree", c.ze.MemFree(c.handle, ptr)); err2 != nil {
		return err2
	}
	if err2 := c.unref(); err == nil {
		err = err2
	}
	return err
}

// USMPointerInfo is zeMemGetAllocProperties, which answers
// ZE_MEMORY_TYPE_UNKNOWN for memory the context did not allocate, then
// zeMemGetAddressRange for the allocation's extent.
func (c *context) USMPointerInfo(ptr uintptr) (driver.USMPointerInfo, error) {
	props, dev, r := c.ze.MemGetAllocProperties(c.handle, ptr)
	if err := check("zeMemGetAllocProperties", r); err != nil {
		return driver.USMPointerInfo{}, err
	}
	var info driver.USMPointerInfo
	switch props.Type {
	case ze.MemoryTypeDevice:
		info.Kind = driver.USMDevice
	case ze.MemoryTypeHost:
		info.Kind = driver.USMHost
	case ze.MemoryTypeShared:
		info.Kind = driver.USMShared
	default:
		return driver.USMPointerInfo{}, nil
	}
	if info.Kind != driver.USMHost && dev != 0 {
		for _, d := range c.p.devices {
			if d.(*device).handle == dev {
				info.Device = d
			}
		}
		for _, d := range c.devices { // sub-devices, which the platform does not list
			if d.handle == dev {
				info.Device = d
			}
		}
	}
	base, size, r := c.ze.MemGetAddressRange(c.handle, ptr)
	if err := check("zeMemGetAddressRange", r); err != nil {
		return driver.USMPointerInfo{}, err
	}
	info.Base, info.Size = base, uint64(size)
	return info, nil
}

// usmType is the kind of allocation ptr lies in, or MemoryTypeUnknown.
func (c *context) usmType(ptr uintptr) ze.MemoryType {
	props, _, r := c.ze.MemGetAllocProperties(c.handle, ptr)
	if r != ze.Success {
		return ze.MemoryTypeUnknown
	}
	return props.Type
}

// NewSubBuffer is pointer arithmetic: a Level Zero buffer is a device
// address. The view frees nothing; it holds the context, and the front end
// keeps its parent alive.
func (m *mem) NewSubBuffer(_ driver.MemFlags, offset, size uint64) (driver.Mem, error) {
	m.c.retain()
	return &mem{c: m.c, ptr: m.ptr + uintptr(offset), size: size, borrowed: true}, nil
}

// ContextFromNative wraps a ze_context_handle_t made over devs (which
// Level Zero cannot check). With owned set, zeContextDestroy runs when the
// wrapper and everything made in it are released; otherwise the maker
// destroys it after that.
func (a *adapter) ContextFromNative(native uintptr, devs []driver.Device, owned bool) (driver.Context, error) {
	if native == 0 {
		return nil, driver.Errorf(driver.ResultInvalidNullHandle, "a ze_context_handle_t of 0 is no context")
	}
	p, ds, _, err := contextDevices(devs)
	if err != nil {
		return nil, err
	}
	return a.newContext(p, ze.Context(native), ds, owned), nil
}

// QueueFromNative wraps an immediate ze_command_list_handle_t on dev; with
// owned set, Release destroys it. Level Zero 1.4 cannot tell how the list
// was created, so the adapter does not rely on it being in order: it
// appends a barrier between commands, as on drivers without
// ZE_COMMAND_QUEUE_FLAG_IN_ORDER.
func (c *context) QueueFromNative(native uintptr, dd driver.Device, owned bool) (driver.Queue, error) {
	if native == 0 {
		return nil, driver.Errorf(driver.ResultInvalidNullHandle, "a ze_command_list_handle_t of 0 is no queue")
	}
	q := &queue{c: c, dev: dd.(*device), ze: c.ze, list: ze.CommandList(native), borrowed: !owned}
	if err := c.addQueue(q); err != nil {
		return nil, err
	}
	return q, nil
}

// BufferFromNative wraps a device pointer of size bytes; with owned set,
// Release frees it with zeMemFree, so it must be an allocation of this
// context.
func (c *context) BufferFromNative(native uintptr, size uint64, owned bool) (driver.Mem, error) {
	if native == 0 {
		return nil, driver.Errorf(driver.ResultInvalidNullHandle, "a device pointer of 0 is no buffer")
	}
	c.retain()
	return &mem{c: c, ptr: native, size: size, borrowed: !owned}, nil
}
