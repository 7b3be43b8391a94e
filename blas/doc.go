// Package blas is dense linear algebra on gour devices: GEMM (every
// transpose, alpha and beta, leading dimensions, strided and
// pointer-array batches), GEMV and the Level 1 routines (Axpy, Dot, Nrm2,
// Asum, Iamax, Scal, Copy, Swap) on float32, float64, float16 and
// bfloat16, the last two computed in float32.
//
// Matrices are row-major, as Go and C arrays and gonum's are. Operands
// are device memory: USM pointers (OnPtr) or buffers with an offset
// (OnBuffer). A Handle enqueues every routine on its queue, in the
// queue's order, and never waits for the device; a result of a
// reduction (Dot, Nrm2, ...) is written to device memory, as with
// cuBLAS's device pointer mode.
//
// # Backends
//
// A Handle runs on one of:
//
//   - "cublas": NVIDIA cuBLAS and cuBLASLt on CUDA devices, loaded at run
//     time (no CUDA toolkit needed to build).
//   - "clblast": CLBlast on OpenCL devices (libclblast.so.1, Debian
//     package libclblast1), loaded at run time. CLBlast takes buffers:
//     calls on USM pointers, bfloat16, negative increments and pointer
//     batches that are not one buffer each run on the own kernels.
//   - "gour": the package's own kernels, OpenCL C and CUDA C (OpenCL C
//     through SPIR-V on Level Zero), built with the program manager and so
//     cached in memory and on disk like any program. They serve every
//     device, and whatever a vendor library cannot.
//
// Options.Backend "" takes the device's vendor library where it loads
// and the own kernels elsewhere; a backend asked for by name that cannot
// serve the device is an error wrapping ErrLibraryUnavailable.
// Available says which libraries load for a device, and why not.
//
// # Errors
//
// Arguments are checked before anything is enqueued: a refused call has
// written nothing. Shapes, leading dimensions, increments, operands that
// are nil, released, of another context or too small for what the
// arguments describe, and a type the device lacks are each an *ArgError
// naming the argument, matching a ur result code with errors.Is
// (ur.ErrInvalidValue, ur.ErrInvalidSize, ur.ErrUnsupportedFeature, ...).
package blas
