// Package blas is dense linear algebra on gour devices: GEMM (every
// transpose, alpha and beta, leading dimensions, strided and
// pointer-array batches), GEMV and the Level 1 routines (Axpy, Dot, Nrm2,
// Asum, Iamax, Scal, Copy, Swap) on float32, float64, float16 and
// bfloat16, the last two computed in float32; and the triangular solve
// Trsm (every side, triangle, transpose and diagonal) on float32 and
// float64, the solve of LU and Cholesky factors with many right-hand
// sides.
//
// Matrices are row-major, as Go and C arrays and gonum's are. Operands
// are device memory: USM pointers (OnPtr) or buffers with an offset
// (OnBuffer). A Handle enqueues every routine on its queue, in the
// queue's order, and never waits for the device; a result of a
// reduction (Dot, Nrm2, ...) is written to device memory, as with
// cuBLAS's device pointer mode.
//
// # Level 1
//
// The Level 1 routines work on vectors of n elements, incX (incY)
// elements apart. A negative increment walks the vector from its last
// element, as in BLAS; Nrm2, Asum, Iamax and Scal take positive
// increments only. A routine's scalar result is written to a device
// operand (one element of the type; an int32 for Iamax, 0-based, -1 for
// no element), as cuBLAS's device pointer mode does, so nothing waits
// for the device: read it after the queue has run the call.
//
// # Backends
//
// A Handle runs on one of:
//
//   - "cublas": NVIDIA cuBLAS and cuBLASLt on CUDA devices, loaded at run
//     time (no CUDA toolkit needed to build).
//   - "clblast": CLBlast on OpenCL devices (libclblast.so.1, Debian
//     package libclblast1), loaded at run time. CLBlast takes buffers:
//     calls on USM pointers run on the own kernels, as do bfloat16,
//     negative increments, empty products, Nrm2 and Iamax, Trsm with
//     alpha 0, pointer batches whose matrices are not in one buffer
//     each, and beta 0 on a C whose rows have gaps (CLBlast would read
//     C).
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
// # The own kernels
//
// Each element type's kernels are one program. GEMM is tiled: a
// work-group computes a 128×128 block of C on GPUs (64×64 elsewhere, and
// through SPIR-V, whose vectors LLVM's 8×8 micro-tiles would exceed; 32×32
// where work-groups are smaller than 256), each work-item an 8×8 (4×4)
// micro-tile in registers, stepping through K with A's and B's slices in
// local memory, the next slice loaded into registers while the current
// one is multiplied. Loads outside the matrices read zeros, so edges take
// the same path; float32 moves four elements at a time where every
// dimension, leading dimension and offset is a multiple of four. The
// transposes are four kernels, the batch the grid's third dimension.
// Trsm is blocked so that its arithmetic is mostly GEMM: one kernel
// inverts op(A)'s diagonal blocks (as large as a GEMM tile's rows, each
// column of an inverse a work-item's substitution), then each block of
// B is solved by a product with its block's inverse and subtracted from
// every block still to solve by one large product (right-looking), with
// the GEMM kernels above. With many right-hand sides it runs near GEMM's
// speed; a single right-hand side is a GEMV's worth of work in many
// launches, which a device does not do faster than a host.
// Reductions (Dot, Nrm2, Asum, Iamax) are two passes of a tree in local
// memory without atomics, so a result is the same on every run; Nrm2
// scales as LAPACK's lassq does, so no square overflows.
//
// # Errors
//
// Arguments are checked before anything is enqueued: a refused call has
// written nothing. Shapes, leading dimensions, increments, operands that
// are nil, released, of another context or too small for what the
// arguments describe, and a type the device lacks are each an *ArgError
// naming the argument, matching a ur result code with errors.Is
// (ur.ErrInvalidValue, ur.ErrInvalidSize, ur.ErrUnsupportedFeature, ...).
// A pointer into freed USM is refused too (ur.Ptr.Check), also where the
// address goes to a vendor library: an *ArgError matching
// ur.ErrInvalidMemObject.
package blas
