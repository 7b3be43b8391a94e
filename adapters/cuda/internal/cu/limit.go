package cu

import "github.com/gour-dev/gour/internal/dl"

// Limit is a CUlimit, for CtxSetLimit and CtxGetLimit.
type Limit uint32

// Limits.
const (
	LimitStackSize      Limit = 0x00 // CU_LIMIT_STACK_SIZE
	LimitPrintfFIFOSize Limit = 0x01 // CU_LIMIT_PRINTF_FIFO_SIZE
	LimitMallocHeapSize Limit = 0x02 // CU_LIMIT_MALLOC_HEAP_SIZE
)

// CtxSetLimit calls cuCtxSetLimit on the current context. The entry point
// is looked up on each call, as it is seldom called.
func (l *Lib) CtxSetLimit(limit Limit, value uint64) Result {
	fn := lookupFirst(l.lib, "cuCtxSetLimit")
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(limit), uintptr(value)}
	r, _, _ := call(f, fn)
	return r
}

// CtxGetLimit calls cuCtxGetLimit on the current context.
func (l *Lib) CtxGetLimit(limit Limit) (uint64, Result) {
	fn := lookupFirst(l.lib, "cuCtxGetLimit")
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(limit)}
	r, out, _ := call(f, fn)
	return out[0], r
}
