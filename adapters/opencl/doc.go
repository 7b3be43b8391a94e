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
//     clSVMFree does not wait: commands still using SVM memory are the
//     caller's to wait for, as driver.USMContext allows. Pointer info is
//     clGetMemAllocInfoINTEL (CL_MEM_TYPE_UNKNOWN_INTEL is USMUnknown, not
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
//     queue.go) takes it at its next launch and never goes stale. A kernel
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
package opencl
