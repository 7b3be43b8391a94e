package driver

import "github.com/gour-dev/gour/internal/dl"

// LaunchPreparer is implemented by queues that can reduce a launch of one
// kernel over one index space to a single C call (NativeLaunch), checked
// once instead of at every launch. The front end makes that call itself,
// so a prepared launch runs no adapter code unless it fails. Queues
// without it are launched through Queue.Launch.
type LaunchPreparer interface {
	// PrepareLaunch checks the launch as Launch would, with no wait list
	// and no event, and returns its native call.
	PrepareLaunch(k Kernel, r NDRange) (*NativeLaunch, error)
}

// NativeLaunch is a launch as one C call, Fn(Args...), whose 32-bit
// result is 0 on success: cuLaunchKernel, clEnqueueNDRangeKernel.
//
// It is read-only once made, so any goroutine may call it. A call that
// fails enqueues nothing, so the front end answers a failure by launching
// again through Queue.Launch, which makes the error (or, where the driver
// wanted state the call does not set, such as CUDA's current context,
// succeeds).
type NativeLaunch struct {
	// The record is current while *Gen == Want: the adapter bumps *Gen
	// when a change of the kernel (the layout of its arguments, its shared
	// memory) makes the call stale. A nil Gen never goes stale. Like
	// setting arguments, that change is ordered with launches by the
	// caller, so Gen is a plain word.
	Gen  *uint64
	Want uint64
	Fn   uintptr
	Args dl.Args
	// Keep holds the memory Args points into (the kernel's argument
	// table, the sizes), so that it lives as long as the record.
	Keep any
}

// Current reports whether the call still launches what it was made for.
func (n *NativeLaunch) Current() bool { return n.Gen == nil || *n.Gen == n.Want }

// Call makes the C call and reports whether it succeeded. (The front
// end's hot path makes the same call inline, without this frame.)
func (n *NativeLaunch) Call() bool { return int32(dl.Call(n.Fn, &n.Args)) == 0 }
