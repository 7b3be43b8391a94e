package driver

import "strings"

// This file holds the memory model beyond whole buffers: unified shared
// memory (USM) allocations addressed by pointer, stream-ordered pools,
// registered host memory, sub-buffers, rectangular copies and wrapping
// handles another library made. Each part is an optional interface: the
// front end asks for it with a type assertion and answers ErrUnsupported,
// naming what the adapter lacks, where an adapter does not implement it.
// The front end validates every argument (allocation bounds, freed
// pointers, contexts) before an adapter sees it, so adapters only
// translate.

// USMKind says where a unified shared memory allocation lives.
type USMKind uint8

// USM kinds, as the Unified Runtime's ur_usm_type_t.
const (
	// USMUnknown: not memory the driver allocated (ordinary host memory,
	// or a pointer it does not know).
	USMUnknown USMKind = iota
	// USMDevice: device memory; the host cannot touch it.
	USMDevice
	// USMHost: host memory the device reads over the bus; page-locked,
	// so copies from it are asynchronous.
	USMHost
	// USMShared: migrates between host and device on use.
	USMShared
)

// String names the kind: "device", "host", "shared" or "unknown".
func (k USMKind) String() string {
	switch k {
	case USMDevice:
		return "device"
	case USMHost:
		return "host"
	case USMShared:
		return "shared"
	}
	return "unknown"
}

// USMSupport says which USM kinds a device has and how the adapter
// provides them.
type USMSupport struct {
	Device bool `json:"device"`
	Host   bool `json:"host"`
	Shared bool `json:"shared"`
	// Via names the mechanism: "cuda", "level_zero",
	// "cl_intel_unified_shared_memory", "svm" (OpenCL 2.0 shared virtual
	// memory), or "" where the device has none.
	Via string `json:"via,omitempty"`
	// Missing says, for an adapter without some kind, what the driver
	// lacks, for the UNSUPPORTED error.
	Missing string `json:"missing,omitempty"`
}

// String lists the kinds and the mechanism: "device host shared (via
// cuda)", or "none (...what is missing)".
func (u USMSupport) String() string {
	var kinds []string
	for _, k := range []struct {
		has  bool
		name string
	}{{u.Device, "device"}, {u.Host, "host"}, {u.Shared, "shared"}} {
		if k.has {
			kinds = append(kinds, k.name)
		}
	}
	s := "none"
	if len(kinds) > 0 {
		s = strings.Join(kinds, " ") + " (via " + u.Via + ")"
	}
	if u.Missing != "" {
		s += "; missing: " + u.Missing
	}
	return s
}

// USMContext is implemented by contexts that allocate USM.
type USMContext interface {
	// USMAlloc allocates size bytes of kind, aligned to alignment (a power
	// of two; 0 for the driver's default), on dev (nil for USMHost).
	USMAlloc(kind USMKind, dev Device, size, alignment uint64) (uintptr, error)
	// USMFree frees an allocation USMAlloc returned, once the commands
	// still using it are done: a driver whose free does not wait (OpenCL's
	// SVM) waits for the context's queues first, so that no command writes
	// into memory the driver has handed back.
	USMFree(ptr uintptr) error
	// USMPointerInfo describes the allocation ptr lies in, as the driver
	// knows it: Kind is USMUnknown for memory the driver did not allocate.
	USMPointerInfo(ptr uintptr) (USMPointerInfo, error)
}

// USMPointerInfo describes the allocation a pointer lies in.
type USMPointerInfo struct {
	Kind   USMKind
	Device Device // nil for host allocations
	Base   uintptr
	Size   uint64
}

// USMAdvice is a hint about how a shared allocation will be used.
type USMAdvice uint8

// Advice, as the Unified Runtime's ur_usm_advice_flags_t and CUDA's
// CUmem_advise.
const (
	AdviseReadMostly USMAdvice = iota + 1
	AdviseClearReadMostly
	AdvisePreferDevice // preferred location: the queue's device
	AdvisePreferHost
	AdviseAccessedByDevice // the queue's device maps it
	AdviseClearAccessedByDevice
)

// USMQueue is implemented by queues of USM contexts. Pointers may be USM
// allocations, or for USMCopy ordinary host memory kept alive and pinned
// by the front end until the command completes.
type USMQueue interface {
	USMCopy(dst, src uintptr, size uint64, blocking bool, wait []Event, wantEvent bool) (Event, error)
	// USMFill repeats pattern (1, 2, 4, ... 128 bytes, dividing size)
	// over size bytes at ptr.
	USMFill(ptr uintptr, pattern []byte, size uint64, wait []Event, wantEvent bool) (Event, error)
	// USMPrefetch moves shared memory to the queue's device, or to the
	// host when toHost is set.
	USMPrefetch(ptr uintptr, size uint64, toHost bool, wait []Event, wantEvent bool) (Event, error)
	USMAdvise(ptr uintptr, size uint64, advice USMAdvice, wantEvent bool) (Event, error)
}

// PointerKernel is implemented by kernels of USM contexts: the argument
// is a pointer into a USM allocation (clSetKernelArgSVMPointer,
// clSetKernelArgMemPointerINTEL, or the address as a value).
type PointerKernel interface {
	SetArgPointer(index uint32, ptr uintptr) error
}

// PoolContext is implemented by contexts with driver-side memory pools
// (cuMemPoolCreate). Elsewhere the front end pools USMAlloc'd blocks
// itself.
type PoolContext interface {
	NewPool(dev Device, props PoolProperties) (Pool, error)
}

// PoolProperties configures a pool.
type PoolProperties struct {
	// ReleaseThreshold is how many bytes the pool keeps reserved when idle
	// rather than returning them to the driver; 0 returns all at sync
	// points, ^uint64(0) keeps everything.
	ReleaseThreshold uint64
	// MaxSize bounds the pool's reservation; 0 for no bound.
	MaxSize uint64
}

// Pool is a driver memory pool.
type Pool interface {
	Release() error
	SetReleaseThreshold(bytes uint64) error
	// Trim returns unused memory to the driver until at most keep bytes
	// stay reserved.
	Trim(keep uint64) error
	// Usage reports the bytes reserved from the driver and in use.
	Usage() (reserved, used uint64, err error)
	Native() uintptr
}

// PoolQueue is implemented by queues that allocate and free from a Pool
// in stream order (cuMemAllocFromPoolAsync, cuMemFreeAsync).
type PoolQueue interface {
	AllocAsync(pool Pool, size uint64, wait []Event, wantEvent bool) (uintptr, Event, error)
	FreeAsync(ptr uintptr, wait []Event, wantEvent bool) (Event, error)
}

// MarkerQueue is implemented by queues that can enqueue a marker: an event
// that completes when the wait list (or, when it is empty, every command
// enqueued before) has completed; with barrier set, later commands also
// wait for it (urEnqueueEventsWaitWithBarrier).
type MarkerQueue interface {
	Marker(wait []Event, barrier bool) (Event, error)
}

// HostRegisterContext is implemented by contexts that can page-lock
// existing host memory for asynchronous copies (cuMemHostRegister).
type HostRegisterContext interface {
	HostRegister(ptr uintptr, size uint64) error
	HostUnregister(ptr uintptr) error
}

// SubBufferMem is implemented by buffers that can make a view of part of
// themselves (clCreateSubBuffer; pointer arithmetic elsewhere). The view
// is a Mem that kernels take as any other; the front end keeps the parent
// alive while the view lives and checks the offset's alignment against
// DeviceInfo.MemBaseAddrAlign.
type SubBufferMem interface {
	NewSubBuffer(flags MemFlags, offset, size uint64) (Mem, error)
}

// RectOperand is one side of a rectangular copy: a buffer, or a pointer
// (USM, or host memory the front end keeps alive).
type RectOperand struct {
	Mem Mem     // a buffer, or nil
	Ptr uintptr // used when Mem is nil
}

// Rect is a rectangular region copy: Region is {bytes per row, rows,
// slices}; origins are {byte, row, slice}; pitches are in bytes. The front
// end fills zero pitches (row pitch = Region[0], slice pitch = row pitch ×
// Region[1]) and checks every byte touched lies inside both operands.
type Rect struct {
	SrcOrigin, DstOrigin       [3]uint64
	Region                     [3]uint64
	SrcRowPitch, SrcSlicePitch uint64
	DstRowPitch, DstSlicePitch uint64
}

// RectQueue is implemented by queues that copy rectangular regions
// (clEnqueueCopyBufferRect, cuMemcpy3DAsync,
// zeCommandListAppendMemoryCopyRegion).
type RectQueue interface {
	CopyRect(dst, src RectOperand, r Rect, blocking bool, wait []Event, wantEvent bool) (Event, error)
}

// MemoryReporter is implemented by devices that report their free memory
// (cuMemGetInfo, zesMemoryGetState); it changes, so it is not DeviceInfo.
type MemoryReporter interface {
	FreeMemory() (free, total uint64, err error)
}

// NativeWrapper is implemented by adapters that wrap handles another
// library made. With owned set, gour releases the handle with the wrapper;
// otherwise the other library keeps it and must keep it alive while gour
// uses it.
type NativeWrapper interface {
	// ContextFromNative wraps a context (cl_context, CUcontext,
	// ze_context_handle_t) over devices of this adapter.
	ContextFromNative(native uintptr, devices []Device, owned bool) (Context, error)
}

// NativeContext is implemented by contexts that wrap native queues and
// buffers another library made.
type NativeContext interface {
	// QueueFromNative wraps a cl_command_queue, CUstream or
	// ze_command_list_handle_t (immediate) on dev.
	QueueFromNative(native uintptr, dev Device, owned bool) (Queue, error)
	// BufferFromNative wraps a cl_mem, or a device pointer of size bytes
	// on CUDA and Level Zero.
	BufferFromNative(native uintptr, size uint64, owned bool) (Mem, error)
}
