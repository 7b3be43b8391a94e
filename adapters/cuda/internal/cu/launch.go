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

// LaunchKernelIn is LaunchKernel for a function of context ctx, from
// whatever OS thread the goroutine runs on: it calls cuLaunchKernel as it
// is and, only when the driver refuses, makes ctx current and launches
// again in the same C call (dl.CallAfter).
//
// A CUfunction belongs to its module's context, and the CUDA 13 driver
// (580) launches it there whatever context the thread has current, or none
// (TestLaunchAfterContextChangedBehindGour of the adapter checks it on the
// GPU), so the usual launch is one C call, as in a C program that set its
// context once. A driver that wants the context current fails the launch
// without enqueueing anything: the second call sets it, and leaves it set
// on that thread for the next launch (TestLaunchKernelInRelaunchesFakeC).
func (l *Lib) LaunchKernelIn(ctx Context, fn Function, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem uint32, s Stream, params, extra *unsafe.Pointer) Result {
	if l.launchKernel == 0 || l.ctxSetCurrent == 0 {
		return NotSupported
	}
	args := launchArgs(fn, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem, s, params, extra)
	r := result(dl.Call(l.launchKernel, &args))
	if r != Success {
		r = l.relaunchIn(ctx, &args)
	}
	runtime.KeepAlive(params)
	runtime.KeepAlive(extra)
	return r
}

// relaunchIn is LaunchKernelIn's second try, out of its way.
func (l *Lib) relaunchIn(ctx Context, args *dl.Args) Result {
	r, _ := dl.CallAfter(l.ctxSetCurrent, uintptr(ctx), l.launchKernel, args)
	return result(r)
}

// LaunchKernelCall returns cuLaunchKernel's address (0 if the driver lacks
// it) and the arguments of LaunchKernel(fn, ..., s, params, nil), for a
// caller that makes the same call many times itself (a prepared launch).
// params follows LaunchKernel's rules, and must outlive the arguments.
func (l *Lib) LaunchKernelCall(fn Function, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem uint32, s Stream, params *unsafe.Pointer) (uintptr, dl.Args) {
	return l.launchKernel, launchArgs(fn, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem, s, params, nil)
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

// StandInLaunch returns a Lib whose cuLaunchKernel and cuCtxSetCurrent
// are the C functions at launchKernel and ctxSetCurrent, for tests of
// callers' launch paths with libc standing in for the driver.
func StandInLaunch(launchKernel, ctxSetCurrent uintptr) *Lib {
	return &Lib{launchKernel: launchKernel, ctxSetCurrent: ctxSetCurrent}
}

// LaunchCallIn is LaunchKernelIn for the arguments LaunchKernelCall made.
func (l *Lib) LaunchCallIn(ctx Context, args *dl.Args) Result {
	if l.launchKernel == 0 || l.ctxSetCurrent == 0 {
		return NotSupported
	}
	r := result(dl.Call(l.launchKernel, args))
	if r != Success {
		r = l.relaunchIn(ctx, args)
	}
	return r
}
