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
// allocation and release) is in flight in the adapter. Every kernel is
// loaded when it is created (cuFuncLoad, CUDA 12.4), so that no launch
// loads it lazily; drivers without cuFuncLoad make no quick calls. Set
// GOUR_CUDA_QUICK_LAUNCH=0 to make none where other libraries in the
// process use CUDA with lazy loading, which can make a launch wait.
package cuda
