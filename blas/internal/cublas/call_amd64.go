//go:build linux && amd64

package cublas

import "unsafe"

// frame is what trampolineCtx reads (call_amd64.s relies on the layout):
// the function, where its arguments are, a slot for its result, and the
// function to call first with its argument and result. It lives on the
// caller's stack, which does not move while the goroutine is in the C
// call, and so may the arguments.
type frame struct {
	fn          uintptr
	args        *Args
	result      uintptr
	first       uintptr
	firstArg    uintptr
	firstResult uintptr
}

// trampolineCtxABI0 is the address of the assembly trampoline.
var trampolineCtxABI0 uintptr

// runtimeCgocall switches to the system stack with the scheduler's
// accounting for a call that may block (the runtime exports it for
// purego, which gour links) and runs fn(arg) with the C ABI.
//
//go:linkname runtimeCgocall runtime.cgocall
//go:noescape
func runtimeCgocall(fn uintptr, arg unsafe.Pointer) int32

func callCtxImpl(setCurrent, ctx, fn uintptr, a *Args) (uintptr, uintptr) {
	f := frame{fn: fn, args: a, first: setCurrent, firstArg: ctx}
	runtimeCgocall(trampolineCtxABI0, unsafe.Pointer(&f))
	return f.result, f.firstResult
}
