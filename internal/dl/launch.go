package dl

// Launch is a prepared launch, one C call, as CallLaunch makes it.
// driver.NativeCall, its public form, begins with the same fields in the
// same order and hands itself over as a *Launch (TestNativeCallLayout in
// ur/driver checks the layouts): that way the front end's hot path, with
// NativeCall.Launch inlined into it, reaches the C call through this one
// frame, as short a path as making the call inline.
type Launch struct {
	Fn   uintptr
	Args Args
	Gen  *uint64 // the launch is stale unless *Gen == Want; nil: never stale
	Want uint64
	Gate *QuickGate // nil: no quick calls
}

// CallLaunch's results, driver.LaunchStatus's values.
const (
	Launched     = 0
	LaunchStale  = 1
	LaunchFailed = 2
)

// CallLaunch makes l's call unless it is stale, quickly when its gate
// allows, and reports Launched, LaunchStale (no call made) or
// LaunchFailed (the call returned a 32-bit value other than 0).
func CallLaunch(l *Launch) uintptr { return callLaunch(l) }
