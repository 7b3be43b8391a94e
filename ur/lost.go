package ur

import (
	"fmt"
	"sync/atomic"
)

// This file keeps the front end's record of lost contexts and devices.
//
// A kernel that faults on the device (a wild pointer, a trap, a watchdog
// timeout) leaves its context unusable on every driver gour runs on, and
// the drivers say so differently: CUDA answers every later call with the
// fault's own sticky code (CUDA_ERROR_ILLEGAL_ADDRESS), NVIDIA's OpenCL
// with a different code at each call (CL_INVALID_COMMAND_QUEUE at the
// Finish, CL_OUT_OF_RESOURCES at the next copy, -9999 at a new context),
// Level Zero with ZE_RESULT_ERROR_DEVICE_LOST. The adapters translate the
// codes that mean a fault into ErrDeviceLost; the front end, which is
// where gour validates, makes the loss sticky: the first ErrDeviceLost a
// call of a context returns marks the context and its devices lost, and
// from then on the context's calls (its own, its queues', programs' and
// events') are refused with ErrDeviceLost naming that first failure, and
// a failure an adapter reports for a lost context is reported as the loss.
// Release still releases, so a program can clean up.
//
// A lost device stays lost for the process: NewContext refuses it. Neither
// CUDA nor NVIDIA's OpenCL lets a process use a device again after a fault
// (docs/design.md, "Device faults"); the way back is a fresh process,
// which package supervise provides.

// lostState is the sticky loss of a context or device: nil while usable,
// else the first ErrDeviceLost seen.
type lostState struct {
	first atomic.Pointer[Error]
}

// mark records e as the loss unless one is recorded already; it reports
// whether e is now the recorded one.
func (s *lostState) mark(e *Error) bool { return s.first.CompareAndSwap(nil, e) }

// err is the recorded loss as an error, nil (an untyped nil, not a nil
// *Error) while there is none.
func (s *lostState) err() error {
	if e := s.first.Load(); e != nil {
		return e
	}
	return nil
}

// Lost reports whether the context was lost: nil while it is usable, else
// the error of the call that found it lost (errors.Is(err, ErrDeviceLost)
// holds). A context is lost when one of its calls returned ErrDeviceLost,
// most often a Finish or Event.Wait after a kernel faulted on the device;
// from then on its calls fail with ErrDeviceLost naming that first
// failure, and only Release is of use. Like every method, Lost of a nil
// or released context is an error, ErrInvalidNullHandle or
// ErrInvalidContext: test errors.Is(err, ErrDeviceLost) to tell a loss.
func (c *Context) Lost() error {
	const op = "Context.Lost"
	if c == nil {
		return nilHandle("Context", op)
	}
	if c.life.released() {
		return c.releasedError("Context", ErrInvalidContext, op)
	}
	return c.lost.err()
}

// Lost reports whether the device was lost: nil, or the first error with
// ErrDeviceLost of any context on the device (or on one of its
// sub-devices: a fault takes the whole device). NewContext refuses a lost
// device, since no driver gour runs on makes it usable again within the
// process; a server recovers by replacing the process (package supervise).
// Lost of a nil or released device is ErrInvalidNullHandle or
// ErrInvalidDevice, as for every method.
func (d *Device) Lost() error {
	const op = "Device.Lost"
	if d == nil {
		return nilHandle("Device", op)
	}
	if err := d.usable(op); err != nil {
		return err
	}
	return d.lost.err()
}

// wrap is wrapError for a failure of a call in c, then settle: the form
// of every adapter error of a call that reaches the device.
func (c *Context) wrap(err error, op string) error {
	if err == nil {
		return nil
	}
	return c.settle(wrapError(err, op, c.adapter.name))
}

// settle notes a failure of a call in c: an ErrDeviceLost marks c and its
// devices lost; any other failure an adapter reports once c is lost
// becomes ErrDeviceLost too, since after a fault the driver's code (NVIDIA
// OpenCL's CL_OUT_OF_RESOURCES for a copy, say) describes the fault's
// aftermath rather than the call. The driver's own code stays in the
// error. Errors that are not *Error (a context.Context's) pass unchanged.
func (c *Context) settle(err error) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	if e.Result == ErrDeviceLost {
		c.markLost(e)
		return e
	}
	if first := c.lost.first.Load(); first != nil {
		return &Error{Result: ErrDeviceLost, Op: e.Op, Adapter: e.Adapter, Native: e.Native, NativeName: e.NativeName,
			Message: fmt.Sprintf("%s, in a context lost at %s: %s", e.Message, first.Op, first.Message), Err: first}
	}
	return err
}

// markLost records e as c's loss and its devices', parents included.
func (c *Context) markLost(e *Error) {
	if c.lost.mark(e) {
		lostDevices(e, c.devices)
	}
}

// lostError is the refusal of op in the lost context c.
//
//go:noinline
func (c *Context) lostError(op string) error {
	first := c.lost.first.Load()
	return &Error{Result: ErrDeviceLost, Op: op, Adapter: c.adapter.name, Native: first.Native, NativeName: first.NativeName,
		Message: fmt.Sprintf("the context was lost at an earlier %s: %s", first.Op, first.Message), Err: first}
}

// deviceLostError is NewContext's refusal of the lost device d.
func (d *Device) deviceLostError(op string) error {
	first := d.lost.first.Load()
	return &Error{Result: ErrDeviceLost, Op: op, Adapter: d.adapter.name, Native: first.Native, NativeName: first.NativeName,
		Message: fmt.Sprintf("device %q was lost at an earlier %s: %s; gour does not use it again in this process", d.info.Name, first.Op, first.Message), Err: first}
}

// lostDevices marks devices lost when err, a failed NewContext's, is
// ErrDeviceLost, and returns err.
func lostDevices(err error, devices []*Device) error {
	if e, ok := err.(*Error); ok && e.Result == ErrDeviceLost {
		for _, d := range devices {
			for ; d != nil; d = d.parent {
				d.lost.mark(e)
			}
		}
	}
	return err
}
