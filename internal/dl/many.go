package dl

import "github.com/ebitengine/purego"

// CallMany calls the C function at fn with more integer and pointer
// arguments than Args holds (clEnqueueCopyBufferRect takes 13), through
// purego's general call. It costs more than Call and may allocate: for
// cold paths only, where one call moves many bytes. Like syscall.Syscall
// it keeps the memory of pointers converted to uintptr in its argument
// list alive and in place for the call (go:uintptrescapes).
//
//go:uintptrescapes
func CallMany(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}

// NewCallback returns a C function pointer that calls fn, for drivers
// that call back (clSetEventCallback). purego has a fixed number of
// callbacks for the life of the process and never frees one: make one
// per kind of callback, once, and tell the calls apart by their user data.
// fn runs on the driver's thread; it must hand its work to a goroutine
// and return.
func NewCallback(fn any) uintptr { return purego.NewCallback(fn) }
