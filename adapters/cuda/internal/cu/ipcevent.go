package cu

import (
	"encoding/binary"
	"runtime"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// IpcGetEventHandle calls cuIpcGetEventHandle for e, an event made with
// EventInterprocess|EventDisableTiming. The CUipcEventHandle is 64 bytes,
// as CUipcMemHandle (IPCHandleSize).
func (l *Lib) IpcGetEventHandle(e Event) ([IPCHandleSize]byte, Result) {
	var h [IPCHandleSize]byte
	f := dl.NewFrame()
	f.Args = dl.Args{f.Ptr(0, unsafe.Pointer(&h)), uintptr(e)}
	r, _, _ := call(f, lookupFirst(l.lib, "cuIpcGetEventHandle"))
	return h, r
}

// IpcOpenEventHandle calls cuIpcOpenEventHandle: the event of a handle
// another process got, which behaves as an event of this one made with
// EventDisableTiming; EventDestroy closes it. The handle, a 64-byte
// struct, is passed by value: on x86-64 in memory, on the stack, after
// the event pointer in the first register (the other five integer
// registers stay unused); on arm64, where a struct of more than 16 bytes
// goes as a pointer to a copy, in the next register.
func (l *Lib) IpcOpenEventHandle(h [IPCHandleSize]byte) (Event, Result) {
	fn := lookupFirst(l.lib, "cuIpcOpenEventHandle")
	if fn == 0 {
		return 0, NotSupported
	}
	var e Event
	// Pointers are converted in the call's argument lists, where
	// CallMany keeps their targets alive and in place.
	switch runtime.GOARCH {
	case "amd64":
		var w [IPCHandleSize / 8]uintptr
		for i := range w {
			w[i] = uintptr(binary.LittleEndian.Uint64(h[8*i:]))
		}
		r := dl.CallMany(fn, uintptr(unsafe.Pointer(&e)), 0, 0, 0, 0, 0,
			w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7])
		return e, result(r)
	case "arm64":
		c := h // the callee may write its copy
		r := dl.CallMany(fn, uintptr(unsafe.Pointer(&e)), uintptr(unsafe.Pointer(&c)))
		return e, result(r)
	}
	return 0, NotSupported
}
