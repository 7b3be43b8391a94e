package cu

import (
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
// struct, goes by value (dl.CallStruct64).
func (l *Lib) IpcOpenEventHandle(h [IPCHandleSize]byte) (Event, Result) {
	fn := lookupFirst(l.lib, "cuIpcOpenEventHandle")
	if fn == 0 {
		return 0, NotSupported
	}
	var e Event
	r, ok := dl.CallStruct64(fn, h, 1, uintptr(unsafe.Pointer(&e)))
	if !ok {
		return 0, NotSupported
	}
	return e, result(r)
}
