// Package compute is a runtime of typed arrays and algorithms on gour: the
// first layer above package ur, after Kiwaku's execution contexts and
// SYCL's task sequences.
//
// # Arrays
//
// An Array[T] is an n-dimensional, row-major array of float32, float64,
// int32, uint32, int64 or uint64 (Number), or of the half-precision
// storage types Float16 and BFloat16 (Element: made, filled, copied,
// transferred and multiplied, computed with in float32), made by one
// Context with FromSlice or Zeros and used only with it. Its data lives on the host, on
// the context's device, or both: the array keeps a valid flag per copy, so
// a chain of device operations makes no transfer, and the host gets the
// data back only when it asks (ToSlice, Host). Device storage is a USM
// device allocation from a pool, in the queue's order, where the device
// has device USM, and a ur.Mem buffer elsewhere. Array.Transfers counts
// the copies made.
//
// # Contexts and access modes
//
// A Context runs operations: CPU (NewCPU) on goroutines over chunks of the
// elements, with no cgo and no driver, Device (NewDevice,
// NewDeviceFrom) on one gour device's in-order queue, or MultiDevice
// (NewMultiDevice) on several devices' queues at once. Each operation uses
// its arrays In (read: uploaded if the device copy is stale, never
// downloaded), Out (overwritten: never uploaded, valid only on the device
// afterwards) or InOut (both), and makes no transfer its modes do not
// need. An operation checks all its arrays before changing any, and marks
// its Out arrays written only once its kernel is enqueued: one returning
// an error on a device leaves every array's data as it was. Array.Arg
// prepares an array by mode for a kernel of one's own.
//
// # Several devices
//
// A MultiDevice (NewMultiDevice) is a context of several devices: the
// GPUs of a machine, or sub-devices (ur.Device.Partition; PoCL splits
// its CPU device, so the tests run it everywhere). It holds one
// ur.Context of the devices, where they share a platform, and a Device
// per device. Its arrays are split along their first axis, a part per
// device (Array.Parts: rows shared out as evenly as they go, uneven
// splits included), or replicated, whole on every device
// (FromSliceReplicated, ZerosReplicated). Every algorithm runs on every
// device at once, each device's launches on its own queue, issued
// without waiting for the others': element-wise work on each part;
// ReduceAxis off the split axis; MatMul by rows of c and a, b
// replicated; Reduce and Dot enqueue every part's reduction on its
// device before reading any back, then combine the partial results in
// device order. ToSlice and Host gather the parts. An operation's arrays must fit its split (arrays of the
// output's first axis split, a broadcast input replicated, a replicated
// output's inputs replicated): one that does not is an ErrInvalid, before
// anything runs. A device failing mid-operation makes it return a
// *DeviceError naming the device; the other devices' work is done and
// their parts hold its results, the failing device's part its old data.
//
// # Algorithms
//
// Fill, Copy, Transform and ForEach (element-wise), Reduce (Sum, Prod,
// Min, Max or a user's ReduceOp), ReduceAxis (the same along one axis:
// row sums, row maxima), Dot and MatMul are written once, against the
// Context interface: each describes its work as one kind of work
// (element-wise, a reduction, a reduction along an axis, a matrix
// product), which the CPU context runs in Go and a Device context
// launches (Copy on a GPU through the driver's copy, which reaches the
// memory's bandwidth where a copy kernel does not; on a CPU device through
// the copy kernel, which runs on every core where PoCL's copy runs on one).
//
// Transform broadcasts its inputs by NumPy's rules: an input of shape
// [H] or [1, H] is added to every row of an [N, H] output, one of [N, 1]
// scales every row. An Expr's generated kernel reads such an input by
// strides; a Func of hand-written kernels gets it expanded to the
// output's shape first. Inputs of the output's shape take the
// element-wise path as before, which allocates nothing on a device.
//
// MatMul (and MatMulWith: transposes, alpha, beta) multiplies 2-D
// arrays, or batches of them along a leading axis, a 2-D operand
// multiplying every matrix of a 3-D one. On a device it is package
// blas's GEMM on the Device's queue (a blas.Handle per Device, made at
// the first MatMul: cuBLAS on CUDA, CLBlast on OpenCL for buffers where
// it loads, blas's own kernels elsewhere, Level Zero included;
// DeviceOptions.BLAS picks); on the CPU context it is gonum's native
// Sgemm and Dgemm, float16 and bfloat16 through float32. Device kernels are OpenCL C on OpenCL devices and CUDA C on
// CUDA devices, built through the program manager (package programmgr):
// once per process, then from gour's persistent cache on disk.
//
// Level Zero takes SPIR-V, not OpenCL C: there a Device builds the same
// OpenCL C, which the program manager compiles to SPIR-V with clang and
// llvm-spirv (Debian: apt-get install clang-15 llvm-spirv-15; GOUR_CLANG
// and GOUR_LLVM_SPIRV name other tools) and caches like any program, the
// persistent cache keyed by the tools' versions. A Func's source for
// "level_zero" is OpenCL C: its own "level_zero" source where it has one,
// else its "opencl" source (NewFunc's and Expr's Funcs, and any Func
// that answers "level_zero" with ur.ErrUnsupportedFeature), so a Func
// written for OpenCL runs on Level Zero as it is. Without the tools, a
// kernel on Level Zero gives an error wrapping ur.ErrUnsupportedFeature
// that names the missing tool; arrays and their transfers work still.
//
// Launches take their arguments with the launch (ur.Queue.Launch),
// so goroutines share kernels without locks. A device reduction is two
// passes of a work-group tree in local memory, without atomics: the same
// result on every run.
//
// Transform applies a Func: a kernel's device source with a fixed
// signature, (out, in0, in1, ..., scalar params..., n), and a Go function
// over chunks for the CPU. NewFunc makes one from hand-written sources;
// any type with Func's methods plugs in. Expr makes one from an
// expression written once (package compute/expr): `y = a*x + y`, its
// kernels generated in OpenCL C (for OpenCL and Level Zero) and CUDA C,
// its CPU side expr's chunked evaluator.
//
// # Task sequences
//
// A TaskSequence runs invocations of one function asynchronously, in
// order, with a bounded number outstanding, as SYCL's task_sequence:
// Async starts one, Get returns results in start order, and an error of
// an invocation is returned by its Get. See TaskSequence for the rules.
//
// # Errors and tolerances
//
// Bad input gives an error wrapping ErrShape, ErrReleased,
// ErrWrongContext or ErrInvalid, never a panic: nil, released or foreign
// arrays and contexts (a nil *Device or *CPU included), a nil Func,
// shapes that do not match (the error names both) or whose size in bytes
// overflows an int or the host's reach, invalid arguments. MatMul of
// float16 on a device without half precision, or of float64 without
// double precision, is an *AspectError naming the aspect (fp16, fp64),
// which matches ur.ErrUnsupportedFeature; storing, filling and copying
// float16 need neither. Methods of a nil *Array, *CPU,
// *Device or *TaskSequence return zero values or such errors. A panic in
// a user's function that the package runs (a Func's CPU function or a
// ReduceOp's Combine on the CPU context, a TaskFunc) is recovered and
// returned as an error; the other methods of a user's own Func are
// called as they are, on the caller's goroutine.
//
// Integer results are exact on every context. Floating-point reductions
// add in another order on each context (chunks on the CPU, a tree on a
// device), so sums and dot products agree within a relative n·ε in the
// worst case and about √n·ε in practice (the tests use 1e-6·√n for
// float32, 1e-14·√n for float64); element-wise results agree to an ulp
// or two, a device compiler being free to contract a*x+y into one fused
// multiply-add. ReduceAxis combines each result in order along the axis
// on every context, so its results are the same on every run. A matrix
// product's sums are in the order of the library computing it (gonum,
// cuBLAS, CLBlast, blas's kernels), agreeing within about √K·ε.
package compute
