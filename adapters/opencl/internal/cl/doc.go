// Package cl is the raw OpenCL 1.2–3.0 binding over the ICD loader
// (libOpenCL.so.1), called without cgo through internal/dl.
//
// It holds no logic: each method of [Lib] calls one C function with
// Go-typed arguments and returns the cl_int result as a [Status]; functions
// that create an object return the handle and the errcode_ret status. Info
// helpers (PlatformInfo, DeviceInfo, ...) run the usual size-then-data query.
//
// Pointers passed to a method are handed to C as they are. The hot-path
// calls, SetKernelArg and EnqueueNDRangeKernel, make no Go allocation when
// the pointers they get already point to heap memory the caller keeps; so do
// the other calls without a string, list or errcode_ret to build (enqueues,
// Flush, Finish, WaitForEvents, retain and release). Setup calls may
// allocate.
//
// Memory that C keeps after the call returns (CL_MEM_USE_HOST_PTR buffers,
// non-blocking reads and writes) must not be Go memory the collector can
// free: keep it referenced until the command is complete.
//
// The binding targets 64-bit platforms, where size_t, cl_bitfield and
// pointers all fit one uintptr argument.
package cl
