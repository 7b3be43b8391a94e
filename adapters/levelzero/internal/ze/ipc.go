package ze

import (
	"encoding/binary"
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

// MemOpenIpcHandle calls zeMemOpenIpcHandle. The handle, a 64-byte
// struct, is passed by value: on the stack, as the x86-64 C ABI passes a
// struct of more than 16 bytes, while the context, the device, the flags
// and the out pointer take the integer registers in order.
func (l *Lib) MemOpenIpcHandle(c Context, d Device, h [IPCHandleSize]byte) (uintptr, Result) {
	fn := l.sym("zeMemOpenIpcHandle")
	if fn == 0 {
		return 0, NotSupported
	}
	var w [IPCHandleSize / 8]uintptr
	for i := range w {
		w[i] = uintptr(binary.LittleEndian.Uint64(h[8*i:]))
	}
	var ptr uintptr
	r := dl.CallMany(fn, uintptr(c), uintptr(d), 0, uintptr(unsafe.Pointer(&ptr)), 0, 0,
		w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7])
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

// EventPoolOpenIpcHandle calls zeEventPoolOpenIpcHandle. The handle, a
// 64-byte struct, is passed by value on the stack, as MemOpenIpcHandle
// passes its own; the context and the out pointer take the first integer
// registers.
func (l *Lib) EventPoolOpenIpcHandle(c Context, h [IPCHandleSize]byte) (EventPool, Result) {
	fn := l.sym("zeEventPoolOpenIpcHandle")
	if fn == 0 {
		return 0, NotSupported
	}
	var w [IPCHandleSize / 8]uintptr
	for i := range w {
		w[i] = uintptr(binary.LittleEndian.Uint64(h[8*i:]))
	}
	var p EventPool
	r := dl.CallMany(fn, uintptr(c), uintptr(unsafe.Pointer(&p)), 0, 0, 0, 0,
		w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7])
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
