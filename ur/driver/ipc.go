package driver

// IPCContext is implemented by contexts whose device memory another
// process can open (the Unified Runtime's urIPCGetMemHandleExp and
// urIPCOpenMemHandleExp: cuIpcGetMemHandle, zeMemGetIpcHandle). The
// front end wraps the adapter's bytes with what it checks (the process,
// the size), so adapters see only their own.
type IPCContext interface {
	// IPCGetMemHandle returns the handle of the allocation at ptr, a
	// device allocation of the context made with USMAlloc.
	IPCGetMemHandle(ptr uintptr) ([]byte, error)
	// IPCOpenMemHandle maps the memory of a handle another process made
	// into this context, on dev.
	IPCOpenMemHandle(dev Device, handle []byte) (uintptr, error)
	// IPCCloseMemHandle unmaps what IPCOpenMemHandle mapped.
	IPCCloseMemHandle(ptr uintptr) error
}
