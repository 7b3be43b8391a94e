package dl

// Args holds the integer and pointer arguments of one C call, in order.
// Unused trailing slots are ignored by the callee.
//
// A pointer stored here as a uintptr is invisible to the garbage
// collector and to stack copying: it must point to memory that is on the
// heap and kept alive by a typed reference until Call returns.
type Args [12]uintptr

// Call calls the C function at fn with the System V calling convention
// and returns its integer result. Floating-point arguments are not
// supported: no driver entry point gour calls takes one by value.
func Call(fn uintptr, args *Args) uintptr { return call(fn, args) }

// CallAfter calls first(firstArg) and, when that returns 0, fn(args...),
// both on one OS thread within one switch to the system stack. It serves
// APIs with per-thread state, such as CUDA's current context: a goroutine
// cannot move to another thread between the two calls, so the caller needs
// no runtime.LockOSThread, and the pair costs one call's overhead. It
// returns fn's result, or first's non-zero result with ok false.
func CallAfter(first, firstArg, fn uintptr, args *Args) (result uintptr, ok bool) {
	return callAfter(first, firstArg, fn, args)
}

// CallQuick is Call for a C function that returns within microseconds and
// never waits: it switches to the system stack and back, as Call does, but
// skips the Go scheduler's system-call accounting (marking the goroutine
// and its processor as in a system call, so that the processor can be
// handed to another thread if the call blocks, and taking it back after).
// That accounting is most of what a Go-to-C call costs over a C-to-C one
// (BenchmarkCall, BenchmarkCallQuick; docs/benchmarks.md, "Kernel launch:
// gour vs OpenCL from C, on PoCL" and "The public prepared-launch
// contract, measured"), a measurable share of a cuLaunchKernel once the
// driver's work has left the caches cold.
//
// The price is the runtime's view of the goroutine: it stays running, so
// while the C function runs, a stop-the-world pause of the garbage
// collector waits for it to return. A call that blocks therefore stalls
// every goroutine for as long as it blocks. Use it only where the caller
// knows the call cannot wait (driver.QuickGate), and never for a function
// that calls back into Go. On other platforms it is Call.
func CallQuick(fn uintptr, args *Args) uintptr { return callQuickIf(true, fn, args) }

// CallQuickIf is CallQuick when quick is true, else Call: one frame for a
// hot path that decides call by call.
func CallQuickIf(quick bool, fn uintptr, args *Args) uintptr { return callQuickIf(quick, fn, args) }

// WideArgs holds the arguments of a C call that takes more than twelve,
// as some of cuBLAS's batched GEMMs do; it is a separate type so that
// Args, copied and cleared on every launch, stays small.
type WideArgs [24]uintptr

// CallWide is Call for a function of up to 24 integer arguments.
func CallWide(fn uintptr, args *WideArgs) uintptr { return callWide(fn, args) }

// CallWideAfter is CallAfter for a function of up to 24 integer
// arguments.
func CallWideAfter(first, firstArg, fn uintptr, args *WideArgs) (result uintptr, ok bool) {
	return callWideAfter(first, firstArg, fn, args)
}
