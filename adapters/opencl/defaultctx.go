package opencl

import (
	"sync"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

// A GPU's cl_context is a driver context on the device: on NVIDIA's
// OpenCL it is a CUDA context underneath, made in clCreateContext, which
// takes most of a new process's first NewDevice, and which reserves
// device memory for as long as it lives. So each GPU device (not a
// sub-device) gets one default context when the adapter opens, made for
// all GPUs at once and kept for the life of the process, as the CUDA
// adapter keeps each device's primary context; every ur context of that
// one device is a reference to it (clRetainContext), with its own queues,
// USM table and kernels' state around it. A CPU driver's context is
// cheap and stays one cl_context per ur context.

// defaultContext is a device's default cl_context, or 0 where the device
// has none (not a GPU, or clCreateContext failed when the adapter opened:
// then NewContext makes a context of its own and reports the error).
type defaultContext struct {
	handle cl.Context
}

// hasDefaultContext says which devices get a default context: GPUs
// (a variable for the tests, which give PoCL's CPU device one).
var hasDefaultContext = func(d *device) bool { return d.info.Type == driver.DeviceTypeGPU && d.parent == nil }

// makeDefaultContexts makes the default contexts of devs' GPUs, all at
// once, and returns when every one is made or has failed.
func makeDefaultContexts(devs []*device) {
	var wg sync.WaitGroup
	for _, d := range devs {
		if !hasDefaultContext(d) {
			continue
		}
		wg.Go(func() {
			if h, err := d.p.createContext([]cl.Device{d.handle}); err == nil {
				d.defaultCtx.handle = h
			}
		})
	}
	wg.Wait()
}

// contextRef returns a context of d alone for the caller to release: a
// new reference to its default context, or where it has none a context of
// its own.
func (d *device) contextRef() (cl.Context, error) {
	if h := d.defaultCtx.handle; h != 0 && d.p.a.lib.RetainContext(h) == cl.Success {
		return h, nil
	}
	return d.p.createContext([]cl.Device{d.handle})
}

// createContext makes a cl_context of devs, devices of p.
func (p *platform) createContext(devs []cl.Device) (cl.Context, error) {
	props := []uintptr{cl.ContextPlatform, uintptr(p.handle), 0}
	h, st := p.a.lib.CreateContext(props, devs)
	return h, check("clCreateContext", st)
}
