// Package cu is the raw binding of the CUDA driver API (libcuda.so.1),
// called without cgo through internal/dl.
//
// It holds no logic: each method of [Lib] calls one C function with
// Go-typed arguments and returns the CUresult as a [Result]. Output
// parameters of scalar type (counts, handles, sizes, device pointers) are
// returned as values, written by C into a pooled call frame (dl.Frame), so
// that the calls allocate nothing. The versioned entry points (cuMemAlloc_v2,
// cuCtxPushCurrent_v2, ...) are resolved by their exported names, which is
// what cuda.h's macros map the plain names to.
//
// A few helpers sit on top of the raw calls: [Lib.DeviceName],
// [Lib.Attribute], [Lib.ModuleLoadDataEx] (which captures the JIT info and
// error logs) and [Lib.Link] (cuLinkCreate → cuLinkAddData → cuLinkComplete,
// copying the cubin out of driver memory before cuLinkDestroy).
//
// Hot-path calls (LaunchKernel, the asynchronous copies and memsets, event
// record and query, stream query and synchronize) make no Go allocation when
// the pointers they get already point to heap memory the caller keeps. A
// pointer to a local variable moves that variable to the heap (see dl.Frame).
//
// Memory the driver reads after a call returns (the host side of an
// asynchronous copy, the kernel parameters of a launch until the launch call
// returns) must stay referenced by the caller; Go's collector does not move
// heap objects, so referenced memory stays where C expects it.
//
// Entry points that only newer drivers export are optional: their address is
// zero when missing, a Has… method reports them, and calling one returns
// [NotSupported] without calling C. Load never panics; on a machine without
// the driver it returns an error naming the libraries it tried.
//
// The binding targets 64-bit platforms, where size_t, CUdeviceptr and handles
// all fit one uintptr argument.
package cu
