// Command gokernels (built as gokernels-bench) measures kernels written
// in Go (package gokernel) against the same algorithms written in C, for
// the targets of "kernels written in Go":
//
//   - speed: axpy, a work-group sum reduction, a transpose tiled through
//     shared memory, a row softmax and a layer norm (one work-group a row,
//     the row in registers, shared-memory reductions; 4096×4096 float32
//     on a GPU, the shape triton.py times Triton's tutorial kernels at),
//     and examples/gokernels's tiled SGEMM. kernels.go holds them in Go
//     (go generate compiles them into zz_kernels.go), csrc.go in C, one
//     source that builds as CUDA C on CUDA devices and as OpenCL C
//     elsewhere, the same work-group sizes and memory accesses. Both
//     are built by the same program manager (CUDA C with NVRTC, as
//     gokernel's own CUDA C) and launched on the same queue and memory:
//     Go through the generated Launch functions, C through ur's
//     Queue.Launch. Each kernel's Go and C results are first checked
//     against a CPU reference (and with -cpu, the Go kernel run on the CPU
//     by gokernel.RunCPU too); then both are timed, after a warm-up, in
//     rounds of back-to-back launches, Go and C alternating, each round
//     timed by timestamps recorded on the device before its first and
//     after its last launch (the host clock around a Finish where the
//     device has no timestamps); the table gives the median of the
//     rounds and "Go speed", C's time over Go's;
//   - launch cost: a 1,024-element Axpy, Go's through LaunchAxpy and C's
//     through Queue.Launch, rounds of 20,000 launches and one Finish, in
//     µs a launch, and the enqueueing alone;
//   - first use: with -first, this process's first use of a Go kernel,
//     from the program manager made (the device, context and manager are
//     reported apart) to the first launch of Axpy finished: the build of
//     Axpy's own source (cold) or its load from gour's persistent device
//     code cache (warm), the launch and a Finish; then a second kernel's
//     (Transpose's) build in the same process, whose device compiler is
//     then started. With -whole the kernel is built from the module's
//     whole source, as before kernels were built alone, for comparison.
//     The cache is in SYCL_CACHE_DIR (default $XDG_CACHE_HOME/gour, else
//     $HOME/.cache/gour; SYCL_CACHE_PERSISTENT=0 turns it off: package
//     cache), so a script runs it in new processes with an empty
//     SYCL_CACHE_DIR, then again.
//
// Every result is also printed as one line for scripts:
//
//	RESULT name=softmax size=4096x4096 go_us=… c_us=… ratio=… go_rate=… c_rate=… unit=GB/s …
//	RESULT name=launch_axpy_1024 go_us=… c_us=… ratio=… go_enqueue_us=… c_enqueue_us=… …
//	RESULT name=first_use total_ms=… kernel_ms=… launch_ms=… setup_ms=… manager_ms=… builds=… disk_hits=… … build=kernel source_bytes=… second_kernel_ms=… …
//
// with ratio = c_us/go_us (1 is as fast as C, more is faster) and c_us 0
// where the C kernels do not build.
//
// Run it on the CPU (PoCL; the C column is then OpenCL C):
//
//	CGO_ENABLED=1 UR_REQUIRE_ADAPTERS=opencl POCL_KERNEL_CACHE=0 go run ./scripts/bench/gokernels
//
// and on an NVIDIA GPU, from a binary built where Go is:
//
//	CGO_ENABLED=0 go build -o bin/gokernels-bench ./scripts/bench/gokernels
//	B=bin bash scripts/bench/gokernels/run.sh    # on the GPU machine, from the repository root
//
// run.sh runs the table on cuda:0 (ONEAPI_DEVICE_SELECTOR=cuda:0), -first
// three times cold and three times warm, and triton.py (Triton's
// tutorial softmax and layer norm, and PyTorch's, at 4096×4096 float32).
// Flags: -size full|small|tiny|auto, -only axpy,softmax,..., -rounds,
// -round, -launch-iters (0 skips the launch cost), -launch-rounds,
// -check (check only), -cpu, -first, -whole. GOUR_GOKERNEL_DEBUG=1 (gokernel's
// bounds-checked variant) must not be set when timing.
package main
