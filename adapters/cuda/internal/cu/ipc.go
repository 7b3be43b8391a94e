package cu

import (
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

// IpcOpenMemHandle calls cuIpcOpenMemHandle (_v2 where exported), whose
// handle, a 64-byte struct, goes by value (dl.CallStruct64).
func (l *Lib) IpcOpenMemHandle(h [IPCHandleSize]byte, flags uint32) (DevicePtr, Result) {
	fn := lookupFirst(l.lib, "cuIpcOpenMemHandle_v2", "cuIpcOpenMemHandle")
	if fn == 0 {
		return 0, NotSupported
	}
	var ptr DevicePtr
	r, ok := dl.CallStruct64(fn, h, 1, uintptr(unsafe.Pointer(&ptr)), uintptr(flags))
	if !ok {
		return 0, NotSupported
	}
	return ptr, result(r)
}

// IpcCloseMemHandle calls cuIpcCloseMemHandle.
func (l *Lib) IpcCloseMemHandle(ptr DevicePtr) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(ptr)}
	r, _, _ := call(f, lookupFirst(l.lib, "cuIpcCloseMemHandle"))
	return r
}
