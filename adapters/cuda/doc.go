// Package cuda is gour's CUDA adapter over the driver API (libcuda.so.1),
// with NVRTC for CUDA C and the driver's JIT linker for PTX, all opened at
// run time.
//
// Importing the package registers the adapter under the name "cuda".
// How CUDA maps onto the handles of package ur:
//
//   - a Context is the device's primary context (one device per context);
//   - a Queue is a non-blocking stream, so it never serialises with other
//     streams; an Event is a CUDA event recorded after the command (and
//     one before it on a profiling queue);
//   - a Program is created from CUDA C (NewProgramFromSource, compiled by
//     NVRTC for the device's sm_XX), PTX (NewProgramFromIL, compiled by the
//     driver's JIT linker) or a cubin/fatbin (NewProgramFromBinaries). A
//     program built from PTX or CUDA C hands back its cubin as its binary,
//     so a cache can recreate it without the JIT;
//   - kernel arguments are laid out as cuFuncGetParamInfo reports; a local
//     (work-group) argument is a size_t byte offset into the launch's
//     dynamic shared memory, which kernels declare as
//     extern __shared__ unsigned char gour_local[];
//   - a launch's work-group size is CUDA's block; a global size must be a
//     multiple of it. CUDA has no global offset: a non-zero offset gives
//     ErrUnsupportedFeature.
//
// The memory model (ur/driver/memory.go) maps as follows:
//
//   - USM device, host and shared allocations are cuMemAlloc,
//     cuMemHostAlloc (PORTABLE|DEVICEMAP) and cuMemAllocManaged
//     (ATTACH_GLOBAL); shared ones need CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY.
//     Every CUDA allocator aligns to 256 bytes, which is the device's
//     MemBaseAddrAlign; a larger alignment is refused with
//     ErrUnsupportedAlignment rather than met by chance. A free asks the
//     driver what the pointer is (cuPointerGetAttribute) and calls
//     cuMemFreeHost or cuMemFree, both of which wait for the work using
//     it. Pointer queries are cuPointerGetAttributes (memory type,
//     managed, device ordinal) and cuMemGetAddressRange (or the range
//     attributes, for host memory); memory CUDA does not know is
//     USMUnknown, and memory registered with cuMemHostRegister is host
//     memory;
//   - USM copies are cuMemcpyAsync, which unified addressing lets take
//     any two pointers; fills are FillBuffer's memsets; a prefetch is
//     cuMemPrefetchAsync_v2 (cuMemPrefetchAsync before CUDA 12.2), and
//     advice cuMemAdvise_v2 (cuMemAdvise), which applies at once. Both are
//     hints: on memory that is not managed, and for a prefetch on a device
//     without concurrent managed access, where CUDA would refuse them,
//     they only order the queue;
//     Kernel.SetArgPtr stores the address as an 8-byte argument;
//   - a pool is cuMemPoolCreate of pinned device memory on the context's
//     device; Queue.AllocAsync and FreeAsync are cuMemAllocFromPoolAsync
//     and cuMemFreeAsync on the queue's stream, and its usage the pool's
//     RESERVED_MEM_CURRENT and USED_MEM_CURRENT;
//   - a marker is an event recorded after the wait list; a stream runs in
//     order, so a barrier is the same marker;
//   - Context.RegisterHost is cuMemHostRegister (PORTABLE);
//   - a sub-buffer is its parent's address plus the offset, and frees
//     nothing;
//   - a rectangular copy is cuMemcpy3DAsync, buffers as device memory and
//     pointers as unified memory; a slice pitch that is not a whole number
//     of rows is copied slice by slice;
//   - a device's free memory is cuMemGetInfo.
//
// Handles of other libraries: a CUcontext is wrapped with
// ContextFromNative. The device's primary context is what every context
// of the adapter is anyway; given with ownership, its reference is
// released with the wrapper (the adapter keeps its own). Any other context
// of the device, found with cuCtxGetDevice, is wrapped without ownership
// only: objects made from the wrapper bind that context, and since gour
// lets them outlive their context, its maker destroys it after releasing
// them. A CUstream (not the NULL stream) is wrapped as a queue, checked to
// belong to the context where the driver has cuStreamGetCtx; it never
// launches with quick calls, since other code may fill it, and with
// ownership Release destroys it. A CUdeviceptr is wrapped as a buffer of
// the size given; with ownership Release frees it with cuMemFree.
//
// The CUDA current context belongs to an OS thread. Every call that needs
// it locks the calling goroutine to its thread and makes the device's
// primary context current first, so any goroutine may call the adapter.
// A launch is the exception, for speed: a function belongs to its module's
// context, where the driver launches it whatever the thread has current,
// so a launch is one cuLaunchKernel; a driver that refuses gets the
// context made current and the launch again (cu.Lib.LaunchKernelIn).
//
// A prepared launch (ur.PreparedLaunch, or a repeated Queue.Launch) is a
// quick call (dl.CallQuick), without the Go scheduler's system-call
// accounting, while cuLaunchKernel cannot wait: while the stream holds
// fewer than 512 commands since it was last seen drained (Queue.Finish, a
// blocking read or write), and while no call that can hold the context's
// lock for long (module loads and unloads, the JIT linker, memory
// allocation and release that synchronize: cuMemAlloc, cuMemFree, pinned
// and managed allocations, host registration, pool creation, trimming and
// destruction) is in flight in the adapter. The stream-ordered
// cuMemAllocFromPoolAsync and cuMemFreeAsync do not suspend them. Every kernel is
// loaded when it is created (cuFuncLoad, CUDA 12.4), so that no launch
// loads it lazily; drivers without cuFuncLoad make no quick calls. Set
// GOUR_CUDA_QUICK_LAUNCH=0 to make none where other libraries in the
// process use CUDA with lazy loading, which can make a launch wait.
package cuda
