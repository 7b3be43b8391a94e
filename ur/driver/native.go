package driver

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// NativeArgs are the integer and pointer arguments of a C call, in order;
// the unused ones are zero.
type NativeArgs [12]uintptr

// NativeCall is a PreparedLaunch that is one C call, Fn(Args...), whose
// 32-bit result is 0 on success: cuLaunchKernel, clEnqueueNDRangeKernel.
// An adapter whose launch is such a call returns one from PrepareLaunch
// and the front end makes the call itself, inline, rather than through
// the PreparedLaunch interface: the interface call and the adapter's frame
// cost more than the rest of the front end's work (docs/benchmarks.md,
// "The public prepared-launch contract, measured"). An
// adapter outside this module may return one too (Fn from dlsym), or
// implement PreparedLaunch itself.
//
// It is read-only once made, so any goroutine may launch it. A call that
// fails must enqueue nothing: the front end then launches through
// Queue.Launch, which makes the error.
type NativeCall struct {
	// Fn, Args, Gen, Want and Quick are laid out as dl.Launch is, which
	// Launch hands the call over as.
	Fn   uintptr
	Args NativeArgs
	// The call is current while *Gen == Want: the adapter bumps *Gen when
	// a change of the kernel (the layout of its arguments, its shared
	// memory) makes it stale. A nil Gen never goes stale. Like setting
	// arguments, that change is ordered with launches by the caller, so
	// Gen is a plain word.
	Gen  *uint64
	Want uint64
	// Quick, when not nil, decides call by call whether the call may skip
	// the Go scheduler's system-call accounting (QuickGate); nil makes
	// every call an ordinary one.
	Quick *QuickGate
	// Keep holds the memory Args points into (the kernel's argument
	// table, the sizes), so that it lives as long as the call.
	Keep any
}

// Launch makes the call; it allocates nothing. It inlines into the front
// end's hot path, which thus reaches the C call through one frame, dl's.
func (c *NativeCall) Launch() LaunchStatus {
	return LaunchStatus(dl.CallLaunch((*dl.Launch)(unsafe.Pointer(c))))
}
