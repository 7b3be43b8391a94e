// Package ur is gour's Unified Runtime: one Go API over the accelerator
// drivers of several vendors (OpenCL, CUDA, Level Zero).
//
// The handles follow the Unified Runtime: an Adapter per vendor API, its
// Platforms and Devices, and per Context its Queues, buffers (Mem),
// Programs, Kernels and Events. Adapters are found at run time: each opens
// its vendor library with dlopen and, when the library or a device is
// missing, is reported in System.Statuses with the reason instead of
// failing the program. Import the adapters you want, usually all of them:
//
//	import _ "github.com/gour-dev/gour/adapters/all"
//
// Discovery honours UR_ADAPTERS_FORCE_LOAD (only these adapters) and
// ONEAPI_DEVICE_SELECTOR (e.g. "opencl:cpu", "cuda:0", "!level_zero:*"),
// as the Unified Runtime and SYCL do.
//
// Every failure is an *Error carrying a Result code with the Unified
// Runtime's name and number, the call, the adapter, the vendor's own code
// and, for builds, the build log; errors.Is(err, ErrOutOfDeviceMemory)
// tests for a code. Every handle has a Release method; a released, nil or
// foreign handle gives an error, never a crash, and a Release racing a
// call on the same handle is deferred until the call returns. A kernel's
// fault on the device is ErrDeviceLost on every adapter, and sticky: the
// context's later calls give it too, and Context.Lost and Device.Lost
// report it (package supervise replaces a process whose device is lost).
//
// A typical sequence:
//
//	dev, _ := ur.DefaultDevice()
//	ctx, _ := ur.NewContext(dev)
//	q, _ := ctx.NewQueue(dev, ur.QueueProperties{})
//	prog, _ := ctx.NewProgramFromSource(src)
//	err := prog.Build("")             // errors carry the build log
//	k, _ := prog.NewKernel("axpy")
//	x, _ := ctx.NewBufferFrom(ur.MemReadOnly, ur.AsBytes(xs))
//	q.Launch(k, ur.Range1D(n), ur.ArgOf(float32(2)), ur.ArgBuffer(x)) // no event, no allocation
//	q.ReadBuffer(y, 0, ur.AsBytes(ys))                                // blocking
//
// Queue.Launch is the one way to launch. Given arguments it takes them
// with the launch, so goroutines launch one kernel at once; given none,
// the kernel runs with the arguments set on it (Kernel.SetArg*), as in
// OpenCL. Queue.EnqueueLaunch is the same launch with a wait list, launch
// properties and an event.
//
// Code that makes the same launch many times can check it once with
// Queue.PrepareLaunch: each PreparedLaunch.Launch then takes the kernel's
// current arguments and, on CUDA and OpenCL, is the driver's launch call
// and little more. Queue.Launch does the same by itself for a launch it
// sees repeated (the same kernel, queue and range twice in a row).
//
// A context may hold several devices of one platform, on every adapter:
// buffers and USM are the context's, a program is built for all of its
// devices, and an event of one device's queue may stand in another
// device's wait list. Device.Partition splits a device into sub-devices
// (OpenCL, Level Zero), Device.PeerAccess and EnablePeerAccess let one
// device's kernels use another's memory, and Queue.EnqueuePeerCopy copies
// between the memory of two devices or two contexts, directly or staged
// through host memory (Queue.PeerCopyPath says which).
package ur
