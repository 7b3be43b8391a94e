package cublas

// Args holds the integer and pointer arguments of one C call, in order;
// unused trailing slots are ignored by the callee. A C int takes a slot
// (the callee reads its low 32 bits), as does a long long or a pointer.
//
// As with internal/dl's calls, a pointer stored here as a uintptr is
// invisible to the garbage collector and to stack copying: it must point
// to device memory, or to host memory on the heap that a typed reference
// keeps alive until the call returns.
type Args [24]uintptr

// callCtx calls setCurrent(ctx) and, when that returns 0, fn(a...), both
// on one OS thread within one switch to the system stack, so that fn runs
// with ctx current and the goroutine needs no runtime.LockOSThread. It
// returns fn's result and 0, or 0 and setCurrent's non-zero result. With
// setCurrent 0 it calls fn alone.
func callCtx(setCurrent, ctx, fn uintptr, a *Args) (result, ctxResult uintptr) {
	return callCtxImpl(setCurrent, ctx, fn, a)
}
