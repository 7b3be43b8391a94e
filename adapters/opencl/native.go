package opencl

import (
	"slices"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

// Wrapping native handles. OpenCL counts references, so ownership is one
// reference: a wrapper that owns the handle takes over the caller's
// reference, and one that does not takes a reference of its own
// (clRetain*) that its Release (clRelease*) gives back, leaving the
// caller's untouched either way.

// ContextFromNative wraps a cl_context made over devs (checked against
// CL_CONTEXT_DEVICES). Its USM mechanism is chosen as for a new context;
// SVM allocations made before the wrap are not in its record, so their
// pointer info is USMUnknown.
func (a *adapter) ContextFromNative(native uintptr, devs []driver.Device, owned bool) (driver.Context, error) {
	h := cl.Context(native)
	b, st := a.lib.ContextInfo(h, cl.ContextDevices)
	if err := check("clGetContextInfo(CL_CONTEXT_DEVICES)", st); err != nil {
		return nil, err
	}
	have := cl.Uintptrs(b)
	for _, d := range devs {
		if !slices.Contains(have, uintptr(d.(*device).handle)) {
			return nil, driver.Errorf(driver.ResultInvalidDevice, "device %q is not a device of the cl_context %#x", d.(*device).info.Name, native)
		}
	}
	if !owned {
		if err := check("clRetainContext", a.lib.RetainContext(h)); err != nil {
			return nil, err
		}
	}
	return a.newContext(h, devs).driverContext(), nil
}

// QueueFromNative wraps a cl_command_queue of this context on dev; one
// made out of order (CL_QUEUE_PROPERTIES) is treated as such.
func (c *context) QueueFromNative(native uintptr, dev driver.Device, owned bool) (driver.Queue, error) {
	h := cl.Queue(native)
	b, st := c.a.lib.QueueInfo(h, cl.QueueContext)
	if err := check("clGetCommandQueueInfo(CL_QUEUE_CONTEXT)", st); err != nil {
		return nil, err
	}
	if cl.Context(cl.Uintptr(b)) != c.handle {
		return nil, driver.Errorf(driver.ResultInvalidContext, "the cl_command_queue %#x belongs to another cl_context", native)
	}
	if b, st = c.a.lib.QueueInfo(h, cl.QueueDevice); st == cl.Success && cl.Device(cl.Uintptr(b)) != dev.(*device).handle {
		return nil, driver.Errorf(driver.ResultInvalidDevice, "the cl_command_queue %#x is not on device %q", native, dev.(*device).info.Name)
	}
	if !owned {
		if err := check("clRetainCommandQueue", c.a.lib.RetainCommandQueue(h)); err != nil {
			return nil, err
		}
	}
	ooo := false
	if b, st := c.a.lib.QueueInfo(h, cl.QueueProperties); st == cl.Success {
		ooo = cl.Uint64(b)&cl.QueueOutOfOrderExecModeEnable != 0
	}
	return c.track(&queue{ctx: c, lib: c.a.lib, handle: h, outOfOrder: ooo}), nil
}

// BufferFromNative wraps a cl_mem of this context of at least size bytes.
func (c *context) BufferFromNative(native uintptr, size uint64, owned bool) (driver.Mem, error) {
	h := cl.Mem(native)
	b, st := c.a.lib.MemInfo(h, cl.MemContext)
	if err := check("clGetMemObjectInfo(CL_MEM_CONTEXT)", st); err != nil {
		return nil, err
	}
	if cl.Context(cl.Uintptr(b)) != c.handle {
		return nil, driver.Errorf(driver.ResultInvalidContext, "the cl_mem %#x belongs to another cl_context", native)
	}
	b, st = c.a.lib.MemInfo(h, cl.MemSize)
	if err := check("clGetMemObjectInfo(CL_MEM_SIZE)", st); err != nil {
		return nil, err
	}
	if have := uint64(cl.Uintptr(b)); size > have {
		return nil, driver.Errorf(driver.ResultInvalidBufferSize, "%d bytes asked of a %d-byte cl_mem", size, have)
	}
	if !owned {
		if err := check("clRetainMemObject", c.a.lib.RetainMemObject(h)); err != nil {
			return nil, err
		}
	}
	return &mem{lib: c.a.lib, handle: h, size: size}, nil
}
