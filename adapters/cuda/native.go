package cuda

import (
	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// ContextFromNative wraps a CUcontext of one of devs's GPUs, found with
// cuCtxGetDevice while it is pushed.
//
// The device's primary context is what every context of the adapter
// already is: the wrapper is one of them, and with owned set it also
// takes over the reference its maker retained, released with it.
//
// Any other context of that GPU (cuCtxCreate's, or a green context's) is
// accepted without ownership: objects made from it bind it rather than
// the primary context, as the maker's own code would. gour lets queues,
// buffers and programs outlive their context, and cannot know when the
// last of them is gone, so it cannot destroy such a context: the maker
// keeps it alive until it has released everything gour made from it, and
// then destroys it. With owned set it is refused (UNSUPPORTED_FEATURE).
func (a *adapter) ContextFromNative(native uintptr, devs []driver.Device, owned bool) (driver.Context, error) {
	if len(devs) != 1 {
		return nil, driver.Errorf(driver.ResultUnsupportedFeature, "a CUDA context holds one device, not %d", len(devs))
	}
	d := devs[0].(*device)
	ctx := cu.Context(native)
	if native == 0 {
		return nil, driver.Errorf(driver.ResultInvalidValue, "a CUcontext of 0 is no context")
	}
	if ctx == d.ctx {
		return &context{dev: d, ownedPrimary: owned}, nil
	}
	ordinal, err := a.contextDevice(ctx)
	if err != nil {
		return nil, err
	}
	if ordinal != d.ordinal {
		return nil, driver.Errorf(driver.ResultInvalidDevice, "the CUcontext is on CUDA device %d, not on %s (device %d)", ordinal, d.info.Name, d.ordinal)
	}
	if owned {
		return nil, driver.Errorf(driver.ResultUnsupportedFeature, "gour can wrap a CUDA context other than the primary one only without ownership: its queues and buffers may outlive it, so the caller destroys it after releasing them")
	}
	return &context{dev: d.view(ctx)}, nil
}

// contextDevice is the device of ctx, asked with ctx pushed on the calling
// thread and popped again.
func (a *adapter) contextDevice(ctx cu.Context) (cu.Device, error) {
	lockThread()
	defer unbind()
	l := a.cu
	if r := l.CtxPushCurrent(ctx); r != cu.Success {
		return 0, cuError("cuCtxPushCurrent", r)
	}
	dev, r := l.CtxGetDevice()
	l.CtxPopCurrent()
	return dev, check("cuCtxGetDevice", r)
}

// view is a device that binds ctx, another context of d's GPU, and shares
// d's count of busy calls: quick launches are suspended across both.
func (d *device) view(ctx cu.Context) *device {
	return &device{
		ctx: ctx, maxBlock: d.maxBlock, maxGrid: d.maxGrid,
		a: d.a, ordinal: d.ordinal, info: d.info, arch: d.arch,
		base: d.busyBase(), managed: d.managed, prefetch: d.prefetch, pools: d.pools, concurrent: d.concurrent,
	}
}

// QueueFromNative wraps a CUstream of this context; with owned set,
// Release destroys it. The stream may hold commands of other code, so a
// wrapped queue never launches with quick calls, which need the adapter
// to count everything in the stream (driver.QuickGate).
func (c *context) QueueFromNative(native uintptr, dev driver.Device, owned bool) (driver.Queue, error) {
	d := c.own(dev)
	s := cu.Stream(native)
	if s == 0 || s == cu.StreamLegacy || s == cu.StreamPerThread {
		// The NULL stream synchronizes with the blocking streams of the
		// context; gour's queues promise not to.
		return nil, driver.Errorf(driver.ResultInvalidValue, "a queue wraps a created CUstream, not the default stream %#x", native)
	}
	if d.a.cu.HasStreamGetCtx() {
		if err := d.bind(); err != nil {
			return nil, err
		}
		sc, r := d.a.cu.StreamGetCtx(s)
		unbind()
		if err := check("cuStreamGetCtx", r); err != nil {
			return nil, err
		}
		if sc != d.ctx {
			return nil, driver.Errorf(driver.ResultInvalidContext, "the CUstream belongs to another CUDA context")
		}
	}
	return &queue{dev: d, cu: d.a.cu, stream: s, borrowed: !owned}, nil
}

// BufferFromNative wraps a CUdeviceptr of size bytes; with owned set,
// Release frees it with cuMemFree, so it must come from cuMemAlloc.
func (c *context) BufferFromNative(native uintptr, size uint64, owned bool) (driver.Mem, error) {
	if native == 0 {
		return nil, driver.Errorf(driver.ResultInvalidValue, "a device pointer of 0 is no buffer")
	}
	return &mem{dev: c.dev, ptr: cu.DevicePtr(native), size: size, borrowed: !owned}, nil
}
