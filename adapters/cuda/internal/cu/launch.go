package cu

import (
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
// Hot path: it allocates nothing when params, the values it points to and
// extra are heap memory the caller keeps, for example arrays in a
// long-lived struct. Nothing here takes the address of a local variable.
func (l *Lib) LaunchKernel(fn Function, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem uint32, s Stream, params, extra *unsafe.Pointer) Result {
	f := launchFrame(fn, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem, s, params, extra)
	r, _, _ := call(f, l.launchKernel)
	return r
}

// LaunchKernelIn is LaunchKernel with ctx made current first, in the same
// C call, so that it is right on whatever OS thread the goroutine runs.
// A failure to make ctx current is returned as that call's result.
func (l *Lib) LaunchKernelIn(ctx Context, fn Function, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem uint32, s Stream, params, extra *unsafe.Pointer) Result {
	f := launchFrame(fn, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem, s, params, extra)
	return callIn(f, l.ctxSetCurrent, ctx, l.launchKernel)
}

// launchFrame is the argument block of cuLaunchKernel.
func launchFrame(fn Function, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem uint32, s Stream, params, extra *unsafe.Pointer) *dl.Frame {
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(fn),
		uintptr(gridX), uintptr(gridY), uintptr(gridZ),
		uintptr(blockX), uintptr(blockY), uintptr(blockZ),
		uintptr(sharedMem),
		uintptr(s),
		f.Ptr(0, unsafe.Pointer(params)),
		f.Ptr(1, unsafe.Pointer(extra)),
	}
	return f
}
