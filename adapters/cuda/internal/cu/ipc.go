package cu

import (
	"encoding/binary"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// IPCHandleSize is the size of CUipcMemHandle and CUipcEventHandle.
const IPCHandleSize = 64

// IPCMemLazyEnablePeerAccess is CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS.
const IPCMemLazyEnablePeerAccess = 0x1

// IpcGetMemHandle calls cuIpcGetMemHandle for the allocation at ptr
// (made by cuMemAlloc).
func (l *Lib) IpcGetMemHandle(ptr DevicePtr) ([IPCHandleSize]byte, Result) {
	var h [IPCHandleSize]byte
	f := dl.NewFrame()
	f.Args = dl.Args{f.Ptr(0, unsafe.Pointer(&h)), uintptr(ptr)}
	r, _, _ := call(f, lookupFirst(l.lib, "cuIpcGetMemHandle"))
	return h, r
}

// IpcOpenMemHandle calls cuIpcOpenMemHandle (_v2 where exported). The
// handle, a 64-byte struct, is passed by value: in memory, on the stack,
// as the x86-64 C ABI passes a struct of more than 16 bytes, while the
// pointer and the flags take the first two integer registers.
func (l *Lib) IpcOpenMemHandle(h [IPCHandleSize]byte, flags uint32) (DevicePtr, Result) {
	fn := lookupFirst(l.lib, "cuIpcOpenMemHandle_v2", "cuIpcOpenMemHandle")
	if fn == 0 {
		return 0, NotSupported
	}
	var w [IPCHandleSize / 8]uintptr
	for i := range w {
		w[i] = uintptr(binary.LittleEndian.Uint64(h[8*i:]))
	}
	var ptr DevicePtr
	// The pointer is converted in the call's argument list, where
	// CallMany keeps its target alive and in place.
	r := dl.CallMany(fn, uintptr(unsafe.Pointer(&ptr)), uintptr(flags), 0, 0, 0, 0,
		w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7])
	return ptr, result(r)
}

// IpcCloseMemHandle calls cuIpcCloseMemHandle.
func (l *Lib) IpcCloseMemHandle(ptr DevicePtr) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(ptr)}
	r, _, _ := call(f, lookupFirst(l.lib, "cuIpcCloseMemHandle"))
	return r
}
