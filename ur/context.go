package ur

import (
	"slices"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// Context owns queues, buffers and programs for one or more devices of one
// platform.
type Context struct {
	object
	drv     driver.Context
	devices []*Device
	// lost is set by the first call of the context that returned
	// ErrDeviceLost (lost.go).
	lost lostState
}

// NewContext creates a context over devices, which must all belong to one
// platform.
func NewContext(devices ...*Device) (rh *Context, rerr error) {
	const op = "NewContext"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op)
		tc.args.Uint("devices", uint64(len(devices)))
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
		if d.lost.first.Load() != nil {
			return nil, d.deviceLostError(op)
		}
		if d.platform.drv != devices[0].platform.drv {
			return nil, newError(ErrInvalidDevice, op, d.Backend(),
				"device %d (%s) is not on the platform of device 0 (%s)", i, d.Name(), devices[0].Name())
		}
		if slices.IndexFunc(devices[:i], func(o *Device) bool { return o.drv == d.drv }) >= 0 {
			return nil, newError(ErrInvalidDevice, op, d.Backend(), "device %d (%s) is listed twice", i, d.Name())
		}
	}
	a := devices[0].platform.adapter
	drv, err := a.drv.NewContext(devicesOf(devices))
	if err != nil {
		return nil, lostDevices(wrapError(err, op, a.name), devices)
	}
	c := &Context{object: object{adapter: a}, drv: drv, devices: slices.Clone(devices)}
	c.created("Context")
	c.life.free = drv.Release
	return c, nil
}

// enter checks that the context is live and not lost (lost.go); on nil
// error the caller must call c.life.leave.
func (c *Context) enter(op string) error {
	if c == nil {
		return nilHandle("Context", op)
	}
	if err := c.object.enter("Context", ErrInvalidContext, op); err != nil {
		return err
	}
	if c.lost.first.Load() != nil {
		c.life.leave()
		return c.lostError(op)
	}
	return nil
}

// Release releases the context. Objects created in it stay valid until
// they are released themselves, as in OpenCL.
func (c *Context) Release() error {
	if c == nil {
		return nilHandle("Context", "Context.Release")
	}
	return c.release("Context", ErrInvalidContext)
}

// Devices returns the context's devices.
func (c *Context) Devices() []*Device {
	if c == nil {
		return nil
	}
	return slices.Clone(c.devices)
}

// Adapter returns the context's adapter.
func (c *Context) Adapter() *Adapter {
	if c == nil {
		return nil
	}
	return c.adapter
}

// Native returns the vendor handle (cl_context, CUcontext, ...); 0 for a
// nil or released context.
func (c *Context) Native() uintptr {
	if c == nil || c.object.enter("Context", ErrInvalidContext, "Context.Native") != nil {
		return 0
	}
	defer c.life.leave()
	return c.drv.Native()
}

// hasDevice reports whether d is one of the context's devices.
func (c *Context) hasDevice(d *Device) bool { return c.deviceIndex(d) >= 0 }

// deviceIndex is d's place among the context's devices, or -1.
func (c *Context) deviceIndex(d *Device) int {
	return slices.IndexFunc(c.devices, func(o *Device) bool { return o.drv == d.drv })
}

// checkDevices resolves an optional device list: empty means all of the
// context's devices; otherwise each must be in the context.
func (c *Context) checkDevices(op string, devs []*Device) ([]*Device, error) {
	if len(devs) == 0 {
		return c.devices, nil
	}
	for i, d := range devs {
		if d == nil {
			return nil, newError(ErrInvalidNullHandle, op, c.adapter.name, "device %d is nil", i)
		}
		if !c.hasDevice(d) {
			return nil, newError(ErrInvalidDevice, op, c.adapter.name, "device %q is not in the context", d.Name())
		}
	}
	return devs, nil
}
