// Package opencl is gour's OpenCL adapter: it drives any OpenCL ICD
// (PoCL, NVIDIA, Intel, ...) through libOpenCL.so.1, opened at run time.
//
// Importing the package registers the adapter under the name "opencl".
// Raw bindings live in internal/cl; this package only translates the
// calls of ur/driver into OpenCL calls and OpenCL status codes into
// Unified Runtime result codes.
//
// The memory model beyond whole buffers (ur/driver/memory.go; memory.go,
// queue_memory.go and native.go):
//
//   - Device info: MemBaseAddrAlign is CL_DEVICE_MEM_BASE_ADDR_ALIGN
//     divided by 8 (OpenCL gives bits); HostUnifiedMemory is
//     CL_DEVICE_HOST_UNIFIED_MEMORY (deprecated in 2.0, still answered).
//     USM comes from cl_intel_unified_shared_memory where the device lists
//     it and its platform gives every entry point gour needs through
//     clGetExtensionFunctionAddressForPlatform: a kind is supported when
//     CL_DEVICE_{DEVICE,HOST,SINGLE_DEVICE_SHARED}_MEM_CAPABILITIES_INTEL
//     is not zero (Via "cl_intel_unified_shared_memory"). Otherwise it
//     comes from shared virtual memory (OpenCL 2.0, Via "svm"):
//     coarse-grained buffer SVM gives device allocations, and fine-grained
//     buffer SVM host and shared ones too. Coarse-grained SVM must be
//     mapped (clEnqueueSVMMap) before the host touches it, which USM's
//     host and shared kinds do not ask of their users, so they are offered
//     only where fine-grained buffers make the map needless; device memory
//     is never touched by the host. A device with neither reports what is
//     missing. A context uses Intel's extension when all its devices have
//     it, else SVM when all have it.
//   - USM allocations: clDeviceMemAllocINTEL, clHostMemAllocINTEL and
//     clSharedMemAllocINTEL; or clSVMAlloc, read-write, with
//     CL_MEM_SVM_FINE_GRAIN_BUFFER for the host and shared kinds (SVM does
//     not tell them apart). Alignments past a cl_uint give
//     ErrUnsupportedAlignment. An alignment clSVMAlloc refuses (PoCL takes
//     none past its largest data type's) is made by allocating
//     alignment-1 bytes more at the default and aligning up inside; the
//     free passes clSVMFree what it returned. clSVMAlloc reports no code,
//     so a NULL then is ErrOutOfDeviceMemory. Intel's extension promises
//     alignments up to the largest data type only (PoCL 5 ignores larger
//     ones): a pointer that comes back misaligned is freed and gives
//     ErrUnsupportedAlignment. Intel memory is freed with
//     clMemBlockingFreeINTEL (clMemFreeINTEL where the driver lacks it):
//     it waits for the commands still using the memory, so a free that
//     comes early cannot hand a running kernel's pages to the next
//     allocation, and it is what Intel's own Unified Runtime adapter calls.
//     clSVMFree does not wait, and PoCL's commands on memory freed under
//     them corrupt the process's heap: an SVM free first finishes every
//     queue of the context (the context tracks its queues for this).
//     Pointer info is clGetMemAllocInfoINTEL (CL_MEM_TYPE_UNKNOWN_INTEL is USMUnknown, not
//     an error). SVM has no pointer query: each context records the SVM
//     allocations it made (base, size, kind, device) under a mutex and
//     answers from that record, by binary search for a pointer into the
//     middle of one; any other pointer, including SVM memory another
//     library allocated (so Context.WrapPointer refuses it), is
//     USMUnknown.
//   - USM commands: copies are clEnqueueMemcpyINTEL or clEnqueueSVMMemcpy
//     (either side may be ordinary host memory), fills
//     clEnqueueMemFillINTEL or clEnqueueSVMMemFill. A prefetch is
//     clEnqueueMigrateMemINTEL, or clEnqueueSVMMigrateMem (OpenCL 2.1:
//     not on 2.0 devices), with CL_MIGRATE_MEM_OBJECT_HOST for the host;
//     where the driver has neither, or answers CL_INVALID_OPERATION (an
//     OpenCL 3.0 driver without the optional 2.1 feature), it is a marker
//     after the wait list, a hint with nothing to do that still orders the
//     queue. Advice is
//     always a marker: SVM has none, and cl_intel_unified_shared_memory
//     defines no advice values for clEnqueueMemAdviseINTEL (they are
//     reserved), as Intel's Unified Runtime adapter also finds.
//   - A pointer argument (SetArgPointer) is clSetKernelArgMemPointerINTEL
//     or clSetKernelArgSVMPointer, at any address inside an allocation.
//     OpenCL keeps it with the kernel as it keeps clSetKernelArg's values,
//     so a prepared launch (one clEnqueueNDRangeKernel naming the kernel,
//     queue.go) takes it at its next launch and never goes stale. NVIDIA's
//     driver keeps an SVM pointer argument under a buffer set over it
//     later (the launch fails with CL_INVALID_KERNEL_ARGS): on the user's
//     kernel, keep an argument a pointer or a buffer; launches with
//     arguments take care of it themselves (launchargs.go). A kernel
//     that reaches USM or SVM through a pointer it was not given as an
//     argument (one stored in a struct or in other memory) needs
//     clSetKernelExecInfo (CL_KERNEL_EXEC_INFO_SVM_PTRS, or
//     CL_KERNEL_EXEC_INFO_INDIRECT_{HOST,DEVICE,SHARED}_ACCESS_INTEL),
//     which gour does not call: pass every pointer a kernel dereferences
//     as an argument.
//   - A marker is clEnqueueMarkerWithWaitList, a barrier
//     clEnqueueBarrierWithWaitList.
//   - A sub-buffer is clCreateSubBuffer (CL_BUFFER_CREATE_TYPE_REGION)
//     with the parent's access flags; CL_MISALIGNED_SUB_BUFFER_OFFSET is
//     ErrMisalignedSubBufferOffset, which the front end also gives before
//     the call.
//   - Rectangular copies: between buffers clEnqueueCopyBufferRect; between
//     a buffer and host-accessible memory (Go memory, Intel host or shared
//     USM, fine-grained SVM) clEnqueueWriteBufferRect and
//     clEnqueueReadBufferRect. Those calls take 13 and 14 arguments, past
//     the 12 of internal/dl's fast call, and go through dl.CallMany (purego.SyscallN).
//     OpenCL wants slice pitches that are multiples of the row pitch; a
//     3D region without them is copied slice by slice, each slice's offset
//     folded into its origin. OpenCL has no call between a buffer and
//     device USM (coarse-grained SVM or Intel device memory): that gives
//     ErrUnsupportedFeature. Between pointers (USM, SVM, host memory) a
//     rectangular copy is emulated: one USM copy per row, or per slice
//     where rows are contiguous on both sides, or a single copy where
//     slices are too. Each gets the wait list, and the queue being in
//     order, the last one's event stands for the whole copy.
//   - Native handles: ContextFromNative wraps a cl_context (the devices
//     given must be among CL_CONTEXT_DEVICES), QueueFromNative a
//     cl_command_queue of the context on the device given, and
//     BufferFromNative a cl_mem of the context at least size bytes long.
//     OpenCL counts references, so ownership is one reference: not owned,
//     the wrapper takes its own with clRetain*, which its Release's
//     clRelease* balances, and the caller's stays the caller's; owned, the
//     wrapper takes over the caller's reference, and Release drops it.
//   - Not implemented: OpenCL has no call that page-locks host memory it
//     did not allocate (RegisterHost gives ErrUnsupportedFeature: use
//     AllocHost, or a buffer), no memory pools (the front end pools USM
//     blocks itself, ordered by markers) and no free-memory query.
//
// Image copies (imagecopy.go): on NVIDIA's platform clEnqueueCopyImage
// runs at a fraction of the speed of a buffer copy of the same bytes, and
// a kernel reading and writing each pixel at nearly a buffer copy's
// (docs/benchmarks.md, "Images on CUDA, and image copies by kernel"), so
// there CopyImage enqueues a kernel of the adapter's own for regions of
// at least 1 MiB; PoCL's own copy beats such a kernel and keeps it, as
// every other platform
// does. The kernel is used only where it copies every byte: images of one
// type (3D where every device has cl_khr_3d_image_writes) of float, 8- and
// 16-bit unsigned normalized, or integer channels, in orders without sRGB,
// padding or replicated channels (half floats would lose signalling
// NaNs), made by NewImage (an image from a native handle keeps the
// driver's copy). Its program is built per context on first use, a failed
// build leaving the driver's copy in place, and released with the context.
// GOUR_OPENCL_IMAGE_COPY, read on a context's first image copy, picks auto
// (the default), kernel (wherever allowed) or driver (always
// clEnqueueCopyImage). The CUDA adapter does the same with surface loads
// and stores.
//
// The launch and queue model (ur/driver/launch.go; launchargs.go,
// cmdbuf.go, queuefeatures.go and kernelattrs.go):
//
//   - A launch with arguments (ArgLauncher) sets them with clSetKernelArg
//     (clSetKernelArgMemPointerINTEL or clSetKernelArgSVMPointer for a USM
//     pointer, a size and no value for local memory) on a cl_kernel of the
//     adapter's own, never the user's, and enqueues it; OpenCL takes the
//     arguments at the enqueue. The kernels are clCloneKernel clones
//     (OpenCL 2.1), or clCreateKernel of the kernel's program and name
//     where the driver has no clones or the kernel's own arguments hold a
//     USM pointer, kept in a pool per kernel that grows to the number of
//     launches in flight at once (of each mix of buffer and pointer
//     arguments: no kernel of the pool turns an argument from one kind to
//     the other, which NVIDIA's driver refuses), so goroutines launch one
//     kernel without waiting for each other, and with no wait list and no
//     event nothing is allocated. A pool was measured against one clone per
//     kernel under a lock on PoCL 3.1 (2 cores, median of 8 runs of 20000
//     launches of 64 items,
//     `UR_REQUIRE_ADAPTERS=opencl go test -run '^$' -bench 'BenchmarkLaunchArgs(ClonePool|Locked)' -benchtime=20000x -count=8 ./adapters/opencl/`;
//     docs/benchmarks.md, "Kernel launch: gour vs OpenCL from C, on
//     PoCL"): the pool was a little faster, serial and parallel; PoCL's
//     own queue lock and the kernel's execution dominate both, and the
//     pool is the default. OpenCL has no
//     cooperative launches, no clusters and no dynamic local memory apart
//     from __local arguments: those launch properties are
//     ErrUnsupportedFeature.
//   - Command buffers are cl_khr_command_buffer (clCreateCommandBufferKHR,
//     clCommandNDRangeKernelKHR, clCommandCopyBufferKHR,
//     clCommandFillBufferKHR, clFinalizeCommandBufferKHR,
//     clEnqueueCommandBufferKHR), from
//     clGetExtensionFunctionAddressForPlatform, with the signatures of the
//     lowest version among the context's devices (0.9.0: a properties list
//     on clCommandNDRangeKernelKHR only; 0.9.5: on every command). A context
//     offers them only where all its devices list the extension; elsewhere
//     the front end records and replays the commands itself. A buffer is
//     created for the context's own in-order queue on its device, with
//     CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR where the device has it (else a
//     replay waits for the one before); each command waits for the sync
//     point of the one before, so they run in the order recorded on any
//     queue. A recorded launch runs a kernel of its own (a clone, as above)
//     with the arguments set: PoCL 3.1 reads a recorded kernel's arguments
//     at each replay, so the user's later SetArg must not reach it. A replay
//     names the user's queue where OpenCL takes it as compatible (same
//     device and properties: in order, no profiling); on another queue it
//     runs on the buffer's own queue between a marker of the user's queue
//     and a barrier holding back what follows it there. PoCL needs an event
//     pointer for every replay, so one is always asked for. USM copies and
//     fills are clCommandSVMMemcpyKHR and clCommandSVMMemFillKHR (0.9.4) on
//     an SVM context, ErrUnsupportedFeature otherwise. UpdateLaunch records
//     the buffer again with the launch's new arguments and range and
//     replaces it (OpenCL keeps the old one for the replays enqueued);
//     cl_khr_command_buffer_mutable_dispatch, which would update in place,
//     is not used. A buffer released while it runs is kept by OpenCL until
//     the replays are done.
//   - Queues: OutOfOrder is CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
//     ErrInvalidQueueProperties where CL_DEVICE_QUEUE_ON_HOST_PROPERTIES
//     lacks it. On such a queue order comes from wait lists, markers and
//     barriers only: a blocking read waits for its own wait list, not for
//     the commands before it, and the copies gour makes of several OpenCL
//     commands (rectangular ones) end in a barrier. Priority is
//     cl_khr_priority_hints' CL_QUEUE_PRIORITY_KHR (high for a positive
//     priority, low for a negative one) through
//     clCreateCommandQueueWithProperties, ErrUnsupportedFeature where the
//     device lacks the extension. Empty enqueues a marker, flushes and reads
//     its status: queued means work ahead of it (false at once); submitted
//     or running is read again for up to 5 ms, since drivers retire even a
//     marker with nothing ahead of it on a thread of their own, later
//     than the call returns (docs/benchmarks.md, "Kernel launch: gour vs
//     OpenCL from C, on PoCL").
//   - Event.OnComplete is clSetEventCallback(CL_COMPLETE) with one
//     trampoline per process (dl.NewCallback; purego's callbacks are few
//     and never freed) given an id as user data: it looks the Go function
//     up and starts it on a goroutine, returning at once, so the callback
//     never runs on the driver's thread. The event is retained until the
//     callback has returned. A negative status is the command's error.
//   - Kernel attributes are clGetKernelWorkGroupInfo (CL_KERNEL_WORK_GROUP_SIZE,
//     _PREFERRED_WORK_GROUP_SIZE_MULTIPLE, _LOCAL_MEM_SIZE,
//     _PRIVATE_MEM_SIZE); the largest dynamic local memory is the device's
//     less the static; sub-group sizes are CL_DEVICE_SUB_GROUP_SIZES_INTEL
//     or clGetKernelSubGroupInfo's largest, where answered. OpenCL reports
//     no registers. SuggestLocalSize is
//     clGetKernelSuggestedLocalWorkSizeKHR where the device has
//     cl_khr_suggested_local_work_size, else the largest divisor of the
//     global size within the kernel's work-group limit, or a multiple of
//     the preferred multiple at least half as large: a prime global size
//     past the limit gets groups of one item. MaxCooperativeGroups is
//     ErrUnsupportedFeature.
//   - Program.Global is clGetDeviceGlobalVariablePointerINTEL
//     (cl_intel_global_variable_pointers), ErrUnsupportedFeature elsewhere.
//   - PoCL 3.1 (OpenCL 3.0, pthread device) has clCloneKernel,
//     out-of-order queues and cl_khr_command_buffer 0.9.0 with
//     simultaneous use, and none of cl_khr_command_buffer_mutable_dispatch,
//     the SVM commands, cl_khr_priority_hints,
//     cl_khr_suggested_local_work_size, sub-group queries and
//     cl_intel_global_variable_pointers.
//   - A program made from a PoCL binary built with PoCL's kernel cache off
//     gets a build directory of its own (poclbuilddir.go): PoCL would
//     unpack every program of one binary into the directory the binary
//     names and remove it when the first of them is freed, aborting the
//     process at another's next launch.
//
// Device faults (lost.go): OpenCL has no code for a lost device, and
// NVIDIA's driver reports a kernel that faulted with codes that mean other
// things (measured on an H100: clFinish CL_INVALID_COMMAND_QUEUE, the next
// copy CL_OUT_OF_RESOURCES, a new context -9999). The adapter reports
// ErrDeviceLost, keeping the driver's code, for CL_INVALID_COMMAND_QUEUE
// from any call on a queue (the front end passes only live queues, so the
// driver dropped it), and for CL_OUT_OF_RESOURCES or -9999 from a call
// that waited for a queue (clFinish, clWaitForEvents, a blocking read or
// write, a command's negative status) once the context has made a kernel.
// An enqueue's CL_OUT_OF_RESOURCES stays ErrOutOfResources: a launch that
// needs more of a work-group than the device has gives it too. The front
// end then keeps the context lost (ur/lost.go, docs/design.md, "Device
// faults").
package opencl
