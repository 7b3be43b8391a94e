// Package cuda is gour's CUDA adapter over the driver API (libcuda.so.1),
// with NVRTC for CUDA C and the driver's JIT linker for PTX, all opened at
// run time.
//
// Importing the package registers the adapter under the name "cuda".
// How CUDA maps onto the handles of package ur:
//
//   - a Context is the device's primary context; a context of several
//     devices holds the primary context of each, and makes every object
//     in the context of the device it is for: queues, pools, USM, and a
//     module and a CUfunction per device for programs and kernels
//     (multidevice.go). Its buffers are managed memory the driver
//     migrates to the device that touches it;
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
//   - a device's free memory is cuMemGetInfo;
//   - an image is a CUDA array with a surface object (image.go); a copy
//     between two images of 1 MiB or more is a kernel of the adapter's
//     own PTX (imagecopy.go: surface loads and stores, nearly a buffer
//     copy's speed where cuMemcpy3DAsync is far slower; docs/benchmarks.md,
//     "Images on CUDA, and image copies by kernel"), the rest
//     cuMemcpy3DAsync; GOUR_CUDA_IMAGE_COPY=kernel|driver overrides.
//
// The launch and queue model (ur/driver/launch.go) maps as follows:
//
//   - a launch with its arguments (LaunchWithArgs) builds kernelParams in
//     a table from a sync.Pool, never in the kernel, so goroutines launch
//     one kernel at once without a lock, and allocates nothing. A buffer
//     or pointer is its 8-byte address; a local argument is its offset
//     into dynamic shared memory, as SetArgLocal's. The launch's dynamic
//     shared memory is LaunchProperties.DynamicLocalMem, from offset 0,
//     for kernels that declare extern __shared__ arrays the usual CUDA
//     way, then the local arguments, each 16-byte aligned. Beyond the
//     function's limit (48 KiB less its static shared memory) the adapter
//     raises CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES once per new
//     size, under a lock shared by every kernel of that CUfunction, and
//     never lowers it; Queue.Launch does the same for local arguments.
//     Cooperative launches and clusters are cuLaunchKernelEx attributes;
//   - a command buffer is a CUDA graph, each command a node after the one
//     before (a fill with a pattern of 8 or more bytes: one strided
//     memset node per 32-bit word; other widths are UNSUPPORTED_FEATURE),
//     instantiated at Finalize and launched with cuGraphLaunch. The driver
//     copies a kernel node's argument values when the node is added or
//     updated (cuGraphExecKernelNodeSetParams), so the adapter keeps its
//     own copy only for later updates. Release destroys the executable
//     graph at once: cuGraphExecDestroy lets a replay in flight finish.
//     USM copies in a graph take USM, not pageable host memory;
//   - capture is cuStreamBeginCapture in relaxed mode: gour calls CUDA from
//     whatever OS thread a goroutine runs on, which the stricter modes
//     would turn into failed allocations elsewhere in the process or a
//     capture that cannot end on another thread;
//   - an out-of-order queue has 4 streams used in turn: a command waits
//     for its wait list and what its stream ran before. A marker with an
//     empty wait list joins the streams (an event recorded on each, which
//     the first waits for); a barrier then makes every stream wait for it.
//     Finish synchronizes every stream, and Empty queries every stream.
//     A prepared launch on such a queue always uses the stream picked
//     when it was prepared;
//   - a queue's priority is a stream priority: gour's 0 is CUDA's default,
//     each step up one CUDA priority higher (a lower number), clamped to
//     cuCtxGetStreamPriorityRange; CUDA has no priority below the
//     default, so negative priorities are the default;
//   - Event.OnComplete runs its callback on a goroutine that waits in
//     cuEventSynchronize, never on a CUDA thread; a release meanwhile
//     destroys the CUDA event after the callback;
//   - kernel attributes are cuFuncGetAttribute's, with the warp as the
//     sub-group and the device's opt-in shared memory less the static as
//     the largest dynamic local memory; a suggested size is
//     cuOccupancyMaxPotentialBlockSize's block spread over the range's
//     dimensions as divisors of their global sizes (a prime global size
//     larger than the block gets 1), and the cooperative limit
//     cuOccupancyMaxActiveBlocksPerMultiprocessor times the
//     multiprocessors;
//   - a program's global is cuModuleGetGlobal_v2 in its module.
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
