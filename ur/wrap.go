package ur

import (
	"slices"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// This file wraps handles another library made (cuBLAS's stream, a
// CLBlast queue, a tensor library's device pointer), so that gour's
// commands run on them and theirs on gour's: every handle's Native gives
// the other direction. With owned set, gour releases the native handle
// with its wrapper; otherwise the other library keeps it, and must keep
// it alive while gour uses it.

// WrapContext makes a Context of a native context (cl_context,
// CUcontext, ze_context_handle_t) over devices, which must be the
// devices the native context was made for, of one platform.
func WrapContext(native uintptr, owned bool, devices ...*Device) (rh *Context, rerr error) {
	const op = "WrapContext"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op)
		defer endNewOf(&tc, &rh, &rerr)
	}

	if len(devices) == 0 {
		return nil, newError(ErrInvalidValue, op, "", "no devices given")
	}
	for i, d := range devices {
		if d == nil {
			return nil, newError(ErrInvalidNullHandle, op, "", "device %d is nil", i)
		}
		if err := d.usable(op); err != nil {
			return nil, err
		}
		if d.platform.drv != devices[0].platform.drv {
			return nil, newError(ErrInvalidDevice, op, d.Backend(), "device %d (%s) is not on the platform of device 0", i, d.Name())
		}
	}
	a := devices[0].platform.adapter
	if native == 0 {
		return nil, newError(ErrInvalidNullHandle, op, a.name, "native context is 0")
	}
	nw, ok := a.drv.(driver.NativeWrapper)
	if !ok {
		return nil, newError(ErrUnsupportedFeature, op, a.name, "the %s adapter wraps no native contexts", a.name)
	}
	drv, err := nw.ContextFromNative(native, devicesOf(devices), owned)
	if err != nil {
		return nil, wrapError(err, op, a.name)
	}
	c := &Context{object: object{adapter: a}, drv: drv, devices: slices.Clone(devices)}
	c.created("Context")
	c.life.free = drv.Release
	return c, nil
}

// nativeContext is the context's adapter side for wrapping, or
// ErrUnsupportedFeature.
func (c *Context) nativeContext(op string) (driver.NativeContext, error) {
	if nc, ok := c.drv.(driver.NativeContext); ok {
		return nc, nil
	}
	return nil, newError(ErrUnsupportedFeature, op, c.adapter.name, "the %s adapter wraps no native queues or buffers", c.adapter.name)
}

// WrapQueue makes a Queue of a native queue on dev (cl_command_queue,
// CUstream, an immediate ze_command_list_handle_t). gour treats it as in
// order, as its own queues are.
func (c *Context) WrapQueue(native uintptr, dev *Device, owned bool) (rh *Queue, rerr error) {
	const op = "Context.WrapQueue"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		defer endNewOf(&tc, &rh, &rerr)
	}

	if err := c.enter(op); err != nil {
		return nil, err
	}
	defer c.life.leave()
	nc, err := c.nativeContext(op)
	if err != nil {
		return nil, err
	}
	if dev == nil {
		return nil, nilHandle("Device", op)
	}
	if !c.hasDevice(dev) {
		return nil, newError(ErrInvalidDevice, op, c.adapter.name, "device %q is not in the context", dev.Name())
	}
	if native == 0 {
		return nil, newError(ErrInvalidNullHandle, op, c.adapter.name, "native queue is 0")
	}
	drv, err := nc.QueueFromNative(native, dev.drv, owned)
	if err != nil {
		return nil, wrapError(err, op, c.adapter.name)
	}
	return c.newQueue(dev, drv, QueueProperties{}), nil
}

// WrapBuffer makes a read-write Mem of a native buffer: a cl_mem, or on
// CUDA and Level Zero a device pointer to size bytes. size must not
// exceed the native buffer's.
func (c *Context) WrapBuffer(native uintptr, size uint64, owned bool) (rh *Mem, rerr error) {
	const op = "Context.WrapBuffer"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		defer endNewOf(&tc, &rh, &rerr)
	}

	if err := c.enter(op); err != nil {
		return nil, err
	}
	defer c.life.leave()
	nc, err := c.nativeContext(op)
	if err != nil {
		return nil, err
	}
	if native == 0 {
		return nil, newError(ErrInvalidNullHandle, op, c.adapter.name, "native buffer is 0")
	}
	if size == 0 {
		return nil, newError(ErrInvalidBufferSize, op, c.adapter.name, "buffer size is 0")
	}
	drv, err := nc.BufferFromNative(native, size, owned)
	if err != nil {
		return nil, wrapError(err, op, c.adapter.name)
	}
	m := &Mem{object: object{adapter: c.adapter}, ctx: c, drv: drv, size: size, flags: MemReadWrite}
	m.created("Mem")
	m.life.free = drv.Release
	return m, nil
}
