// Command urbench measures gour against the vendor drivers called from C.
//
// Usage:
//
//	urbench launch [-backend cuda|opencl] [-device SELECTOR] [-ptx FILE] [-iters N] [-rounds R]
//	        [-prepared | -c-loop bin/libcudaloop.so [-breakdown]] [-cpuprofile FILE]
//	urbench jit [-device SELECTOR] [-kernels 200] [-ops 120] [-loads 10]
//	urbench diskcache [-backend opencl|cuda] [-device SELECTOR] [-kernels 200] [-runs 5]
//	urbench remotecache [-backend opencl|cuda] [-device SELECTOR] [-kernels 200] [-down-kernels 1] [-ops 120] [-runs 5] [-procs 16]
//	        [-redis URL | -redis-server PATH]
//	urbench copy [-device SELECTOR] [-backend cuda] [-bytes 256M] [-rounds 20]
//	urbench memory [-device SELECTOR] [-backend cuda|opencl] [-c-lib bin/libcudamem.so] [-bytes 256M] [-rounds 10] [-iters 2000]
//	urbench graph [-device SELECTOR] [-backend cuda|opencl] [-c-lib bin/libcudagraph.so] [-kernels 1000] [-rounds 10] [-iters 20000]
//	urbench bundle [-device SELECTOR] [-kernels 200] [-ops 120] [-cuda-arch sm_80,sm_90] [-ptx-arch compute_80] [-runs 5]
//	urbench compute [-device SELECTOR] [-backend cuda|opencl] [-n 2^26] [-reduce-n 2^28] [-cpu-n 2^24] [-calls 10000]
//	        [-rounds 10] [-first-runs 5] [-mm-n 4096] [-mm-cpu-n 1024] [-quick]
//	urbench blas [-device SELECTOR] [-backend gour|clblast|cublas] [-types float32,float64,float16,bfloat16] [-n 8192]
//	        [-vs-n 4096] [-small 64] [-calls 2000] [-rounds 5] [-mem usm|buffer] [-quick]
//	urbench gonum [-device SELECTOR] [-backend cuda|opencl] [-blas cublas|clblast|gour] [-type float64|float32] [-n N] [-rounds N]
//	urbench collectives [-device SELECTOR] [-backend auto|nccl|ring] [-procs 1|2] [-bytes N] [-small N] [-iters N]
//	        [-warmup N] [-runs N] [-redis URL | -redis-server PATH]
//	urbench help [BENCHMARK]
//
// urbench -h, urbench help and urbench help BENCHMARK (or urbench
// BENCHMARK -h) print the usage on standard output.
//
// Each benchmark runs on the first device of its backend (-backend: cuda
// by default for launch, opencl for diskcache; jit needs cuda) that the
// selector lets through: -device, in the syntax of ONEAPI_DEVICE_SELECTOR,
// else that variable, else none, which lets every device through.
//
// launch times R rounds of N launches of the kernel "empty" (one block or
// work-group of 32) through gour, with no event, then one Finish, and
// prints a line in the format of the C programs in scripts/bench/c, so
// that scripts/bench compares the two in one run. With -c-loop it loads the
// C launch loop of scripts/bench/c/cuda_loop.c into its own process and
// alternates C rounds with gour rounds on the same context, stream and
// kernel, printing both and their ratio; -breakdown adds C that makes the
// context current before each launch and Go that calls cuLaunchKernel
// without gour's layers.
//
// jit generates a PTX module of many kernels, builds it through gour with
// the driver's JIT (run it with CUDA_CACHE_DISABLE=1 for a cold JIT), takes
// the cubin the program hands back, and times creating the program from
// that cubin instead.
//
// diskcache times a new process's first GetKernel through the program
// manager three ways: cold (gour's persistent cache and the driver's own
// cache off), with the driver's own kernel cache warm, and with gour's
// persistent cache warm; see diskcache.go. Its children get its flags.
//
// remotecache measures the persistent cache's remote tier on a Redis
// server (-redis URL; without it, urbench starts a private redis-server,
// -redis-server or the one in PATH, on a free port, saving nothing), each
// figure a new process (this program as a child) getting the last kernel
// of a generated module of -kernels kernels (PTX on cuda, OpenCL C on
// opencl), with the driver's own cache off and every phase under a key
// prefix of its own: (a) the first GetKernel cold (no gour cache), from
// a warm local disk, and from a warm remote tier with an empty local
// disk, with the ratios; (b) -procs processes in two groups, each group
// on its own local directory, missing one cold key at once: the builds
// among them, which must be 1 (else the exit status is 1); (c) the first
// GetKernel with an empty local disk and the server down (a closed
// port) against no remote tier, on a module of -down-kernels kernels (few,
// so that the JIT's spread from one process to the next does not hide
// the tier's cost), and the time the process spent in the remote tier,
// which is that slowdown without the build's noise. With -redis, the
// run's keys are removed from the server at the end; see remotecache.go.
// Children run with GOUR_CACHE_REMOTE=off unless the benchmark sets it,
// here and in the other benchmarks that start children.
//
// bundle builds, with NVRTC in the process, an offload bundle of generated
// CUDA C kernels (cubins, PTX, source), timing each compile, and times a
// new process's first GetBundleKernel from the AOT cubin, from the PTX
// image JIT-compiled cold, and from the PTX image served by gour's
// persistent cache; see bundle.go. It needs a CUDA device and NVRTC.
//
// copy times host-to-device, device-to-host (pageable Go memory) and
// device-to-device transfers through gour, checking the data, as
// urcompare's copy metrics do but in one process with its own rounds; see
// copy.go.
//
// memory times the memory model on a device with USM: 1 MiB allocations
// and frees on a queue through a Pool, copies between page-locked host
// memory and the device (and pageable memory beside them), a copy on one
// queue overlapping a kernel on another, and launches on USM pointers
// against launches on buffers. With -c-lib it loads the C baselines of
// scripts/bench/c/cuda_mem.c and alternates them with gour's rounds on the
// same context and stream; see memory.go.
//
// graph times the launch model: launches that carry their four arguments
// (Queue.Launch), a command buffer of -kernels launches replayed
// against the same launches one by one, and 64 goroutines launching one
// kernel at once against one goroutine. With -c-lib it loads the C
// baselines of scripts/bench/c/cuda_graph.c (cuLaunchKernel with
// kernelParams, the kernels one by one, the same CUDA graph replayed) and
// runs them on gour's context, stream and kernel; see graph.go.
//
// compute times package compute against baselines measured in the same
// run, each with its ratio: Transform of y = a*x + y on resident arrays
// (no transfer, checked) against compute.Copy in GB/s; Reduce with Sum
// against a hand-written float4 read kernel in GB/s; a Transform of 1024
// elements against a PreparedLaunch of a hand-written axpy kernel, per
// call (an ArgLaunch of it beside them);
// the CPU context's Transform against goroutines by hand; a new process's
// first Transform with gour's persistent cache warm (this program run as
// a child, once cold into a new cache directory, then -first-runs times);
// a TaskSequence's Async + Get round trips against the same work in a
// loop; and a pipeline of chunks (upload, Transform, download) as a
// concurrent TaskSequence against the same steps in a loop. -quick makes the sizes small, for PoCL; see compute.go.
//
// blas times package blas's GEMM (n×n×n, alpha 1, beta 0) on the backend
// asked for (-backend; empty: the device's vendor library where it loads)
// for each type, in TFLOP/s; float32 at -vs-n on the own kernels against
// the device's vendor library, and their ratio; and the cost of a call of
// a -small float32 GEMM. Each figure is one line of key=value pairs, for
// scripts; every product is checked. See blas.go.
//
// Exit status:
//
//	0  the benchmark ran, or the usage was asked for
//	1  a failure: no device of the backend is selected (the message says
//	   why its adapter did not load, or names the selector and where it
//	   came from, -device or ONEAPI_DEVICE_SELECTOR), or a driver call failed
//	2  misuse: no or an unknown benchmark, a bad flag, argument or value,
//	   or a malformed -device, ONEAPI_DEVICE_SELECTOR or
//	   UR_ADAPTERS_FORCE_LOAD, named in the message
package main
