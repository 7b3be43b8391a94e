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
// width after every operation), bool as a uint32 0 or 1, float16 and
// bfloat16 as float32 (computed in float32 and rounded to the half type
// only when downloaded: more precise than the type). BufferFromFlatData
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
//     is copied into the first. Float dtypes (the accumulator dtype; other
//     input or output dtypes are converted).
//   - FusedSoftmax and FusedLayerNorm are row kernels: a work-group per
//     row (of the axis, or of the consecutive normalized axes), its
//     work-items striding over the row and combining their partial
//     maxima and sums in local (shared) memory; layer norm takes the mean,
//     then the variance of the deviations, then writes the output with
//     gamma and beta.
//   - FusedActivation and FusedActivationVJP are element-wise nodes, so
//     fused with what is around them (SwiGLU: two slices, then one
//     kernel). FusedDense is a DotGeneral, then bias and activation as one
//     fused element-wise kernel; FusedAttentionQKVProjection a DotGeneral,
//     then a slice and a bias per projection.
//   - FusedScaledDotProductAttention is two batched GEMMs (DotGeneral) with
//     a row kernel between: the scores of query by key (kv heads a batch
//     axis, a group of query heads rows of it), then a work-group per row
//     scales them, adds a bias and an additive mask, leaves out what a
//     causal or boolean mask or the sequence lengths exclude, and takes
//     the softmax (a row with nothing to attend gives zeros), then the
//     probabilities weigh the values. Masks and biases of rank 2, 3 or 4
//     broadcast by strides of 0 along batch, heads and query axes; other
//     shapes are ErrNotImplemented (the caller decomposes). No state for a
//     VJP is returned.
//   - ConvGeneral, ReduceWindow and SelectAndScatterMax/Min are kernels
//     generated for their configuration (every extent and stride a
//     constant), an output element per work-item: a direct convolution
//     (strides, padding, input and kernel dilations, channel and batch
//     groups), a window reduction (padding and dilation holes left out),
//     and SelectAndScatter as a gather: each operand element adds the
//     source values of the windows that select it (the first maximum or
//     minimum), with no atomics.
//   - ScatterSum, ScatterMax and ScatterMin copy the operand, then one
//     work-group goes over the updates in order, its work-items sharing
//     each update's window, a barrier between updates: deterministic and
//     with no atomics, but one work-group. An update whose window does not
//     fit the operand is skipped.
//   - DynamicSlice and DynamicUpdateSlice are one kernel each, the start
//     indices (scalars, or one vector) read and clamped on the device.
//   - FusedQuantizedDense dequantizes into floats, then FusedDense: the
//     weight (QuantLinear with its zero point, QuantNF4: a kernel indexing
//     scale and zero point by shapeinference's block layouts; QuantGGML:
//     a kernel decoding GGML's blocks, every format of compute's, an
//     element per work-item) into x's float dtype; a quantized x
//     (QuantLinear by its activation layouts, GGML Q8_0 and Q8_K) into
//     float32. QuantizedMatmul's integer product is not used (the float
//     product is more precise). A QLinearMatMul int32 bias is a kernel
//     after the GEMM, scaled by x's and the weight's scales; an
//     OutputQuantization one more kernel rounding to int8 or uint8 (ties
//     to even). Its VJP (the weight frozen) dequantizes likewise, takes
//     dOutput through the activation's derivative and one GEMM by the
//     weight transposed, and sums the bias's gradient; QuantizedGather
//     (unpacked or packed int2/int4 rows, QuantNone, QuantLinear, QuantNF4,
//     GGML blocks) is one kernel, an output element per work-item.
//   - Functions: NewFunction and Closure make functions of their own
//     parameters that Call inlines into the caller (so a call is fused and
//     planned with the rest of the graph). Sort takes a comparator closure
//     of comparisons and logical operations of its parameters, translated
//     into C, and sorts every operand's rows together, a row per work-item
//     by a stable insertion sort (quadratic: for short rows); each output
//     is a node sorting copies of every operand.
//   - BatchNormForInference, BatchNormForTraining and BatchNormGradient
//     are composed of the backend's nodes: ReduceSums over every axis but
//     the feature axis for the batch's statistics and the gradients' sums,
//     and fused element-wise kernels reading the [F] vectors reshaped to
//     broadcast along the feature axis.
//   - FusedTopK is an axis kernel selecting the k indices of a row in k
//     passes (each the first, by value then lower index, after the last
//     one: no memory but the output), then a kernel reading the values at
//     them. Atan2 is a map kernel of the device's atan2 (compute/expr has
//     none), so not fused.
//   - Bitcast is one kernel assembling or taking apart the bits
//     (little-endian); integer DotGeneral a kernel of its own (an output
//     element per work-item: no BLAS has integers).
//   - RNGBitGenerator is a kernel computing a block of the algorithm per
//     work-item (an element for SplitMix64) and one advancing the state's
//     counter: Philox-4x32-10 (RNGDefault), ThreeFry-2x32-20, SplitMix64
//     and ChaCha8, bit-exact with GoMLX's golden values (OpenXLA's for
//     Philox and ThreeFry); PCG-DXSM (Go's math/rand/v2.PCG), sequential,
//     is one work-item's loop.
//
// A graph with a dynamic axis (shapes.DynamicDim, named or generated) is
// specialized rather than planned dynamically: the plan, its kernels and
// their launch extents are made from static shapes. The builder hands out
// functions that record every operation (their methods are generated,
// traced_gen.go), and a node of a dynamic shape has only the shape
// GoMLX's shapeinference gives it. Compile keeps such a graph as built;
// Execute replays the record on a fresh builder whose parameters have the
// inputs' shapes (dynamic shapes among the arguments, as BroadcastInDim's
// or RNGBitGenerator's, resolved by the axis bindings of the inputs, and a
// Slice limit of DynamicDim taken as the axis's end), compiles it like any
// graph, and caches that executable per tuple of input shapes. Axes that
// unified at build time but differ at run time fail the replay's shape
// inference, so Execute returns the error. In a replay, DynamicShape and
// DynamicDimensionSize are constants; DynamicReshape, DynamicBroadcastInDim,
// DynamicIota and DynamicPad are Reshape, BroadcastInDim, Iota and Pad,
// their dimensions given by values the host knows: constants, those
// dimension sizes, integer arithmetic of them, or a scalar input read from
// its buffer (a probe: the cache keeps the value with the executable and
// reads the input again at each Execute to find it). NonZero runs the
// replay's plan as built so far up to its operand, reads it back and
// finds the coordinates on the host, a constant of the rest of the plan;
// such a specialization depends on the data, so it is made at every
// Execute and finalized after it.
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
// not), Identity, Call (Capabilities.Functions), Sort; the element-wise Abs, Neg, Sign, Exp, Expm1, Log, Log1p,
// Ceil, Floor, Round (ties to even), Erf,
// Rsqrt, Sqrt, Cos, Sin, Tanh, Logistic, IsFinite, IsNaN, LogicalNot, Add,
// Sub, Mul, Div, Rem, Pow, Max, Min (NaN propagating), the six
// comparisons, LogicalAnd, LogicalOr, LogicalXor, Where, Clamp,
// ConvertDType; BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot, ShiftLeft,
// ShiftRightArithmetic, ShiftRightLogical (Go's shifts: an amount
// negative or past the dtype's bits shifts every bit out), BitCount, Clz;
// Atan2 (floats);
// Reshape, Transpose, BroadcastInDim, Slice, Reverse, Concatenate, Pad,
// Iota, OptimizationBarrier, SchedulingBarrier, Gather, DynamicSlice,
// DynamicUpdateSlice, Bitcast (not of bool or the half floats);
// ReduceSum, ReduceProduct, ReduceMax, ReduceMin, ReduceLogicalAnd,
// ReduceLogicalOr, ReduceLogicalXor, ReduceBitwiseAnd, ReduceBitwiseOr,
// ReduceBitwiseXor; ArgMinMax (the first extremum, or the first NaN),
// CumSum (integers wrap), CumMax (a NaN propagates); DotGeneral (integers
// wrap);
// ConvGeneral, ReduceWindow, SelectAndScatterMax, SelectAndScatterMin,
// ScatterSum, ScatterMax, ScatterMin (integer sums wrap);
// RNGBitGenerator (Philox, ThreeFry, SplitMix64, ChaCha8, PCG; RNGDefault
// is Philox); the fused FusedSoftmax, FusedLayerNorm (consecutive axes) and
// FusedLayerNormVJP,
// FusedActivation and FusedActivationVJP (every activation; SwiGLU's VJP
// is ErrNotImplemented),
// FusedDense, FusedScaledDotProductAttention,
// FusedAttentionQKVProjection, FusedQuantizedDense, FusedQuantizedDenseVJP
// and QuantizedGather (every GGML format, quantized activations and
// outputs included: see above), FusedTopK (a
// NaN above every number, so first among the largest and last among the
// smallest); BatchNormForInference, BatchNormForTraining (the biased
// variance) and BatchNormGradient (XLA's BatchNormGrad). DTypes: bool, int8, int16, int32, int64,
// uint8, uint16, uint32, uint64, float16 and bfloat16 (as float32),
// float32, and float64 where the device has double precision. Functions
// and closures for Call and Sort (no While or If), one device. Dynamic
// shapes as DynamicShapesRecompiling (see above): parameters and every
// declared operation may have dynamic axes, with DynamicShape,
// DynamicDimensionSize (int64), DynamicReshape, DynamicBroadcastInDim,
// DynamicIota, DynamicPad and NonZero (in the main function).
//
// Precision: the math functions are the device's (OpenCL C or CUDA C
// built-ins); integer Pow is computed in float64 (so it needs double
// precision); float Rem is a - b·trunc(a/b), exact while the quotient fits
// the float's mantissa; Expm1 and Log1p use a Taylor series near 0; Erf
// is fdlibm's approximation (Go's math.Erf's) for float64 and Numerical
// Recipes' (relative error below 1.2e-7) for float32. Integer division by
// zero gives 0 (compute/expr's rule).
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
// TestSuiteCounts runs TestBackendSuite and TestReferenceSuite (which
// runs only there, or with GOUR_REFERENCE_SUITE=1) in a child process and
// logs each one's innermost subtests passed, skipped and failed, and the
// operation families gour skips where the reference passes (seen with -v:
// go test -v -run TestSuiteCounts). Only gour's failures fail it; the
// reference passing more is logged, not failed. In a run of the whole
// package that is not -short, TestBackendSuite itself skips, leaving the
// suite to that child (-run TestBackendSuite runs it directly). TestCompareWithGo runs
// what the suite covers thinly (scatters with windows, windows in 2-D,
// grouped convolutions, attention with every option, every activation's
// VJP) on both backends and compares; TestBatchNorm, TestFusedTopK and
// TestAtan2 check what neither the suite (a 2×2 batch norm) nor the Go
// backend (which lacks them) covers against the formulas on the host;
// TestCUDASyntax compiles the CUDA C
// of every kind of kernel the backend generates with the host's C++
// compiler, syntax only, where there is no GPU. TestTracedGenerated checks
// that traced_gen.go records every method of compute.Function
// (GOUR_GENERATE=1 writes it again for a new compute version).
//
// # What is left
//
// Not implemented: complex dtypes, the sub-byte dtypes (int2, int4 and
// their unsigned kinds; packed in uint8 rows they are read by
// QuantizedGather), shared buffers, While and If, Sort comparators of
// other operations and several devices. Of dynamic shapes: a dimension
// given by a value the device computes from data (other than a scalar
// input as it is) is ErrNotImplemented at Execute, as is NonZero in a
// function called by main; NonZero runs its operand's part of the graph
// twice (once to count, once in the plan) and plans the rest at every
// Execute. A specialization is planned on the first Execute of its input
// shapes (its kernels built then, or found in the program manager's
// caches) and kept until the executable is finalized: inputs of many
// sizes make as many plans, so callers bucket or pad them. Half floats are
// kept in float32 (twice their memory, and not rounded between
// operations). On a GPU the plan's launches
// dominate small graphs. The bitwise
// operations are not fused with the element-wise ones around them, and the
// axis kernels take a row per work-item, which is slow where there are few
// rows; a scatter is one work-group, a sort quadratic, and convolutions are
// direct (no im2col or implicit GEMM). Broadcast inputs of a fused kernel
// are expanded by a copy, where expr's strided kernels could read them in
// place; a reduction or a product whose operand's array does not already
// have the [rows, columns] shape it needs is copied first, where a reshaped
// view of a compute.Array would do (attention's operands are copied so
// before their GEMMs).
package gomlx
