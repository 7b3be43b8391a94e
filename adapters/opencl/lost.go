package opencl

import (
	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

// OpenCL has no code for a lost device, and NVIDIA's driver reports a
// kernel that faulted (a write through a wild pointer, measured on an
// H100) with codes that each mean something else: clFinish gives
// CL_INVALID_COMMAND_QUEUE, the next copy CL_OUT_OF_RESOURCES, a new
// context -9999, which is no OpenCL code at all. The front end makes
// ErrDeviceLost sticky for the context once a call reports it (ur/lost.go);
// this file decides which failures of a queue's calls are taken for that
// first ErrDeviceLost:
//
//   - CL_INVALID_COMMAND_QUEUE from any call on a queue. The front end
//     passes only queues it holds and has not released, so the handle is
//     valid; the driver calling it invalid means the driver dropped it, as
//     NVIDIA's does after a fault.
//   - CL_OUT_OF_RESOURCES or -9999 from a call that waited for the queue
//     (clFinish, clWaitForEvents, a blocking read or write, a command's
//     negative execution status) in a context where a kernel was made.
//     NVIDIA gives both for a faulted kernel; at a wait, with no
//     allocation asked for, they have no other common cause. An enqueue's
//     CL_OUT_OF_RESOURCES is left alone: clEnqueueNDRangeKernel gives it
//     for a launch that needs more registers or local memory than a
//     work-group may have, an ordinary, recoverable error.
//
// The driver's own code stays in the error (Native, NativeName) and its
// message says why it was read as a lost device.

// nvidiaFault is the code NVIDIA's OpenCL returns at a wait after a
// kernel's illegal memory access, and at clCreateContext afterwards; it is
// in no OpenCL header.
const nvidiaFault cl.Status = -9999

// check is the error of the call fn on the live queue q that returned st,
// nil on success; waited says the call waited for the queue's commands.
// A failure that means a device fault, by the rules above, is
// ErrDeviceLost.
func (q *queue) check(fn string, st cl.Status, waited bool) error {
	if st == cl.Success {
		return nil
	}
	if why := faultReason(st, waited, q.ctx.madeKernels.Load()); why != "" {
		return &driver.Error{Result: driver.ResultDeviceLost, Native: int64(st), NativeName: st.Name(),
			Message: fn + " failed; taken for a lost device: " + why}
	}
	return statusError(fn, st)
}

// faultReason says why st, returned by a call on a live queue, means a
// device fault ("" when it does not): waited says the call waited for
// the queue, kernels that the context has made kernels.
func faultReason(st cl.Status, waited, kernels bool) string {
	switch {
	case st == cl.InvalidCommandQueue:
		return "the driver dropped a queue gour holds, as NVIDIA's does after a kernel faulted"
	case !waited || !kernels:
		return ""
	case st == cl.OutOfResources:
		return "a wait failed for resources after kernels ran, as NVIDIA's driver reports a faulted kernel"
	case st == nvidiaFault:
		return "NVIDIA's code for a kernel's illegal memory access"
	}
	return ""
}
