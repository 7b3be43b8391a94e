package ur

import (
	"context"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// KernelAttrs are what the compiler made of a kernel on one device
// (Kernel.Attributes): registers, private and static work-group memory,
// the largest work-group, the preferred group-size multiple, sub-group
// sizes, and the largest dynamic work-group memory a launch may ask for.
type KernelAttrs = driver.KernelAttrs

// IsEmpty reports whether every command enqueued on the queue has
// completed (cuStreamQuery; urQueueGetInfo's UR_QUEUE_INFO_EMPTY). It
// never waits for the queue's work, so "false" may come for a queue that
// has just drained: OpenCL has no such query, and the adapter reads the
// status of a marker, which the driver retires on a thread of its own
// (PoCL within a few milliseconds on an idle machine, later on busy
// cores). Finish is how to wait for the queue.
func (q *Queue) IsEmpty() (rv bool, rerr error) {
	const op = "Queue.IsEmpty"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		defer tc.end(&rerr)
	}

	if err := q.enter(op); err != nil {
		return false, err
	}
	defer q.life.leave()
	qf, ok := q.drv.(driver.QueueFeatures)
	if !ok {
		return false, newError(ErrUnsupportedFeature, op, q.adapter.name, "the %s adapter's queues cannot say whether they are empty", q.adapter.name)
	}
	empty, err := qf.Empty()
	return empty, q.ctx.wrap(err, op)
}

// OnComplete calls fn once the event's command has completed (or failed,
// with the error), on a goroutine of its own: never on a driver's thread,
// so fn may block or call gour. The event stays valid for fn even if it is
// released first.
func (e *Event) OnComplete(fn func(status EventStatus, err error)) (rerr error) {
	const op = "Event.OnComplete"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, e)
		defer tc.end(&rerr)
	}

	if err := e.enter(op); err != nil {
		return err
	}
	if fn == nil {
		e.life.leave()
		return newError(ErrInvalidNullPointer, op, e.adapter.name, "the callback is nil")
	}
	if ec, ok := e.drv.(driver.EventCallbacks); ok {
		err := ec.OnComplete(func(st EventStatus, err error) {
			defer e.life.leave()
			fn(st, e.queue.ctx.wrap(err, op))
		})
		if err != nil {
			e.life.leave()
			return e.queue.ctx.wrap(err, op)
		}
		return nil
	}
	// Any adapter: a goroutine waits for the command.
	go func() {
		defer e.life.leave()
		err := e.drv.Wait(context.Background())
		st := EventComplete
		if err != nil {
			st, _ = e.drv.Status()
		}
		fn(st, e.queue.ctx.wrap(err, op))
	}()
	return nil
}

// kernelAttributes enters k and checks dev for an attribute query.
func (k *Kernel) kernelAttributes(op string, dev *Device) (driver.KernelAttributes, error) {
	if err := k.enter(op); err != nil {
		return nil, err
	}
	if dev == nil {
		k.life.leave()
		return nil, nilHandle("Device", op)
	}
	if !k.ctx.hasDevice(dev) {
		k.life.leave()
		return nil, newError(ErrInvalidDevice, op, k.adapter.name, "device %q is not in the context", dev.Name())
	}
	ka, ok := k.drv.(driver.KernelAttributes)
	if !ok {
		k.life.leave()
		return nil, newError(ErrUnsupportedFeature, op, k.adapter.name, "the %s adapter reports no kernel attributes", k.adapter.name)
	}
	return ka, nil
}

// Attributes reports what the compiler made of the kernel on dev.
func (k *Kernel) Attributes(dev *Device) (rv KernelAttrs, rerr error) {
	const op = "Kernel.Attributes"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, k)
		defer tc.end(&rerr)
	}

	ka, err := k.kernelAttributes(op, dev)
	if err != nil {
		return KernelAttrs{}, err
	}
	defer k.life.leave()
	a, err := ka.Attributes(dev.drv)
	return a, wrapError(err, op, k.adapter.name)
}

// SuggestLocalSize suggests a work-group size for launching the kernel
// over r on dev with dynamicLocalMem bytes of dynamic work-group memory
// (cuOccupancyMaxPotentialBlockSize, clGetKernelSuggestedLocalWorkSizeKHR,
// zeKernelSuggestGroupSize), one that divides r's global size: use it
// with r.WithLocal. A launch with no local size lets the driver choose,
// which for a global size with no good divisor (a prime) can be a group
// of one item; round the global size up to a multiple of a suggested
// size instead, and have the kernel skip the items past the end.
func (k *Kernel) SuggestLocalSize(dev *Device, r NDRange, dynamicLocalMem uint64) (rv [3]uint64, rerr error) {
	const op = "Kernel.SuggestLocalSize"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, k)
		defer tc.end(&rerr)
	}

	ka, err := k.kernelAttributes(op, dev)
	if err != nil {
		return [3]uint64{}, err
	}
	defer k.life.leave()
	if err := checkRange(op, k.adapter.name, &r); err != nil {
		return [3]uint64{}, err
	}
	local, err := ka.SuggestLocalSize(dev.drv, r, dynamicLocalMem)
	return local, wrapError(err, op, k.adapter.name)
}

// MaxCooperativeGroups is how many work-groups of local items a
// cooperative launch of the kernel (LaunchProperties.Cooperative) may
// have at most on dev.
func (k *Kernel) MaxCooperativeGroups(dev *Device, local [3]uint64, dynamicLocalMem uint64) (rv uint64, rerr error) {
	const op = "Kernel.MaxCooperativeGroups"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, k, dev)
		defer tc.end(&rerr)
	}

	ka, err := k.kernelAttributes(op, dev)
	if err != nil {
		return 0, err
	}
	defer k.life.leave()
	n, err := ka.MaxCooperativeGroups(dev.drv, local, dynamicLocalMem)
	return n, wrapError(err, op, k.adapter.name)
}

// Global returns the program's global variable name on dev (a CUDA
// __device__ variable, an OpenCL program-scope global where the driver
// exposes it, a SPIR-V module's global) as device USM that the queue's
// USM commands read and write (CopyToPtr, CopyFromPtr, EnqueueMemcpy).
// The handle keeps the program alive until freed; freeing it frees
// nothing else.
func (p *Program) Global(dev *Device, name string) (rh *USM, rerr error) {
	const op = "Program.Global"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, p, dev)
		tc.args.Str("name", name)
		defer endNewOf(&tc, &rh, &rerr)
	}

	if err := p.enter(op); err != nil {
		return nil, err
	}
	defer p.life.leave()
	if dev == nil {
		return nil, nilHandle("Device", op)
	}
	if !p.ctx.hasDevice(dev) {
		return nil, newError(ErrInvalidDevice, op, p.adapter.name, "device %q is not in the context", dev.Name())
	}
	gp, ok := p.drv.(driver.GlobalsProgram)
	if !ok {
		return nil, newError(ErrUnsupportedFeature, op, p.adapter.name, "the %s adapter cannot reach a program's global variables", p.adapter.name)
	}
	ptr, size, err := gp.Global(dev.drv, name)
	if err != nil {
		return nil, wrapError(err, op, p.adapter.name)
	}
	u := p.ctx.newUSM(USMDevice, dev, ptr, size, false)
	p.life.enter() // held by the global's handle
	inner := u.life.free
	u.life.free = func() error {
		defer p.life.leave()
		return inner()
	}
	return u, nil
}

// BeginCapture starts recording what is enqueued on the queue into a
// command buffer instead of running it (cuStreamBeginCapture), until
// EndCapture returns the buffer, finalized. Adapters without capture give
// ErrUnsupportedFeature: record with CommandBuffer's Append methods.
func (q *Queue) BeginCapture() (rerr error) {
	const op = "Queue.BeginCapture"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		defer tc.end(&rerr)
	}

	if err := q.enter(op); err != nil {
		return err
	}
	defer q.life.leave()
	cq, ok := q.drv.(driver.CaptureQueue)
	if !ok {
		return newError(ErrUnsupportedFeature, op, q.adapter.name, "the %s adapter's queues cannot capture: record into a CommandBuffer", q.adapter.name)
	}
	return q.ctx.wrap(cq.BeginCapture(), op)
}

// EndCapture ends the capture BeginCapture started and returns what was
// enqueued as a finalized command buffer, replayed with
// EnqueueCommandBuffer.
func (q *Queue) EndCapture() (rh *CommandBuffer, rerr error) {
	const op = "Queue.EndCapture"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		defer endNewOf(&tc, &rh, &rerr)
	}

	if err := q.enter(op); err != nil {
		return nil, err
	}
	defer q.life.leave()
	cq, ok := q.drv.(driver.CaptureQueue)
	if !ok {
		return nil, newError(ErrUnsupportedFeature, op, q.adapter.name, "the %s adapter's queues cannot capture", q.adapter.name)
	}
	drv, err := cq.EndCapture()
	if err != nil {
		return nil, q.ctx.wrap(err, op)
	}
	if err := drv.Finalize(); err != nil {
		drv.Release()
		return nil, q.ctx.wrap(err, op)
	}
	cb := &CommandBuffer{object: object{adapter: q.adapter}, ctx: q.ctx, dev: q.device, drv: drv, finalized: true}
	cb.created("CommandBuffer")
	cb.life.free = cb.free
	return cb, nil
}
