package ze

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// IPCHandleSize is ZE_MAX_IPC_HANDLE_SIZE, the size of ze_ipc_mem_handle_t.
const IPCHandleSize = 64

// MemGetIpcHandle calls zeMemGetIpcHandle for the allocation at ptr.
func (l *Lib) MemGetIpcHandle(c Context, ptr uintptr) ([IPCHandleSize]byte, Result) {
	var h [IPCHandleSize]byte
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), ptr, f.Ptr(0, unsafe.Pointer(&h))}
	r, _ := call(f, l.sym("zeMemGetIpcHandle"))
	return h, r
}

// MemOpenIpcHandle calls zeMemOpenIpcHandle (flags 0), whose handle, a
// 64-byte struct, goes by value after the context and the device
// (dl.CallStruct64).
func (l *Lib) MemOpenIpcHandle(c Context, d Device, h [IPCHandleSize]byte) (uintptr, Result) {
	fn := l.sym("zeMemOpenIpcHandle")
	if fn == 0 {
		return 0, NotSupported
	}
	var ptr uintptr
	r, ok := dl.CallStruct64(fn, h, 2, uintptr(c), uintptr(d), 0, uintptr(unsafe.Pointer(&ptr)))
	if !ok {
		return 0, NotSupported
	}
	return ptr, result(r)
}

// MemCloseIpcHandle calls zeMemCloseIpcHandle.
func (l *Lib) MemCloseIpcHandle(c Context, ptr uintptr) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), ptr}
	r, _ := call(f, l.sym("zeMemCloseIpcHandle"))
	return r
}

// EventPoolGetIpcHandle calls zeEventPoolGetIpcHandle for a pool made
// with EventPoolFlagIPC.
func (l *Lib) EventPoolGetIpcHandle(p EventPool) ([IPCHandleSize]byte, Result) {
	var h [IPCHandleSize]byte
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(p), f.Ptr(0, unsafe.Pointer(&h))}
	r, _ := call(f, l.sym("zeEventPoolGetIpcHandle"))
	return h, r
}

// EventPoolOpenIpcHandle calls zeEventPoolOpenIpcHandle, whose handle, a
// 64-byte struct, goes by value after the context (dl.CallStruct64).
func (l *Lib) EventPoolOpenIpcHandle(c Context, h [IPCHandleSize]byte) (EventPool, Result) {
	fn := l.sym("zeEventPoolOpenIpcHandle")
	if fn == 0 {
		return 0, NotSupported
	}
	var p EventPool
	r, ok := dl.CallStruct64(fn, h, 1, uintptr(c), uintptr(unsafe.Pointer(&p)))
	if !ok {
		return 0, NotSupported
	}
	return p, result(r)
}

// EventPoolCloseIpcHandle calls zeEventPoolCloseIpcHandle on a pool
// EventPoolOpenIpcHandle opened.
func (l *Lib) EventPoolCloseIpcHandle(p EventPool) Result {
	return call1(l.sym("zeEventPoolCloseIpcHandle"), uintptr(p))
}

// CommandListAppendEventReset calls zeCommandListAppendEventReset: the
// event is not signalled once the commands before have run.
func (l *Lib) CommandListAppendEventReset(cl CommandList, e Event) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(cl), uintptr(e)}
	r, _ := call(f, l.sym("zeCommandListAppendEventReset"))
	return r
}
