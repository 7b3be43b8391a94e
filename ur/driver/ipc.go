package driver

import "context"

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

// IPCEventContext is implemented by contexts whose events another
// process can open, so that a queue of one process waits for the device
// work of another without the host in between (cuIpcGetEventHandle and
// cuIpcOpenEventHandle on an event made with CU_EVENT_INTERPROCESS and
// CU_EVENT_DISABLE_TIMING; zeEventPoolGetIpcHandle and
// zeEventPoolOpenIpcHandle on a pool made with ZE_EVENT_POOL_FLAG_IPC).
// As with memory, the front end wraps the adapter's handle bytes with
// what it checks.
type IPCEventContext interface {
	// NewIPCEvent makes an event on dev that other processes can open.
	// It has not been signalled.
	NewIPCEvent(dev Device) (IPCEvent, error)
	// OpenIPCEvent opens, on dev, the event of a handle another process
	// made with IPCEvent.Handle. Either process may then signal it and
	// wait for it.
	OpenIPCEvent(dev Device, handle []byte) (IPCEvent, error)
}

// IPCEvent is an event shared between processes. It is not the event of
// one command: EnqueueSignal marks a point in a queue's work, and the
// event is complete when the work before its latest signal is.
//
// The drivers differ on an event not signalled yet: a CUDA event never
// recorded is complete, a Level Zero event is not. The front end's
// contract is therefore that a process waits only for a signal it knows
// was made (the producer tells it after EnqueueSignal returns), and that
// the producer signals again only once the consumers' waits for the
// previous signal are done.
type IPCEvent interface {
	// Handle returns the bytes OpenIPCEvent opens in another process.
	// The front end calls it only for events NewIPCEvent made.
	Handle() ([]byte, error)
	// EnqueueSignal makes the event complete once the work q was given
	// before has completed, replacing any earlier signal: cuEventRecord;
	// on Level Zero, whose events keep their state, a reset of the event
	// in q, then a barrier that signals it. The signal must be submitted
	// when the call returns, without a Flush or Finish of q: the process
	// that waits for it cannot ask for one. q is a queue of the event's
	// device.
	EnqueueSignal(q Queue) error
	// EnqueueWait makes the work q is given afterwards wait until the
	// event's latest signal completes (cuStreamWaitEvent,
	// zeCommandListAppendWaitOnEvents). q is a queue of the event's
	// device.
	EnqueueWait(q Queue) error
	// Wait blocks until the event is complete or ctx is done; an adapter
	// that cannot poll may ignore ctx.
	Wait(ctx context.Context) error
	// Query reports, without blocking, whether the event is complete.
	Query() (bool, error)
	// Release releases the event; for an opened one, only this process's
	// view of it (cuEventDestroy, zeEventDestroy and zeEventPoolCloseIpcHandle).
	Release() error
	// Native is the vendor's event (CUevent, ze_event_handle_t).
	Native() uintptr
}
