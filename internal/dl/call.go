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
