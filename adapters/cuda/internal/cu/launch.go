package cu

import (
	"runtime"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// LaunchKernel calls cuLaunchKernel: fn runs on a gridX×gridY×gridZ grid of
// blockX×blockY×blockZ blocks with sharedMem bytes of dynamic shared memory
// per block, in stream s.
//
// params points to an array with one pointer per kernel parameter, each to
// the parameter's value (CUDA's kernelParams); extra is CUDA's extra array
// (CU_LAUNCH_PARAM_*), usually nil. The driver copies the values before the
// call returns.
//
// Hot path: it allocates nothing and takes no pooled frame. params, the
// values it points to and extra must therefore be heap memory the caller
// keeps (for example arrays in a long-lived struct), never the address of
// a local variable, which a stack move could leave stale.
func (l *Lib) LaunchKernel(fn Function, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem uint32, s Stream, params, extra *unsafe.Pointer) Result {
	if l.launchKernel == 0 {
		return NotSupported
	}
	args := launchArgs(fn, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem, s, params, extra)
	r := dl.Call(l.launchKernel, &args)
	runtime.KeepAlive(params)
	runtime.KeepAlive(extra)
	return result(r)
}

// LaunchKernelIn is LaunchKernel with ctx made current first, in the same
// C call, so that it is right on whatever OS thread the goroutine runs.
// A failure to make ctx current is returned as that call's result.
//
// The context is set only when the thread's record (see dl.ThreadValue)
// says another one is current: most launches are one C call, as in a C
// program that set its context once. Code outside gour that changes the
// thread's context leaves the record stale; the launch then fails
// (CUDA_ERROR_INVALID_CONTEXT or _INVALID_HANDLE, having enqueued nothing)
// and is made again after setting the context.
func (l *Lib) LaunchKernelIn(ctx Context, fn Function, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem uint32, s Stream, params, extra *unsafe.Pointer) Result {
	if l.launchKernel == 0 {
		return NotSupported
	}
	args := launchArgs(fn, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem, s, params, extra)
	var r uintptr
	if l.current == nil {
		if l.ctxSetCurrent == 0 {
			return NotSupported
		}
		r, _ = dl.CallAfter(l.ctxSetCurrent, uintptr(ctx), l.launchKernel, &args)
	} else {
		var ok, trusted bool
		r, ok, trusted = l.current.CallWith(uintptr(ctx), l.launchKernel, &args, false)
		if ok && trusted && result(r) != Success {
			r, _, _ = l.current.CallWith(uintptr(ctx), l.launchKernel, &args, true)
		}
	}
	runtime.KeepAlive(params)
	runtime.KeepAlive(extra)
	return result(r)
}

// launchArgs is the argument list of cuLaunchKernel.
func launchArgs(fn Function, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem uint32, s Stream, params, extra *unsafe.Pointer) dl.Args {
	return dl.Args{
		uintptr(fn),
		uintptr(gridX), uintptr(gridY), uintptr(gridZ),
		uintptr(blockX), uintptr(blockY), uintptr(blockZ),
		uintptr(sharedMem),
		uintptr(s),
		uintptr(unsafe.Pointer(params)),
		uintptr(unsafe.Pointer(extra)),
	}
}
