package dl

import (
	"sync"
	"unsafe"
)

// Frame is the argument block of one C call, with what must outlive the
// call: the targets of its pointer arguments and the slots C writes its
// outputs into. It lets a binding pass pointers and take outputs without
// a Go allocation per call.
//
// Frames come from a pool, so they are on the heap. A pointer argument is
// recorded with Ptr, which stores it in the frame as well as returning it
// for Args: that keeps its target alive during the call and makes it
// escape to the heap, so the uintptr in Args cannot go stale when a
// goroutine stack moves (Call's contract). A pointer to a local variable
// therefore moves that variable to the heap; to allocate nothing, pass
// pointers to memory that is on the heap already.
//
// Call (or Release, for a call not made) returns the frame to the pool;
// it must not be used afterwards.
type Frame struct {
	// Args are the call's arguments, in order.
	Args Args
	keep [8]unsafe.Pointer
	out  [4]uint64
	outp unsafe.Pointer
}

var frames = sync.Pool{New: func() any { return new(Frame) }}

// NewFrame returns a frame from the pool, with zero Args.
func NewFrame() *Frame { return frames.Get().(*Frame) }

// Ptr records pointer argument i (0 to 7, one index per pointer argument)
// and returns it as a uintptr for Args.
func (f *Frame) Ptr(i int, p unsafe.Pointer) uintptr {
	f.keep[i] = p
	return uintptr(p)
}

// Out clears output slot i (0 to 3) and returns its address, for an output
// parameter of up to 8 bytes (a handle, a size_t, an int). Consecutive
// slots form one larger output: a 16-byte output clears slots i and i+1
// and passes Out(i). Call returns the slots as C left them.
func (f *Frame) Out(i int) uintptr {
	f.out[i] = 0
	return uintptr(unsafe.Pointer(&f.out[i]))
}

// InOut is Out with slot i set to v before the call, for in/out
// parameters such as the element count of an enumeration.
func (f *Frame) InOut(i int, v uint64) uintptr {
	f.out[i] = v
	return uintptr(unsafe.Pointer(&f.out[i]))
}

// Slot returns the address of output slot i, for an input that C takes by
// pointer and reads during the call only (a small struct, up to the
// 8*(4-i) bytes of slots i to 3): the caller stores it there and passes
// uintptr(Slot(i)).
func (f *Frame) Slot(i int) unsafe.Pointer { return unsafe.Pointer(&f.out[i]) }

// OutPtr clears the pointer output slot and returns its address, for an
// output parameter of pointer type (const char **, void **) that C sets to
// memory it owns. Call returns what C stored there.
func (f *Frame) OutPtr() uintptr {
	f.outp = nil
	return uintptr(unsafe.Pointer(&f.outp))
}

// Call calls fn with Args (see [Call]), then returns the frame to the pool.
// It returns fn's result and the output slots as they were after the call.
func (f *Frame) Call(fn uintptr) (r uintptr, out [4]uint64, outp unsafe.Pointer) {
	r = call(fn, &f.Args)
	out, outp = f.out, f.outp
	f.Release()
	return r, out, outp
}

// Release returns the frame to the pool without a call, for a binding
// that finds it has nothing to call (an optional entry point is missing).
// It drops the recorded pointers, so a pooled frame keeps nothing alive.
func (f *Frame) Release() {
	f.Args = Args{}
	f.keep = [len(f.keep)]unsafe.Pointer{}
	f.outp = nil
	frames.Put(f)
}
