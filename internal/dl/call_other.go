//go:build !(linux && amd64)

package dl

import (
	"runtime"

	"github.com/ebitengine/purego"
)

func call(fn uintptr, args *Args) uintptr {
	r, _, _ := purego.SyscallN(fn, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9], args[10], args[11])
	return r
}

// callQuickIf is call: purego makes every call through runtime.cgocall.
func callQuickIf(_ bool, fn uintptr, args *Args) uintptr { return call(fn, args) }

// callLaunch makes l's call with call, for the same reason.
func callLaunch(l *Launch) uintptr {
	if l.Gen != nil && *l.Gen != l.Want {
		return LaunchStale
	}
	if int32(call(l.Fn, &l.Args)) != 0 {
		return LaunchFailed
	}
	return Launched
}

// callAfter pins the goroutine to its thread for the two calls, which
// purego makes separately.
func callAfter(first, firstArg, fn uintptr, args *Args) (uintptr, bool) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if r, _, _ := purego.SyscallN(first, firstArg); r != 0 {
		return r, false
	}
	return call(fn, args), true
}

func callWide(fn uintptr, args *WideArgs) uintptr {
	r, _, _ := purego.SyscallN(fn, args[:]...)
	return r
}

func callWideAfter(first, firstArg, fn uintptr, args *WideArgs) (uintptr, bool) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if r, _, _ := purego.SyscallN(first, firstArg); r != 0 {
		return r, false
	}
	return callWide(fn, args), true
}
