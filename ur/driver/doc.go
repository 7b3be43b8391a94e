// Package driver defines the interfaces a gour adapter implements, the
// result codes every adapter reports, and the registry adapters join in
// their init functions.
//
// It plays the role database/sql/driver plays for database/sql: users never
// program against it. The front end in package ur validates parameters,
// owns handle lifetimes and shapes errors, so an adapter only translates
// calls into its vendor's API. An adapter may therefore assume that every
// handle it receives is one of its own, not nil and not released.
//
// # Required and optional interfaces
//
// Every adapter implements Adapter, Platform, Device, Context, Queue,
// Mem, Program, Kernel and Event. Everything else is optional: the front
// end asks for an optional interface with a type assertion on the handle
// named below, and where the adapter lacks it, either does without (an
// emulation, a slower path, a default answer) or fails the call with
// ur.ErrUnsupportedFeature, whose message names what the adapter lacks.
// Interfaces marked "returned" are not optional in themselves: they are
// the objects an optional interface's methods return. Each entry reads:
// interface (the handle that implements it) — what it adds — what ur does
// without it.
//
// Launches:
//
//   - LaunchPreparer (Queue) — PrepareLaunch, a launch of one kernel over
//     one range checked once: ur.Queue.PrepareLaunch, and a Queue.Launch
//     repeated on the same queue over the same range. Without it every
//     PreparedLaunch.Launch goes through Queue.Launch and repeated
//     launches are never prepared; nothing fails.
//   - PreparedLaunch (returned by LaunchPreparer) — the prepared launch;
//     a *NativeCall is one C call ur makes itself.
//   - ArgLauncher (Queue) — LaunchWithArgs, a launch with its arguments
//     that leaves the kernel's own untouched: ur.Queue.Launch and
//     EnqueueLaunch given arguments, ArgLaunch and emulated command
//     buffers. Without
//     it ur sets the arguments on the kernel and calls Queue.Launch under
//     the kernel's lock, so launches of one kernel serialise; a launch
//     with LaunchProperties fails with ErrUnsupportedFeature ("takes no
//     launch properties"), and a USM pointer argument needs PointerKernel.
//   - ArgLaunchPreparer (Queue) — PrepareArgLaunch, a launch with its own
//     argument table: ur.Queue.PrepareLaunchArgs, and a launch with
//     arguments repeated on the same queue and range with no wait list,
//     event, properties or ArgBytes value. Without it each
//     ArgLaunch.Launch goes the way a launch with arguments does and
//     repeated ones are never prepared; nothing fails.
//   - PreparedArgLaunch (returned by ArgLaunchPreparer) — the prepared
//     launch with its table.
//   - ReplayPreparer (Queue) — PrepareReplay, a launch of an emulated
//     command buffer prepared once per queue, holding driver objects ur
//     releases. Without it ur prepares with ArgLaunchPreparer, else
//     replays each launch through LaunchWithArgs, else as a launch with
//     arguments does without ArgLauncher.
//   - ReplayLaunch (returned by ReplayPreparer).
//   - KernelAttributes (Kernel) — ur.Kernel.Attributes, SuggestLocalSize
//     and MaxCooperativeGroups. Without it all three fail with
//     ErrUnsupportedFeature ("reports no kernel attributes").
//   - GlobalsProgram (Program) — ur.Program.Global, a program's global
//     variable as USM. Without it ErrUnsupportedFeature.
//   - BinarySizer (Program) — ur.Program.BinarySizes without copying the
//     binaries. Without it ur calls Binaries and measures them.
//
// Command buffers:
//
//   - CommandBufferContext (Context) — native command buffers
//     (ur.Context.NewCommandBuffer). Without it CommandBufferAuto (the
//     default) emulates them, as CommandBufferEmulated always does: ur
//     records the commands and replays them itself (see ReplayPreparer);
//     CommandBufferNative fails with ErrUnsupportedFeature ("the driver
//     has no command buffers").
//   - CommandBuffer, Command (returned by CommandBufferContext and
//     CaptureQueue).
//   - CommandBufferAdvisor (Context) — NativeCommandBufferSlower: under
//     CommandBufferAuto, ur emulates on a device where the native ones
//     replay slower. Without it CommandBufferAuto takes the native ones
//     wherever the context has CommandBufferContext.
//   - CaptureQueue (Queue) — ur.Queue.BeginCapture and EndCapture. Without
//     it both fail with ErrUnsupportedFeature; record with
//     CommandBuffer's Append methods instead.
//
// Queues, events and timestamps:
//
//   - MarkerQueue (Queue) — Marker: ur.Queue.EnqueueMarker and
//     EnqueueBarrier, which without it fail with ErrUnsupportedFeature
//     ("queues have no markers"). ur orders other commands with it too;
//     without it EnqueueMapBuffer of a MapWriteInvalidateRegion mapping
//     and EnqueueUnmap of a mapping not written back wait for their wait
//     list on the host and return no event, a Pool finishes a queue
//     where it would mark it before the queue's idle blocks serve other
//     queues, and EnqueueTimestampRecording loses its fallback (see
//     TimestampQueue).
//   - QueueFeatures (Queue) — ur.Queue.IsEmpty. Without it
//     ErrUnsupportedFeature.
//   - NativeContextQueue (Queue) — ur.Queue.NativeContext, the native
//     context the queue's commands run in. Without it the queue's
//     context's Native.
//   - EventCallbacks (Event) — ur.Event.OnComplete through the driver.
//     Without it ur starts a goroutine per callback that waits for the
//     event.
//   - TimestampQueue (Queue) — ur.Queue.EnqueueTimestampRecording through
//     the driver. Without it ur enqueues a marker (MarkerQueue) on the
//     profiling queue and reads its profiling; without either,
//     ErrUnsupportedFeature.
//   - TimestampDevice (Device) — ur.Device.GlobalTimestamps. Without it
//     ErrUnsupportedFeature.
//   - PrintfContext (Context) — ur.Context.SetPrintfBufferSize and
//     PrintfBufferSize. Without it SetPrintfBufferSize fails with
//     ErrUnsupportedFeature, and PrintfBufferSize answers the first
//     device's UR_DEVICE_INFO_PRINTF_BUFFER_SIZE.
//   - StdioFlusher (Adapter) — FlushStdio, after the Finish of
//     ur.Queue.FinishPrintf. Without it FinishPrintf only finishes the
//     queue.
//
// Devices:
//
//   - DeviceQuerier (Device) — Query, the answers to ur.Device.Query
//     (UR_DEVICE_INFO_*) that ur cannot make itself. Without it, or where
//     Query reports the query unsupported, ur answers from DeviceInfo and
//     what it knows (the USM support queries from DeviceInfo.USM,
//     UR_DEVICE_INFO_VIRTUAL_MEMORY_SUPPORT false), and otherwise fails
//     with ErrUnsupportedFeature matching ErrUnsupportedEnumeration.
//   - MemoryReporter (Device) — ur.Device.FreeMemory. Without it
//     ErrUnsupportedFeature.
//   - PartitionDevice (Device) — ur.Device.PartitionInfo and Partition.
//     Without it PartitionInfo is empty and Partition fails with
//     ErrUnsupportedFeature.
//   - SubDevice (the devices Partition returns) — PartitionType and
//     Release. Without it a sub-device reports the partition it was asked
//     for, and releasing it frees nothing in the driver.
//   - PeerDevice (Device) — ur.Device.PeerAccess, EnablePeerAccess and
//     DisablePeerAccess. Without it PeerAccess reports no direct path (Via
//     "host"; "same-device" for a device and itself), and Enable and
//     DisablePeerAccess fail with ErrUnsupportedFeature.
//   - PeerCopyQueue (Queue) — ur.Queue.EnqueuePeerCopy and
//     EnqueuePeerCopyBuffer between two contexts as one command. Without
//     it ur stages the copy through host memory (CopyStaged).
//
// Memory:
//
//   - USMContext (Context) — USM: ur.Context.Alloc, AllocDevice,
//     AllocHost, AllocShared and PointerInfo, and ur.Context.NewPool.
//     Without it all of these fail with ErrUnsupportedFeature ("has no
//     unified shared memory").
//   - USMQueue (Queue) — USM commands: ur.Queue.EnqueueMemcpy, CopyToPtr,
//     CopyFromPtr and their Enqueue forms, EnqueueMemFill,
//     EnqueuePrefetch and EnqueueAdvise. Without it ErrUnsupportedFeature.
//   - PointerKernel (Kernel) — SetArgPointer: ur.Kernel.SetArgPtr, and an
//     ArgPtr argument on a queue without ArgLauncher. Without it
//     ErrUnsupportedFeature ("kernels take no USM pointers").
//   - PoolContext (Context) — driver memory pools under ur.Pool. Without
//     it (or with PoolOptions.ContextAlloc) ur pools blocks it allocates
//     with USMAlloc itself.
//   - Pool (returned by PoolContext).
//   - PoolQueue (Queue) — allocation and free from a driver pool in
//     stream order. Without it a Pool allocates its blocks with USMAlloc
//     and frees them with USMFree once their queue has run past them.
//   - HostRegisterContext (Context) — ur.Context.RegisterHost. Without it
//     ErrUnsupportedFeature (allocate with AllocHost instead).
//   - SubBufferMem (Mem) — ur.Mem.SubBuffer. Without it
//     ErrUnsupportedFeature ("makes no sub-buffers").
//   - RectQueue (Queue) — ur.Queue.CopyRect and EnqueueCopyRect. Without
//     it ErrUnsupportedFeature.
//   - NativeWrapper (Adapter) — ur.WrapContext. Without it
//     ErrUnsupportedFeature.
//   - NativeContext (Context) — ur.Context.WrapQueue and WrapBuffer.
//     Without it ErrUnsupportedFeature.
//
// Images:
//
//   - ImageContext (Context) — ur.Context.SupportedImageFormats, NewImage
//     and NewSampler. Without it ErrUnsupportedFeature ("has no images");
//     with it, they still fail so on a context with a device whose
//     UR_DEVICE_INFO_IMAGE_SUPPORTED is false.
//   - Sampler (returned by ImageContext).
//   - ImageQueue (Queue) — ur.Queue.EnqueueReadImage, EnqueueWriteImage,
//     EnqueueCopyImage, EnqueueFillImage, EnqueueCopyImageToBuffer and
//     EnqueueCopyBufferToImage. Without it ErrUnsupportedFeature.
//   - SamplerKernel (Kernel) — ur.Kernel.SetArgSampler. Without it
//     ErrUnsupportedFeature.
//
// Between processes:
//
//   - IPCContext (Context) — ur.USM.IPCHandle and
//     ur.Context.OpenIPCMemHandle. Without it ErrUnsupportedFeature
//     ("cannot share memory between processes").
//   - IPCEventContext (Context) — ur.Context.NewIPCEvent and OpenIPCEvent,
//     and with them Queue.SignalIPCEvent and WaitIPCEvent. Without it
//     ErrUnsupportedFeature ("cannot share events between processes").
//   - IPCEvent (returned by IPCEventContext).
//
// Virtual memory:
//
//   - VirtualMemContext (Context) — ur.Context.VirtualMemGranularity,
//     ReserveVirtualMem and NewPhysicalMem, and through them VirtualMem's
//     Map, Unmap and SetAccess. Without it the three fail with
//     ErrUnsupportedFeature ("has no virtual memory").
//   - PhysicalMem (returned by VirtualMemContext).
package driver
