// Package gomlx is gour as a GoMLX compute backend: an implementation of
// github.com/gomlx/compute's Backend on one gour device, registered under
// the name "gour".
//
// # Using it
//
// Import the package for its side effect and name the backend in
// GOMLX_BACKEND (or compute.NewWithConfig):
//
//	import _ "github.com/gour-dev/gour/gomlx"
//
//	GOMLX_BACKEND=gour                      # ur.DefaultDevice(): a GPU first, then a CPU
//	GOMLX_BACKEND=gour:device=cuda:0        # a device by gour's selector (ONEAPI_DEVICE_SELECTOR's grammar)
//	GOMLX_BACKEND=gour:opencl:cpu           # the same, without "device="
//
// The package imports gour's adapters (adapters/all), so OpenCL, CUDA and
// Level Zero devices are found where their drivers are.
//
// # How it works
//
// A Buffer is a compute.Array in the device's memory: the numeric dtypes
// as they are (float32, float64, int32, uint32, int64, uint64), int8 and
// int16 kept as int32 and uint8 and uint16 as uint32 (wrapped to their
// width after every operation), bool as a uint32 0 or 1. BufferFromFlatData
// copies the Go slice (uploaded when a kernel first reads it); ToFlatData
// waits for the work writing the buffer and downloads it. There are no
// shared buffers (HasSharedBuffers is false): device memory is not the
// host's.
//
// A Builder records the main function's operations as nodes, with their
// shapes from GoMLX's shapeinference. Compile turns them into an
// Executable: a plan of device calls in the graph's order, made once per
// graph, with constants (and Iota, computed on the host) uploaded once.
// Element-wise operations are fused: an element-wise node used once, by
// an element-wise node of its shape, and not an output, is inlined into
// its consumer, so a chain such as tanh(x*2 + y) - exp(-y) is one
// expression of package compute/expr and one generated kernel (OpenCL C,
// or CUDA C), built through gour's program manager and so cached in memory
// and on disk. Inputs that broadcast (a scalar, extents of 1) are expanded
// by a copy first. The other operations are a step each:
//
//   - Reshape, Identity and OptimizationBarrier share their input's array.
//   - Transpose, BroadcastInDim, Slice, Reverse, Concatenate and Pad are
//     one strided copy kernel (a copy per operand for Concatenate; a fill
//     and a copy for Pad).
//   - ReduceSum, ReduceProduct, ReduceMax, ReduceMin and the logical
//     reductions are compute.ReduceAxis over the operand seen as a [kept,
//     reduced] matrix (copied into that order where it is not).
//   - The bitwise operations and shifts (compute/expr has no bitwise
//     operators) are a map kernel of the backend's own each, OpenCL C or
//     CUDA C from one generator: an element per work-item, reading a
//     broadcast input by strides of 0 rather than a copy. They are not
//     fused.
//   - ArgMinMax, CumSum, CumMax and the bitwise reductions are an axis
//     kernel of the backend's own: the operand seen as [outer, axis,
//     inner], one work-item per row of the axis (a bitwise reduction over
//     axes that are not consecutive copies the operand first).
//   - Gather is one kernel generated for its configuration (extents,
//     strides and axis maps as constants): an output element per
//     work-item, its start index clamped so that the slice fits.
//   - DotGeneral is one compute.MatMulWith, package blas's batched GEMM
//     (CLBlast or blas's own kernels on OpenCL, cuBLAS on CUDA), of the
//     operands as [batch, cross, contracting] or, transposed,
//     [batch, contracting, cross] matrices: a transpose is folded into the
//     GEMM where an operand's axes are in either order, else the operand
//     is copied into the first. float32 and float64 (the accumulator
//     dtype; other input or output dtypes are converted).
//
// Execute enqueues every step on the device's in-order queue and returns
// without waiting. An intermediate array is released (in the queue's
// order) after its last reader is enqueued; a donated input becomes the
// execution's own, released or returned as an output; an output that is
// a parameter not donated, a constant, or a second output of one array, is
// a copy.
//
// # What is declared
//
// Capabilities declares exactly what is implemented (the list is
// implementedOps): Parameter, Constant (and ConstantFromBuffer, donated or
// not), Identity; the element-wise Abs, Neg, Sign, Exp, Expm1, Log, Log1p,
// Ceil, Floor, Round (ties to even), Erf (float32 only), Rsqrt, Sqrt,
// Cos, Sin, Tanh, Logistic, IsFinite, IsNaN, LogicalNot, Add, Sub, Mul,
// Div, Rem, Pow, Max, Min (NaN propagating), the six comparisons,
// LogicalAnd, LogicalOr, LogicalXor, Where, Clamp, ConvertDType;
// BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot, ShiftLeft,
// ShiftRightArithmetic, ShiftRightLogical (Go's shifts: an amount
// negative or past the dtype's bits shifts every bit out), BitCount, Clz;
// Reshape, Transpose, BroadcastInDim, Slice, Reverse, Concatenate, Pad,
// Iota, OptimizationBarrier, Gather; ReduceSum, ReduceProduct, ReduceMax,
// ReduceMin, ReduceLogicalAnd, ReduceLogicalOr, ReduceLogicalXor,
// ReduceBitwiseAnd, ReduceBitwiseOr, ReduceBitwiseXor; ArgMinMax (the
// first extremum, or the first NaN), CumSum (integers wrap), CumMax (a
// NaN propagates); DotGeneral. DTypes:
// bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32,
// and float64 where the device has double precision. No functions or
// closures, no dynamic shapes, one device.
//
// Precision: the math functions are the device's (OpenCL C or CUDA C
// built-ins); integer Pow is computed in float64 (so it needs double
// precision); float Rem is a - b·trunc(a/b), exact while the quotient fits
// the float's mantissa; Expm1 and Log1p use a Taylor series near 0.
// Integer division by zero gives 0 (compute/expr's rule).
//
// # Tests
//
// The package's tests run GoMLX's own backend conformance suite,
// backendtest.RunAll, against the backend on the default device (PoCL's
// CPU device in CI): the suite skips what Capabilities does not declare.
//
//	cd gomlx && CGO_ENABLED=1 UR_REQUIRE_ADAPTERS=opencl POCL_KERNEL_CACHE=0 go test ./...
//
// The same suite runs against GoMLX's pure-Go CPU backend (package
// gobackend of the same compute module, so the same suite version):
// TestSuiteCounts runs TestBackendSuite again and TestReferenceSuite (which
// runs only there, or with GOUR_REFERENCE_SUITE=1) in a child process and
// logs each one's innermost subtests passed, skipped and failed, and the
// operation families gour skips where the reference passes (seen with -v:
// go test -v -run TestSuiteCounts). Only gour's failures fail it; the
// reference passing more is logged, not failed.
//
// # What is left
//
// Not implemented: float16 and bfloat16 (compute stores and multiplies
// them; element-wise and reductions would compute in float32), complex
// dtypes, Erf of float64, Atan2, Scatter, DynamicSlice and
// DynamicUpdateSlice, ReduceWindow, ConvGeneral, Sort, RNGBitGenerator,
// BatchNorm, the fused operations (FusedSoftmax, FusedLayerNorm,
// FusedDense, attention, QuantizedGather), functions and closures (Call,
// While, If), dynamic shapes, several devices, and integer DotGeneral.
// The bitwise operations are not fused with the element-wise ones around
// them, and the axis kernels take a row per work-item, which is slow
// where there are few rows. Broadcast inputs of a fused kernel are
// expanded by a copy, where expr's strided kernels could read them in
// place; a reduction or a product whose operand's array does not already
// have the [rows, columns] shape it needs is copied first, where a
// reshaped view of a compute.Array would do.
package gomlx
