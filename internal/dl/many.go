package dl

import (
	"encoding/binary"
	"runtime"
	"slices"
	"unsafe"

	"github.com/ebitengine/purego"
)

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

// CallStruct64 calls the C function at fn with the integer and pointer
// arguments args and, as the argument after the first at of them, s: a
// 64-byte struct passed by value (CUDA's and Level Zero's IPC handles).
// The C ABIs pass such a struct differently: on amd64 in memory, on the
// stack after the six register arguments, the integer arguments keeping
// their registers in order (so at does not matter there); on arm64 as a
// pointer to a copy, in its place among the others. ok is false on
// another architecture, where nothing is called. It keeps pointers
// converted in its argument list alive, as CallMany does.
//
//go:uintptrescapes
func CallStruct64(fn uintptr, s [64]byte, at int, args ...uintptr) (r uintptr, ok bool) {
	switch runtime.GOARCH {
	case "amd64":
		if len(args) > 6 {
			return 0, false
		}
		all := make([]uintptr, 6, 6+8)
		copy(all, args)
		for i := range 8 {
			all = append(all, uintptr(binary.LittleEndian.Uint64(s[8*i:])))
		}
		return CallMany(fn, all...), true
	case "arm64":
		c := new([64]byte) // on the heap, which does not move; the callee may write its copy
		*c = s
		all := append(slices.Clone(args[:at]), uintptr(unsafe.Pointer(c)))
		all = append(all, args[at:]...)
		r = CallMany(fn, all...)
		runtime.KeepAlive(c)
		return r, true
	}
	return 0, false
}
