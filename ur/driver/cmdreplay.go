package driver

// Emulated command buffers. Where a context has no CommandBufferContext,
// or its native command buffers replay slower than the same launches one
// by one, the front end records the commands and replays them itself:
// each launch prepared once per queue, with the arguments recorded, and
// replayed as one call.

// CommandBufferAdvisor is implemented by CommandBufferContexts whose
// native command buffers replay slower, on some device, than the same
// launches one by one, as measured: the front end then emulates them
// there unless the user asks for native ones.
type CommandBufferAdvisor interface {
	// NativeCommandBufferSlower reports that dev's native command buffers
	// replay slower than the launches one by one.
	NativeCommandBufferSlower(dev Device) bool
}

// ReplayPreparer is implemented by queues that prepare a launch with its
// arguments for the replays of an emulated command buffer, where the
// prepared launch holds driver objects that must be released (OpenCL: a
// cl_kernel of its own with the arguments set). Queues without it are
// served by ArgLaunchPreparer, else by LaunchWithArgs.
type ReplayPreparer interface {
	// PrepareReplay checks a launch as PrepareArgLaunch does and returns
	// it prepared; the front end releases it when it no longer replays it.
	PrepareReplay(k Kernel, r NDRange, args []LaunchArg, props LaunchProperties) (ReplayLaunch, error)
}

// ReplayLaunch is a prepared launch of an emulated command buffer.
type ReplayLaunch interface {
	PreparedArgLaunch
	Release() error
}
