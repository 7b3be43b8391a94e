// Package levelzero is gour's Level Zero adapter, over the oneAPI Level
// Zero loader (libze_loader.so.1, else libze_loader.so) opened at run time.
//
// Importing the package registers the adapter under the name "level_zero".
// How Level Zero maps onto the handles of package ur:
//
//   - Discovery calls zeInitDrivers (GPU drivers) when the loader has it
//     (spec 1.10), else zeInit + zeDriverGet; a platform is a driver, a
//     device one of its root devices. With the loader but no driver, Open
//     fails with "level_zero: no driver/device" and the loader's code; with
//     no loader, with the dlopen errors. Device info comes from
//     zeDeviceGetProperties (compute units are EUs: numEUsPerSubslice ×
//     numSubslicesPerSlice × numSlices), zeDeviceGetComputeProperties,
//     zeDeviceGetModuleProperties (SPIR-V version, fp16/fp64) and
//     zeDeviceGetMemoryProperties (global memory is the sum of the
//     device's memories).
//   - A Context is a ze_context_handle_t over the devices given
//     (zeContextCreateEx), all of one driver. Queues, buffers, programs
//     and events made in it may outlive Context.Release: the Level Zero
//     context is destroyed with the last of them.
//   - A Queue is one asynchronous immediate command list
//     (zeCommandListCreateImmediate) on the device's compute queue group.
//     Immediate lists, not regular ones, because gour's queues submit each
//     command when it is enqueued and Flush has nothing to batch: an
//     immediate list does exactly that with no close / execute / fence
//     round trip per submission, which keeps the launch path to one driver
//     call, and it is what Intel's own Unified Runtime adapter uses by
//     default on current GPUs. In-order execution comes from the driver
//     (ZE_COMMAND_QUEUE_FLAG_IN_ORDER) when its API version is 1.9 or
//     later, else from a barrier appended between commands. Finish is
//     zeCommandListHostSynchronize, or, with a loader older than spec 1.6
//     (Debian's 1.8 loader is spec 1.4), a barrier signalling an event the
//     host waits on. Appends to one queue are serialised with a mutex, as
//     Level Zero requires.
//   - An Event comes from the context's event pools (host-visible; with
//     ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP on a profiling queue, read with
//     zeEventQueryKernelTimestamp and converted to the host clock through
//     zeDeviceGetGlobalTimestamps at queue creation).
//   - A Mem is a device allocation (zeMemAllocDevice) in a one-device
//     context, a shared allocation (zeMemAllocShared) in a context of
//     several. Freeing memory, kernels and modules first waits for the
//     context's queues: Level Zero requires that the device no longer uses
//     them.
//   - A Program is SPIR-V (NewProgramFromIL) or native binaries
//     (NewProgramFromBinaries): Build calls zeModuleCreate per device with
//     ZE_MODULE_FORMAT_IL_SPIRV or ZE_MODULE_FORMAT_NATIVE, the options as
//     build flags and the specialization constants SetSpecConstant
//     recorded (ze_module_constants_t); the build log comes from
//     zeModuleBuildLogGetString; Binaries is zeModuleGetNativeBinary, what
//     a cache loads next time without the SPIR-V compile. Level Zero has no
//     source language: NewProgramFromSource gives ErrUnsupportedFeature.
//     Compile records options; Link builds one SPIR-V program, or several
//     with ZE_experimental_module_program.
//   - A Kernel is a ze_kernel_handle_t per device; arguments go through
//     zeKernelSetArgumentValue (a buffer as its device address, a local
//     argument as a size), the work-group size through zeKernelSetGroupSize
//     (zeKernelSuggestGroupSize when the launch gives none), and a launch
//     is zeCommandListAppendLaunchKernel with a ze_group_count_t. A global
//     size the local size does not divide gives ErrInvalidWorkGroupSize; a
//     global offset needs zeKernelSetGlobalOffsetExp, else
//     ErrUnsupportedFeature.
//
// The memory model beyond whole buffers (ur/driver/memory.go; memory.go
// and queue_memory.go):
//
//   - Device info: USM comes from zeDeviceGetMemoryAccessProperties (a
//     kind whose capabilities are not zero is supported: device, host and
//     single-device shared allocations; Via "level_zero").
//     MemBaseAddrAlign is 1 byte, as Intel's Unified Runtime adapter
//     reports 8 bits: a sub-buffer is a pointer, at any byte.
//     HostUnifiedMemory is ZE_DEVICE_PROPERTY_FLAG_INTEGRATED (or a CPU
//     device).
//   - USM allocations are zeMemAllocDevice, zeMemAllocHost and
//     zeMemAllocShared (on the given device) with the alignment asked
//     for; each holds the context, as buffers do. USMFree first waits for
//     the context's queues, as buffer release does (Level Zero requires
//     that the device no longer uses memory it frees), then calls
//     zeMemFree. Pointer info is zeMemGetAllocProperties (type and
//     device; ZE_MEMORY_TYPE_UNKNOWN is USMUnknown, not an error) and
//     zeMemGetAddressRange (base and size).
//   - USM commands: copies are zeCommandListAppendMemoryCopy, fills are
//     FillBuffer's (zeCommandListAppendMemoryFill, or doubling copies for
//     patterns longer than the engine fills). Prefetch and advice take no
//     events in Level Zero: the wait list goes before them as
//     zeCommandListAppendWaitOnEvents and the event after them as a
//     signalling barrier. zeCommandListAppendMemoryPrefetch moves shared
//     memory to the queue's device only; a prefetch to the host, or of
//     other memory, only orders the queue. zeCommandListAppendMemAdvise,
//     on shared memory with the queue's device, maps AdviseReadMostly and
//     AdviseClearReadMostly to SET/CLEAR_READ_MOSTLY, AdvisePreferDevice
//     to SET_PREFERRED_LOCATION and AdvisePreferHost to
//     CLEAR_PREFERRED_LOCATION (Level Zero 1.4 names no host location);
//     the accessed-by advice has no Level Zero counterpart and only orders
//     the queue, as advice about other memory does.
//   - A pointer argument (SetArgPointer) is the address passed to
//     zeKernelSetArgumentValue, as a buffer's is.
//   - A marker is zeCommandListAppendBarrier signalling its event after
//     the wait list: it completes after everything before it, and later
//     commands start after it, so a barrier is the same.
//   - A sub-buffer is the parent's address plus the offset; releasing it
//     frees nothing.
//   - A rectangular copy, between buffers, pointers and host memory, is
//     one zeCommandListAppendMemoryCopyRegion. Its ze_copy_region_t and
//     pitches are 32-bit: the origins are folded into the pointers, and
//     extents or pitches past 4 GiB give ErrUnsupportedSize. A 2D copy
//     has depth 0 and no slice pitch, as Level Zero asks.
//   - Sharing between processes: memory is zeMemGetIpcHandle and
//     zeMemOpenIpcHandle (ipc.go). Level Zero shares event pools, not
//     events (ipcevent.go): an IPC event is the one slot of a pool of its
//     own made with ZE_EVENT_POOL_FLAG_IPC, whose zeEventPoolGetIpcHandle
//     is the handle; the other process opens the pool
//     (zeEventPoolOpenIpcHandle) and creates the event of slot 0 in it.
//     Events keep their state, so a signal is
//     zeCommandListAppendEventReset, then a barrier that signals the
//     event; a wait is zeCommandListAppendWaitOnEvents. Release destroys
//     the event, then destroys the pool or, for an opened one, closes it
//     (zeEventPoolCloseIpcHandle).
//   - Native handles: ContextFromNative wraps a ze_context_handle_t over
//     the devices given, QueueFromNative an immediate
//     ze_command_list_handle_t (ordered with barriers, since Level Zero
//     1.4 cannot tell whether it was created in order), BufferFromNative
//     a device pointer. Owned, they are destroyed (zeContextDestroy once
//     everything made in the context is released, zeCommandListDestroy,
//     zeMemFree) with their wrapper; otherwise nothing is.
//   - Not implemented: Level Zero core has no memory pools (the front end
//     pools USM blocks itself, ordered by markers), no call that
//     page-locks host memory it did not allocate (RegisterHost gives
//     ErrUnsupportedFeature: use AllocHost), and no free-memory query.
//     Sysman's zesMemoryGetState needs a Sysman device handle, which
//     takes zesInit (spec 1.5, newer than Debian's loader) or
//     ZES_ENABLE_SYSMAN=1 in the environment before zeInit, which a
//     library cannot promise; so Device.FreeMemory gives
//     ErrUnsupportedFeature rather than a guess.
//
// The launch and queue model (ur/driver/launch.go; launch.go and
// cmdbuf.go):
//
//   - LaunchWithArgs sets the launch's arguments on a kernel handle
//     borrowed from a per-kernel, per-device pool of zeKernelCreate'd
//     handles of the same module and name, appends the launch and gives
//     the handle back: Level Zero reads arguments, group size and offset
//     when a launch is appended, so the kernel's own handle and arguments
//     stay untouched and launches of one kernel on several queues need no
//     common lock (a lock around zeKernelSetArgumentValue + append would
//     serialise them and overwrite SetArg*'s values). Once the pool holds
//     as many handles as launches ran at once, a launch allocates nothing.
//     Cooperative launches are zeCommandListAppendLaunchCooperativeKernel,
//     on a compute group with ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS;
//     dynamic work-group memory (Level Zero has none beyond local
//     arguments) and clusters give ErrUnsupportedFeature.
//   - Queue properties: OutOfOrder is an immediate list without the
//     in-order flag and without the adapter's barriers between commands
//     (the copies of one long fill stay ordered); Priority maps positive
//     to ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH, negative to _LOW.
//     Empty is zeCommandListHostSynchronize with a timeout of 0; with a
//     loader older than spec 1.6 a barrier signals a probe event, kept
//     until it completes and asked again while nothing was appended.
//   - Kernel attributes come from zeKernelGetProperties (private memory
//     is private plus spill memory; Level Zero reports no registers and
//     has no dynamic work-group memory), SuggestLocalSize from
//     zeKernelSuggestGroupSize made to divide the global size, and
//     MaxCooperativeGroups from zeKernelSuggestMaxCooperativeGroupCount
//     on a pooled handle given the group size. Program.Global is
//     zeModuleGetGlobalPointer. Level Zero has no completion callbacks:
//     the front end's goroutine waits on the event.
//   - A command buffer is a regular command list (zeCommandListCreate)
//     closed at Finalize and executed by zeCommandQueueExecuteCommandLists
//     on a command queue of its own, with a fence. Commands are recorded
//     each after a barrier (spec 1.4 has no in-order regular lists); a
//     launch records its own kernel handle, since the list uses it until
//     destroyed and UpdateLaunch changes it. A closed list takes no wait
//     events, so an Enqueue executes three lists: a prefix waiting on an
//     event the queue's immediate list signals with a barrier after its
//     earlier commands and the wait list, the recording, and a suffix
//     whose barrier signals the replay's event, which the queue's list
//     then waits on. The host waits only for the buffer's previous replay
//     (its fence) before the prefix and suffix are recorded again.
//     UpdateLaunch waits for that replay too, sets the new arguments and
//     range on the launch's handle and records the list again
//     (zeCommandListReset): the mutable command list extension is spec
//     1.9, newer than the loader's headers gour is checked against.
//
// Images and samplers (ur/driver/image.go; image.go):
//
//   - Formats map onto ze_image_format_t as the Unified Runtime's Level
//     Zero adapter reads them back: the layout from the channel count and
//     width (8, 16, 32 bits; 5_6_5, 5_5_5_1 and 10_10_10_2 for the packed
//     types), the type (UINT, SINT, UNORM, SNORM, FLOAT), and swizzles
//     naming the channels in memory order (BGRA is B, G, R, A), the
//     missing ones 0 (alpha 1). Level Zero 1.4 has no three-channel
//     layout but the packed ones, and no intensity, luminance or sRGB:
//     those formats are never listed. SupportedImageFormats asks
//     zeImageGetProperties of every other format on every device of the
//     context, once per context, access and image type; a format the
//     devices lack is ErrUnsupportedImageFormat naming it. IMAGE_SUPPORTED
//     and the size limits come from zeDeviceGetImageProperties.
//   - An image is zeImageCreate (ZE_IMAGE_FLAG_KERNEL_WRITE unless read
//     only) on the context's first device, as Intel's adapter does: a
//     Level Zero image belongs to one device. Host data is copied in on
//     the context's synchronous list. Release waits for the context's
//     queues, then zeImageDestroy.
//   - Reads and writes are zeCommandListAppendImageCopyToMemory and
//     FromMemory, which take tightly packed pixels: host memory with
//     other pitches goes through a packed copy on the host, and such a
//     read waits for the queue before unpacking. Image copies are
//     zeCommandListAppendImageCopy (whole images of one size) or
//     zeCommandListAppendImageCopyRegion; image↔buffer copies the same
//     to and from the buffer's address. Level Zero has no image fill: a
//     fill copies a host buffer of the region's pixels, encoded from the
//     color as the format stores them (rounded and saturated, as OpenCL's
//     writes are).
//   - A sampler is zeSamplerCreate (clamp to edge is Level Zero's clamp,
//     clamp its clamp to border). Kernels take an image or a sampler as
//     its ze_image_handle_t or ze_sampler_handle_t value through
//     zeKernelSetArgumentValue, SetArgMem and launch arguments alike.
//
// Status: the adapter has not run on Intel hardware. The bindings'
// structure layouts and constants are checked against ze_api.h
// (layout_cgo_test.go in internal/ze); discovery without a driver and
// without the loader is tested; and fakedriver_test.go runs the adapter end
// to end through the real loader, with its validation layer, over a fake
// driver (testdata/fakedriver) that checks every call and runs the
// conformance kernels in C.
package levelzero
