package cu

import (
	"fmt"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/internal/nvlib"
)

// Lib is the resolved CUDA driver entry-point table. Fields hold C function
// addresses; optional entry points the driver lacks are zero. A Lib is
// read-only after Load, so its methods may be called from any goroutine
// (the driver's own rules still apply, e.g. the current context is per OS
// thread).
type Lib struct {
	// The launch path first, in one cache line: launches alternate with
	// the driver's own work, which evicts what they touch.
	launchKernel  uintptr
	ctxSetCurrent uintptr

	lib *dl.Library

	// Initialization, version, errors.
	init             uintptr
	driverGetVersion uintptr
	getErrorName     uintptr
	getErrorString   uintptr // optional

	// Devices.
	deviceGetCount     uintptr
	deviceGet          uintptr
	deviceGetName      uintptr
	deviceGetAttribute uintptr
	deviceTotalMem     uintptr
	deviceGetUuid      uintptr // optional: cuDeviceGetUuid_v2, else cuDeviceGetUuid

	// Primary context and context stack.
	devicePrimaryCtxRetain  uintptr
	devicePrimaryCtxRelease uintptr
	ctxGetCurrent           uintptr
	ctxPushCurrent          uintptr
	ctxPopCurrent           uintptr
	ctxSynchronize          uintptr
	ctxGetDevice            uintptr

	// Streams.
	streamCreate      uintptr
	streamDestroy     uintptr
	streamSynchronize uintptr
	streamQuery       uintptr
	streamWaitEvent   uintptr
	streamGetCtx      uintptr // optional, 9.2

	// The launch and queue model: launch attributes, graphs, capture,
	// priorities, occupancy (graph.go).
	launchKernelEx               uintptr // optional, 11.8
	graphCreate                  uintptr // optional
	graphDestroy                 uintptr // optional
	graphAddKernelNode           uintptr // optional: cuGraphAddKernelNode_v2, 12.0
	graphAddMemcpyNode           uintptr // optional
	graphAddMemsetNode           uintptr // optional
	graphKernelNodeSetAttribute  uintptr // optional, 11.0
	graphInstantiate             uintptr // optional: cuGraphInstantiateWithFlags, 11.4
	graphLaunch                  uintptr // optional
	graphExecDestroy             uintptr // optional
	graphExecKernelNodeSetParams uintptr // optional: cuGraphExecKernelNodeSetParams_v2, 12.0
	streamBeginCapture           uintptr // optional: cuStreamBeginCapture_v2
	streamEndCapture             uintptr // optional
	streamCreateWithPriority     uintptr // optional
	ctxGetStreamPriorityRange    uintptr // optional
	occupancyMaxActiveBlocks     uintptr // optional

	// Memory.
	memAlloc         uintptr
	memFree          uintptr
	memGetInfo       uintptr
	memcpyHtoD       uintptr
	memcpyDtoH       uintptr
	memcpyHtoDAsync  uintptr
	memcpyDtoHAsync  uintptr
	memcpyDtoDAsync  uintptr
	memsetD8Async    uintptr
	memsetD16Async   uintptr
	memsetD32Async   uintptr
	memsetD2D8Async  uintptr // optional
	memsetD2D16Async uintptr // optional
	memsetD2D32Async uintptr // optional

	// Unified memory, pools and the rest of the memory model.
	memAllocManaged       uintptr
	memHostAlloc          uintptr
	memFreeHost           uintptr
	memHostRegister       uintptr
	memHostUnregister     uintptr
	pointerGetAttribute   uintptr
	pointerGetAttributes  uintptr
	memGetAddressRange    uintptr
	memcpyAsync           uintptr
	memcpy3DAsync         uintptr
	memPrefetchAsync      uintptr // optional: cuMemPrefetchAsync_v2, else cuMemPrefetchAsync
	memPrefetchLocation   bool    // memPrefetchAsync is the _v2, which takes a CUmemLocation
	memAdvise             uintptr // optional: cuMemAdvise_v2, else cuMemAdvise
	memAdviseLocation     bool    // memAdvise is the _v2
	memPoolCreate         uintptr // optional, 11.2
	memPoolDestroy        uintptr // optional, 11.2
	memPoolSetAttribute   uintptr // optional, 11.2
	memPoolGetAttribute   uintptr // optional, 11.2
	memPoolTrimTo         uintptr // optional, 11.2
	memAllocFromPoolAsync uintptr // optional, 11.2
	memFreeAsync          uintptr // optional, 11.2

	// Modules and functions.
	moduleLoadData             uintptr
	moduleLoadDataEx           uintptr
	moduleUnload               uintptr
	moduleGetFunction          uintptr
	moduleGetGlobal            uintptr // optional
	moduleGetFunctionCount     uintptr // optional, 12.4
	moduleEnumerateFunctions   uintptr // optional, 12.4
	funcGetName                uintptr // optional, 12.3
	funcGetAttribute           uintptr
	funcSetAttribute           uintptr
	funcGetParamInfo           uintptr // optional, 12.4
	funcLoad                   uintptr // optional, 12.4
	occupancyMaxPotentialBlock uintptr // optional

	// JIT linker.
	linkCreate   uintptr
	linkAddData  uintptr
	linkComplete uintptr
	linkDestroy  uintptr

	// Peer access between devices (peer.go).
	deviceCanAccessPeer   uintptr // optional
	deviceGetP2PAttribute uintptr // optional, 8.0
	ctxEnablePeerAccess   uintptr // optional
	ctxDisablePeerAccess  uintptr // optional
	memcpyPeerAsync       uintptr // optional

	// Events.
	eventCreate      uintptr
	eventDestroy     uintptr
	eventRecord      uintptr
	eventSynchronize uintptr
	eventQuery       uintptr
	eventElapsedTime uintptr // cuEventElapsedTime_v2 (12.8), else cuEventElapsedTime
}

// Load takes the CUDA driver library (nvlib.Driver, opened once per
// process) and resolves every entry point. It fails, without panicking,
// when the library or a required function is missing. Each call returns
// a new table.
func Load() (*Lib, error) {
	lib, err := nvlib.Driver()
	if err != nil {
		return nil, fmt.Errorf("cu: CUDA driver library not available: %w", err)
	}
	l := &Lib{lib: lib}
	if err := lib.Resolve(l.symbols()); err != nil {
		return nil, fmt.Errorf("cu: %w", err)
	}
	// Entry points known under two names: the newer one first.
	l.deviceGetUuid = lookupFirst(lib, "cuDeviceGetUuid_v2", "cuDeviceGetUuid")
	l.eventElapsedTime = lookupFirst(lib, "cuEventElapsedTime_v2", "cuEventElapsedTime")
	// CUDA 12.2 added the _v2 of both, taking a CUmemLocation where the
	// first took a CUdevice; CUDA 13's cuda.h maps the plain names to the
	// _v2. Drivers export both.
	l.memPrefetchAsync = lookupFirst(lib, "cuMemPrefetchAsync_v2")
	l.memPrefetchLocation = l.memPrefetchAsync != 0
	if !l.memPrefetchLocation {
		l.memPrefetchAsync = lookupFirst(lib, "cuMemPrefetchAsync")
	}
	l.memAdvise = lookupFirst(lib, "cuMemAdvise_v2")
	l.memAdviseLocation = l.memAdvise != 0
	if !l.memAdviseLocation {
		l.memAdvise = lookupFirst(lib, "cuMemAdvise")
	}
	if l.eventElapsedTime == 0 {
		return nil, fmt.Errorf("cu: %s: symbol cuEventElapsedTime not found", lib.Name)
	}
	return l, nil
}

// lookupFirst returns the address of the first name the library exports, or
// zero.
func lookupFirst(lib *dl.Library, names ...string) uintptr {
	for _, n := range names {
		if addr, err := lib.Lookup(n); err == nil {
			return addr
		}
	}
	return 0
}

func (l *Lib) symbols() []dl.Symbol {
	return []dl.Symbol{
		{Name: "cuInit", Addr: &l.init},
		{Name: "cuDriverGetVersion", Addr: &l.driverGetVersion},
		{Name: "cuGetErrorName", Addr: &l.getErrorName},
		{Name: "cuGetErrorString", Addr: &l.getErrorString, Optional: true},

		{Name: "cuDeviceGetCount", Addr: &l.deviceGetCount},
		{Name: "cuDeviceGet", Addr: &l.deviceGet},
		{Name: "cuDeviceGetName", Addr: &l.deviceGetName},
		{Name: "cuDeviceGetAttribute", Addr: &l.deviceGetAttribute},
		{Name: "cuDeviceTotalMem_v2", Addr: &l.deviceTotalMem},

		{Name: "cuDevicePrimaryCtxRetain", Addr: &l.devicePrimaryCtxRetain},
		{Name: "cuDevicePrimaryCtxRelease_v2", Addr: &l.devicePrimaryCtxRelease},
		{Name: "cuCtxSetCurrent", Addr: &l.ctxSetCurrent},
		{Name: "cuCtxGetCurrent", Addr: &l.ctxGetCurrent},
		{Name: "cuCtxPushCurrent_v2", Addr: &l.ctxPushCurrent},
		{Name: "cuCtxPopCurrent_v2", Addr: &l.ctxPopCurrent},
		{Name: "cuCtxSynchronize", Addr: &l.ctxSynchronize},
		{Name: "cuCtxGetDevice", Addr: &l.ctxGetDevice},

		{Name: "cuStreamCreate", Addr: &l.streamCreate},
		{Name: "cuStreamDestroy_v2", Addr: &l.streamDestroy},
		{Name: "cuStreamSynchronize", Addr: &l.streamSynchronize},
		{Name: "cuStreamQuery", Addr: &l.streamQuery},
		{Name: "cuStreamWaitEvent", Addr: &l.streamWaitEvent},
		{Name: "cuStreamGetCtx", Addr: &l.streamGetCtx, Optional: true},

		{Name: "cuLaunchKernelEx", Addr: &l.launchKernelEx, Optional: true},
		{Name: "cuGraphCreate", Addr: &l.graphCreate, Optional: true},
		{Name: "cuGraphDestroy", Addr: &l.graphDestroy, Optional: true},
		{Name: "cuGraphAddKernelNode_v2", Addr: &l.graphAddKernelNode, Optional: true},
		{Name: "cuGraphAddMemcpyNode", Addr: &l.graphAddMemcpyNode, Optional: true},
		{Name: "cuGraphAddMemsetNode", Addr: &l.graphAddMemsetNode, Optional: true},
		{Name: "cuGraphKernelNodeSetAttribute", Addr: &l.graphKernelNodeSetAttribute, Optional: true},
		{Name: "cuGraphInstantiateWithFlags", Addr: &l.graphInstantiate, Optional: true},
		{Name: "cuGraphLaunch", Addr: &l.graphLaunch, Optional: true},
		{Name: "cuGraphExecDestroy", Addr: &l.graphExecDestroy, Optional: true},
		{Name: "cuGraphExecKernelNodeSetParams_v2", Addr: &l.graphExecKernelNodeSetParams, Optional: true},
		{Name: "cuStreamBeginCapture_v2", Addr: &l.streamBeginCapture, Optional: true},
		{Name: "cuStreamEndCapture", Addr: &l.streamEndCapture, Optional: true},
		{Name: "cuStreamCreateWithPriority", Addr: &l.streamCreateWithPriority, Optional: true},
		{Name: "cuCtxGetStreamPriorityRange", Addr: &l.ctxGetStreamPriorityRange, Optional: true},
		{Name: "cuOccupancyMaxActiveBlocksPerMultiprocessor", Addr: &l.occupancyMaxActiveBlocks, Optional: true},

		{Name: "cuMemAlloc_v2", Addr: &l.memAlloc},
		{Name: "cuMemFree_v2", Addr: &l.memFree},
		{Name: "cuMemGetInfo_v2", Addr: &l.memGetInfo},
		{Name: "cuMemcpyHtoD_v2", Addr: &l.memcpyHtoD},
		{Name: "cuMemcpyDtoH_v2", Addr: &l.memcpyDtoH},
		{Name: "cuMemcpyHtoDAsync_v2", Addr: &l.memcpyHtoDAsync},
		{Name: "cuMemcpyDtoHAsync_v2", Addr: &l.memcpyDtoHAsync},
		{Name: "cuMemcpyDtoDAsync_v2", Addr: &l.memcpyDtoDAsync},
		{Name: "cuMemsetD8Async", Addr: &l.memsetD8Async},
		{Name: "cuMemsetD16Async", Addr: &l.memsetD16Async},
		{Name: "cuMemsetD32Async", Addr: &l.memsetD32Async},
		{Name: "cuMemsetD2D8Async", Addr: &l.memsetD2D8Async, Optional: true},
		{Name: "cuMemsetD2D16Async", Addr: &l.memsetD2D16Async, Optional: true},
		{Name: "cuMemsetD2D32Async", Addr: &l.memsetD2D32Async, Optional: true},

		{Name: "cuMemAllocManaged", Addr: &l.memAllocManaged},
		{Name: "cuMemHostAlloc", Addr: &l.memHostAlloc},
		{Name: "cuMemFreeHost", Addr: &l.memFreeHost},
		{Name: "cuMemHostRegister_v2", Addr: &l.memHostRegister},
		{Name: "cuMemHostUnregister", Addr: &l.memHostUnregister},
		{Name: "cuPointerGetAttribute", Addr: &l.pointerGetAttribute},
		{Name: "cuPointerGetAttributes", Addr: &l.pointerGetAttributes},
		{Name: "cuMemGetAddressRange_v2", Addr: &l.memGetAddressRange},
		{Name: "cuMemcpyAsync", Addr: &l.memcpyAsync},
		{Name: "cuMemcpy3DAsync_v2", Addr: &l.memcpy3DAsync},
		{Name: "cuMemPoolCreate", Addr: &l.memPoolCreate, Optional: true},
		{Name: "cuMemPoolDestroy", Addr: &l.memPoolDestroy, Optional: true},
		{Name: "cuMemPoolSetAttribute", Addr: &l.memPoolSetAttribute, Optional: true},
		{Name: "cuMemPoolGetAttribute", Addr: &l.memPoolGetAttribute, Optional: true},
		{Name: "cuMemPoolTrimTo", Addr: &l.memPoolTrimTo, Optional: true},
		{Name: "cuMemAllocFromPoolAsync", Addr: &l.memAllocFromPoolAsync, Optional: true},
		{Name: "cuMemFreeAsync", Addr: &l.memFreeAsync, Optional: true},

		{Name: "cuModuleLoadData", Addr: &l.moduleLoadData},
		{Name: "cuModuleLoadDataEx", Addr: &l.moduleLoadDataEx},
		{Name: "cuModuleUnload", Addr: &l.moduleUnload},
		{Name: "cuModuleGetFunction", Addr: &l.moduleGetFunction},
		{Name: "cuModuleGetGlobal_v2", Addr: &l.moduleGetGlobal, Optional: true},
		{Name: "cuModuleGetFunctionCount", Addr: &l.moduleGetFunctionCount, Optional: true},
		{Name: "cuModuleEnumerateFunctions", Addr: &l.moduleEnumerateFunctions, Optional: true},
		{Name: "cuFuncGetName", Addr: &l.funcGetName, Optional: true},
		{Name: "cuFuncGetAttribute", Addr: &l.funcGetAttribute},
		{Name: "cuFuncSetAttribute", Addr: &l.funcSetAttribute},
		{Name: "cuFuncGetParamInfo", Addr: &l.funcGetParamInfo, Optional: true},
		{Name: "cuFuncLoad", Addr: &l.funcLoad, Optional: true},
		{Name: "cuOccupancyMaxPotentialBlockSize", Addr: &l.occupancyMaxPotentialBlock, Optional: true},

		{Name: "cuLaunchKernel", Addr: &l.launchKernel},

		{Name: "cuLinkCreate_v2", Addr: &l.linkCreate},
		{Name: "cuLinkAddData_v2", Addr: &l.linkAddData},
		{Name: "cuLinkComplete", Addr: &l.linkComplete},
		{Name: "cuLinkDestroy", Addr: &l.linkDestroy},

		{Name: "cuDeviceCanAccessPeer", Addr: &l.deviceCanAccessPeer, Optional: true},
		{Name: "cuDeviceGetP2PAttribute", Addr: &l.deviceGetP2PAttribute, Optional: true},
		{Name: "cuCtxEnablePeerAccess", Addr: &l.ctxEnablePeerAccess, Optional: true},
		{Name: "cuCtxDisablePeerAccess", Addr: &l.ctxDisablePeerAccess, Optional: true},
		{Name: "cuMemcpyPeerAsync", Addr: &l.memcpyPeerAsync, Optional: true},

		{Name: "cuEventCreate", Addr: &l.eventCreate},
		{Name: "cuEventDestroy_v2", Addr: &l.eventDestroy},
		{Name: "cuEventRecord", Addr: &l.eventRecord},
		{Name: "cuEventSynchronize", Addr: &l.eventSynchronize},
		{Name: "cuEventQuery", Addr: &l.eventQuery},
	}
}

// LibraryName returns the file name the driver was opened under.
func (l *Lib) LibraryName() string { return l.lib.Name }

// Close drops the table. The driver library stays loaded: it is the
// process's (nvlib.Driver), and unloading a driver that has started
// threads is not safe.
func (l *Lib) Close() error { return nil }

// HasErrorString reports whether cuGetErrorString is exported.
func (l *Lib) HasErrorString() bool { return l.getErrorString != 0 }

// HasDeviceUUID reports whether cuDeviceGetUuid_v2 or cuDeviceGetUuid is
// exported.
func (l *Lib) HasDeviceUUID() bool { return l.deviceGetUuid != 0 }

// HasMemset2D reports whether the cuMemsetD2D*Async family is exported.
func (l *Lib) HasMemset2D() bool {
	return l.memsetD2D8Async != 0 && l.memsetD2D16Async != 0 && l.memsetD2D32Async != 0
}

// HasModuleGetGlobal reports whether cuModuleGetGlobal_v2 is exported.
func (l *Lib) HasModuleGetGlobal() bool { return l.moduleGetGlobal != 0 }

// HasModuleEnumerateFunctions reports whether cuModuleGetFunctionCount and
// cuModuleEnumerateFunctions (CUDA 12.4) are exported.
func (l *Lib) HasModuleEnumerateFunctions() bool {
	return l.moduleGetFunctionCount != 0 && l.moduleEnumerateFunctions != 0
}

// HasFuncGetName reports whether cuFuncGetName (CUDA 12.3) is exported.
func (l *Lib) HasFuncGetName() bool { return l.funcGetName != 0 }

// HasFuncGetParamInfo reports whether cuFuncGetParamInfo (CUDA 12.4) is
// exported.
func (l *Lib) HasFuncGetParamInfo() bool { return l.funcGetParamInfo != 0 }

// HasFuncLoad reports whether cuFuncLoad (CUDA 12.4) is exported.
func (l *Lib) HasFuncLoad() bool { return l.funcLoad != 0 }

// HasMemPools reports whether the stream-ordered allocator's pools
// (cuMemPoolCreate, cuMemAllocFromPoolAsync, cuMemFreeAsync; CUDA 11.2) are
// exported.
func (l *Lib) HasMemPools() bool {
	return l.memPoolCreate != 0 && l.memPoolDestroy != 0 && l.memPoolSetAttribute != 0 &&
		l.memPoolGetAttribute != 0 && l.memPoolTrimTo != 0 && l.memAllocFromPoolAsync != 0 && l.memFreeAsync != 0
}

// HasMemPrefetch reports whether cuMemPrefetchAsync_v2 or cuMemPrefetchAsync
// is exported.
func (l *Lib) HasMemPrefetch() bool { return l.memPrefetchAsync != 0 }

// HasMemAdvise reports whether cuMemAdvise_v2 or cuMemAdvise is exported.
func (l *Lib) HasMemAdvise() bool { return l.memAdvise != 0 }

// HasStreamGetCtx reports whether cuStreamGetCtx is exported.
func (l *Lib) HasStreamGetCtx() bool { return l.streamGetCtx != 0 }

// HasOccupancy reports whether cuOccupancyMaxPotentialBlockSize is exported.
func (l *Lib) HasOccupancy() bool { return l.occupancyMaxPotentialBlock != 0 }

// call calls fn with f's arguments. A zero fn (an optional entry point the
// driver lacks) gives NotSupported without a call.
func call(f *dl.Frame, fn uintptr) (r Result, out [4]uint64, outp unsafe.Pointer) {
	if fn == 0 {
		f.Release()
		return NotSupported, out, nil
	}
	r1, out, outp := f.Call(fn)
	return result(r1), out, outp
}

// result converts a CUresult return register: only the low 32 bits are
// defined by the C ABI.
func result(r uintptr) Result { return Result(int32(r)) }

// call0 runs a function without arguments, such as cuCtxSynchronize.
func call0(fn uintptr) Result {
	r, _, _ := call(dl.NewFrame(), fn)
	return r
}

// call1 runs a function of one handle, such as cuStreamSynchronize.
func call1(fn, h uintptr) Result {
	f := dl.NewFrame()
	f.Args[0] = h
	r, _, _ := call(f, fn)
	return r
}

// int32At reads a C int written into an output slot.
func int32At(out *uint64) int32 { return *(*int32)(unsafe.Pointer(out)) }

// float32At reads a C float written into an output slot.
func float32At(out *uint64) float32 { return *(*float32)(unsafe.Pointer(out)) }
