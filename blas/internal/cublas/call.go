package cublas

import "github.com/gour-dev/gour/internal/dl"

// Args holds the integer and pointer arguments of one C call, in order;
// unused trailing slots are ignored by the callee. A C int takes a slot
// (the callee reads its low 32 bits), as does a long long or a pointer.
// cuBLAS's widest calls take 23 (cublasGemmStridedBatchedEx), hence
// internal/dl's wide calls.
//
// As with every internal/dl call, a pointer stored here as a uintptr is
// invisible to the garbage collector and to stack copying: it must point
// to device memory, or to host memory on the heap that a typed reference
// keeps alive until the call returns.
type Args = dl.WideArgs

// callCtx calls setCurrent(ctx) and, when that returns 0, fn(a...), both
// on one OS thread within one switch to the system stack
// (dl.CallWideAfter), so that fn runs with ctx current and the goroutine
// needs no runtime.LockOSThread. It returns fn's result and 0, or 0 and
// setCurrent's non-zero result.
func callCtx(setCurrent, ctx, fn uintptr, a *Args) (result, ctxResult uintptr) {
	r, ok := dl.CallWideAfter(setCurrent, ctx, fn, a)
	if !ok {
		return 0, r
	}
	return r, 0
}
