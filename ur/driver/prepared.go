package driver

import "strconv"

// LaunchPreparer is implemented by queues that can reduce a launch of one
// kernel over one index space to their cheapest form, checked once.
//
// The front end (ur.Queue.PrepareLaunch, and a Queue.Launch repeated over
// the same range) prepares a launch once and then calls
// PreparedLaunch.Launch for each launch, skipping its own checks and the
// adapter's Queue.Launch. How the adapter makes the launch — which C call,
// through which calling mechanism, what it keeps ready for it — stays
// inside the adapter, so an adapter outside this module implements the
// fast path just as the built-in ones do. Queues without LaunchPreparer
// are launched through Queue.Launch every time.
type LaunchPreparer interface {
	// PrepareLaunch checks a launch of k over r as Queue.Launch would,
	// with no wait list and no event, and returns it prepared. Its errors
	// are those Queue.Launch would return.
	PrepareLaunch(k Kernel, r NDRange) (PreparedLaunch, error)
}

// PreparedLaunch is a launch made cheap by the adapter; any goroutine may
// call Launch.
//
// Launch is the hot path: it should allocate nothing and report through
// its status alone, leaving the error to Queue.Launch, so that the common
// case costs the driver's call and little more. The front end keeps the
// queue and the kernel alive, and unreleased, while a PreparedLaunch may
// be launched; setting the kernel's arguments is ordered with launches by
// the caller, as for Queue.Launch, so Launch may read the kernel's state
// without locks.
type PreparedLaunch interface {
	// Launch enqueues the launch with the kernel's current arguments, no
	// wait list, no event.
	Launch() LaunchStatus
}

// LaunchStatus is what PreparedLaunch.Launch did. Whatever it reports
// other than Launched, it enqueued nothing, so the front end may try
// again another way.
type LaunchStatus int

const (
	// Launched: the launch is enqueued.
	Launched LaunchStatus = iota
	// LaunchStale: the kernel changed since the launch was prepared (for
	// example, resized local memory, or a new layout of its arguments):
	// nothing was enqueued, and the front end prepares the launch again.
	LaunchStale
	// LaunchFailed: nothing was enqueued; the front end launches through
	// Queue.Launch, which reports the error (or, where the driver wanted
	// state the prepared launch does not set, succeeds).
	LaunchFailed
)

// String names the status, for logs and test failures.
func (s LaunchStatus) String() string {
	switch s {
	case Launched:
		return "Launched"
	case LaunchStale:
		return "LaunchStale"
	case LaunchFailed:
		return "LaunchFailed"
	}
	return "LaunchStatus(" + strconv.Itoa(int(s)) + ")"
}
