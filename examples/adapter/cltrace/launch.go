package cltrace

import (
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/gour-dev/gour/ur/driver"
)

var (
	cQueuePrepareLaunch = newCounter("Queue.PrepareLaunch")
	cPreparedLaunch     = newCounter("PreparedLaunch.Launch")
)

// loadEnqueueNDRangeKernel finds clEnqueueNDRangeKernel in the OpenCL ICD
// loader, the library the inner adapter opened too: the loader sends the
// call to the driver that made the queue. The library stays open for the
// life of the process, as the adapters' libraries do.
func loadEnqueueNDRangeKernel() (uintptr, error) {
	lib, err := purego.Dlopen("libOpenCL.so.1", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return 0, fmt.Errorf("cannot load libOpenCL.so.1: %w", err)
	}
	fn, err := purego.Dlsym(lib, "clEnqueueNDRangeKernel")
	if err != nil {
		return 0, fmt.Errorf("libOpenCL.so.1 has no clEnqueueNDRangeKernel: %w", err)
	}
	return fn, nil
}

// PrepareLaunch makes queue a driver.LaunchPreparer: a launch of k over r
// becomes one clEnqueueNDRangeKernel call, made by cltrace itself through
// purego on the native handles of the inner adapter's queue and kernel.
// The front end has checked r (dimensions, work-group sizes) against the
// device; what only the driver checks (arguments left unset) it reports
// when the launch is made: the prepared call fails, and the front end's
// Queue.Launch makes the error.
func (q *queue) PrepareLaunch(k driver.Kernel, r driver.NDRange) (driver.PreparedLaunch, error) {
	cQueuePrepareLaunch.add()
	w, ok := k.(*kernel)
	if !ok {
		return nil, foreign(driver.ResultInvalidKernel, k)
	}
	if r.Dims < 1 || r.Dims > 3 {
		return nil, driver.Errorf(driver.ResultInvalidWorkDimension, "%s: %d dimensions, want 1 to 3", Name, r.Dims)
	}
	p := &preparedLaunch{fn: q.a.enqueue}
	var offset, local uintptr // NULL: no offset, a work-group size the driver chooses
	for i := range r.Dims {
		p.global[i], p.local[i], p.offset[i] = uintptr(r.Global[i]), uintptr(r.Local[i]), uintptr(r.Offset[i])
		if r.Offset[i] != 0 {
			offset = uintptr(unsafe.Pointer(&p.offset[0]))
		}
	}
	if r.Local[0] != 0 {
		local = uintptr(unsafe.Pointer(&p.local[0]))
	}
	global := uintptr(unsafe.Pointer(&p.global[0]))
	// clEnqueueNDRangeKernel(queue, kernel, work_dim, global_work_offset,
	// global_work_size, local_work_size, num_events_in_wait_list = 0,
	// event_wait_list = NULL, event = NULL).
	p.args = [9]uintptr{q.inner.Native(), w.inner.Native(), uintptr(r.Dims), offset, global, local, 0, 0, 0}
	return p, nil
}

// preparedLaunch is one clEnqueueNDRangeKernel call with its arguments
// ready. The size arrays the call points to live in the struct: Go's heap
// does not move, and the prepared launch keeps them alive for as long as
// it can be launched. It never goes stale: the call names the kernel,
// whose arguments OpenCL keeps, so a resized local-memory argument is in
// the kernel by the next launch. Launch only reads the struct, so
// goroutines may share it; OpenCL makes enqueues thread-safe.
type preparedLaunch struct {
	fn                    uintptr
	args                  [9]uintptr
	offset, global, local [3]uintptr
}

// Launch makes the call through purego.SyscallN with the prepared
// arguments: no lookup, no allocation (the argument slice is the array's).
func (p *preparedLaunch) Launch() driver.LaunchStatus {
	cPreparedLaunch.add()
	status, _, _ := purego.SyscallN(p.fn, p.args[:]...)
	if int32(status) != 0 { // cl_int CL_SUCCESS
		return driver.LaunchFailed
	}
	return driver.Launched
}
