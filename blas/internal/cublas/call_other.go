//go:build !(linux && amd64)

package cublas

import (
	"runtime"

	"github.com/ebitengine/purego"
)

// callCtxImpl pins the goroutine to its thread for the two calls, which
// purego makes separately.
func callCtxImpl(setCurrent, ctx, fn uintptr, a *Args) (uintptr, uintptr) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if setCurrent != 0 {
		if r, _, _ := purego.SyscallN(setCurrent, ctx); int32(r) != 0 {
			return 0, uintptr(uint32(r))
		}
	}
	r, _, _ := purego.SyscallN(fn, a[:]...)
	return r, 0
}
