package opencl

import (
	"slices"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

// Emulated command buffers (driver.ReplayPreparer): each recorded launch
// of a buffer the front end replays itself is prepared once per queue as
// a cl_kernel of its own (a clone, as for launches with arguments) with
// the recorded arguments set, and replayed as the one
// clEnqueueNDRangeKernel call of a driver.NativeCall: no clSetKernelArg,
// no lock, no event per launch.

var _ driver.ReplayPreparer = (*queue)(nil)

// replayLaunch is one prepared launch of an emulated command buffer.
type replayLaunch struct {
	q     *queue
	k     *kernel
	h     cl.Kernel
	args  []driver.LaunchArg // the arguments set on h, for SetArg
	sizes *launchSizes
	call  driver.NativeCall
}

// PrepareReplay makes a kernel of the adapter's own with args set and
// returns its launch over r on q as one call.
func (q *queue) PrepareReplay(dk driver.Kernel, r driver.NDRange, args []driver.LaunchArg, props driver.LaunchProperties) (driver.ReplayLaunch, error) {
	if err := checkLaunchProps(&props); err != nil {
		return nil, err
	}
	k := dk.(*kernel)
	h, err := k.newArgKernel()
	if err != nil {
		return nil, err
	}
	l := &replayLaunch{q: q, k: k, h: h, args: slices.Clone(args), sizes: new(launchSizes)}
	if err := k.setArgs(h, l.args); err != nil {
		l.Release()
		return nil, err
	}
	offset, global, local := l.sizes.set(&r)
	fn, a := q.lib.EnqueueNDRangeKernelCall(q.handle, h, r.Dims, offset, global, local)
	l.call = driver.NativeCall{Fn: fn, Args: driver.NativeArgs(a), Keep: l.sizes}
	return l, nil
}

// Native is the launch's one C call; nil where the launch needs its
// kernel's guard (poclguard.go), which Launch takes.
func (l *replayLaunch) Native() *driver.NativeCall {
	if l.k.guard != nil {
		return nil
	}
	return &l.call
}

func (l *replayLaunch) Launch() driver.LaunchStatus {
	if l.k.guard == nil {
		return l.call.Launch()
	}
	l.k.guard.enter(l.q)
	s := l.call.Launch()
	st := cl.Success
	if s != driver.Launched {
		st = cl.InvalidOperation
	}
	l.k.guard.exit(l.q, st)
	return s
}

// SetArg sets the arguments again with argument i replaced (OpenCL names
// an argument by its index, which setArgs takes from its place in the
// slice).
func (l *replayLaunch) SetArg(i int, a driver.LaunchArg) error {
	if i < 0 || i >= len(l.args) {
		return driver.Errorf(driver.ResultInvalidKernelArgumentIndex, "argument %d of %d", i, len(l.args))
	}
	l.args[i] = a
	return l.k.setArgs(l.h, l.args)
}

func (l *replayLaunch) Value(int) []byte { return nil }

func (l *replayLaunch) Release() error {
	return check("clReleaseKernel", l.k.lib.ReleaseKernel(l.h))
}

// NativeCommandBufferSlower reports PoCL's command buffers as slower than
// the launches one by one, which they are as measured (urbench graph, a
// buffer of 1,000 small launches, docs/benchmarks.md): PoCL replays a
// cl_khr_command_buffer on the host command by command, at more than the
// cost of a launch, where the front end's emulation replays prepared
// launches at less than one.
func (c *cbContext) NativeCommandBufferSlower(dev driver.Device) bool {
	return dev.(*device).p.isPoCL()
}

var _ driver.CommandBufferAdvisor = (*cbContext)(nil)
