// cuda_graph: the C side of gour's benchmarks of launches with arguments
// and of command buffers, called from C against the CUDA driver API as a
// program would, to set beside the same work through gour
// (Queue.LaunchArgs, CommandBuffer):
//
//   gour_bench_launch_args  n × cuLaunchKernel of a kernel of 4 arguments
//                           (float *y, float a, float b, unsigned n) whose
//                           values change every launch, through
//                           kernelParams
//   gour_bench_graph        a graph of `kernels` kernel nodes of that kernel
//                           (cuGraphAddKernelNode, each after the one
//                           before, arguments differing per node),
//                           instantiated once and cuGraphLaunch'ed n times
//   gour_bench_one_by_one   the same `kernels` launches made one by one
//                           with cuLaunchKernel, n times
//
// Every function makes ctx current, takes fn (the 4-argument kernel) and
// stream from the caller, so that a Go benchmark can call it in-process on
// gour's own context, stream and kernel (dl.Open, as urbench launch
// -c-loop loads libcudaloop.so), and returns the first error or
// CUDA_SUCCESS. Times are from clock_gettime(CLOCK_MONOTONIC): submit is
// the launch calls alone, total includes the cuStreamSynchronize at the
// end; both are divided by the number of kernels run.
//
// Built with -DGOUR_BENCH_MAIN it is also a program that loads the kernel
// from the PTX below and prints the figures for device 0.
//
// Build, as a library and as a program:
//   nvcc -O2 -shared -Xcompiler -fPIC -o bin/libcudagraph.so scripts/bench/c/cuda_graph.c -lcuda
//   nvcc -O2 -DGOUR_BENCH_MAIN -o bin/cuda_graph scripts/bench/c/cuda_graph.c -lcuda
// Run: bin/cuda_graph [n] [kernels]   (defaults 100 and 1000: the graph of
//      1000 kernels replayed 100 times, against 100 × 1000 launches;
//      the argument launches: n × kernels)
#include <cuda.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

// The launch shape: one block of 128 threads covering `items` elements at
// most, so that the kernels are small and the launch path dominates.
static unsigned blocks_for(unsigned items) { return (items + 127) / 128; }

// gour_bench_launch_args launches fn n times on stream with y, a, b and
// items as its 4 arguments, a and b changing every launch, and stores the
// mean nanoseconds of one launch call in *submit_ns and of one launch
// including the final synchronization in *total_ns. One untimed launch
// comes first.
int gour_bench_launch_args(CUcontext ctx, CUfunction fn, CUstream stream, CUdeviceptr y, unsigned items, int n,
                           double *submit_ns, double *total_ns) {
	CUresult r = cuCtxSetCurrent(ctx);
	if (r != CUDA_SUCCESS)
		return r;
	float a = 1, b = 0;
	void *params[] = {&y, &a, &b, &items};
	unsigned grid = blocks_for(items);
	if ((r = cuLaunchKernel(fn, grid, 1, 1, 128, 1, 1, 0, stream, params, NULL)) != CUDA_SUCCESS ||
	    (r = cuStreamSynchronize(stream)) != CUDA_SUCCESS)
		return r;
	double t0 = now_ns();
	for (int i = 0; i < n; i++) {
		a = (float)i;
		b = (float)(n - i);
		if ((r = cuLaunchKernel(fn, grid, 1, 1, 128, 1, 1, 0, stream, params, NULL)) != CUDA_SUCCESS)
			return r;
	}
	double t1 = now_ns();
	if ((r = cuStreamSynchronize(stream)) != CUDA_SUCCESS)
		return r;
	double t2 = now_ns();
	int div = n > 0 ? n : 1;
	*submit_ns = (t1 - t0) / div;
	*total_ns = (t2 - t0) / div;
	return CUDA_SUCCESS;
}

// gour_bench_graph builds a graph of `kernels` launches of fn, node i
// after node i-1 with a = i and b = kernels - i, instantiates it, launches
// it once untimed and then n times, and stores the mean nanoseconds per
// kernel of the cuGraphLaunch calls in *submit_ns and of the replays
// including the final synchronization in *total_ns; building and
// instantiating the graph take *build_ns in all.
int gour_bench_graph(CUcontext ctx, CUfunction fn, CUstream stream, CUdeviceptr y, unsigned items, int kernels, int n,
                     double *build_ns, double *submit_ns, double *total_ns) {
	// Declared before the first goto, so that the file also compiles as C++.
	CUgraph graph = NULL;
	CUgraphExec exec = NULL;
	CUgraphNode prev = NULL;
	CUDA_KERNEL_NODE_PARAMS p;
	double t0, t1, t2;
	int div;
	float a, b;
	void *params[] = {&y, &a, &b, &items};
	CUresult r = cuCtxSetCurrent(ctx);
	if (r != CUDA_SUCCESS)
		return r;
	t0 = now_ns();
	if ((r = cuGraphCreate(&graph, 0)) != CUDA_SUCCESS)
		return r;
	memset(&p, 0, sizeof p);
	p.func = fn;
	p.gridDimX = blocks_for(items);
	p.gridDimY = p.gridDimZ = 1;
	p.blockDimX = 128;
	p.blockDimY = p.blockDimZ = 1;
	p.kernelParams = params;
	for (int i = 0; i < kernels; i++) {
		CUgraphNode node;
		a = (float)i;
		b = (float)(kernels - i);
		// The driver copies the argument values into the node.
		if ((r = cuGraphAddKernelNode(&node, graph, prev ? &prev : NULL, prev ? 1 : 0, &p)) != CUDA_SUCCESS)
			goto out;
		prev = node;
	}
	if ((r = cuGraphInstantiateWithFlags(&exec, graph, 0)) != CUDA_SUCCESS)
		goto out;
	*build_ns = now_ns() - t0;
	if ((r = cuGraphLaunch(exec, stream)) != CUDA_SUCCESS || (r = cuStreamSynchronize(stream)) != CUDA_SUCCESS)
		goto out;
	t0 = now_ns();
	for (int i = 0; i < n; i++)
		if ((r = cuGraphLaunch(exec, stream)) != CUDA_SUCCESS)
			goto out;
	t1 = now_ns();
	if ((r = cuStreamSynchronize(stream)) != CUDA_SUCCESS)
		goto out;
	t2 = now_ns();
	div = n * kernels > 0 ? n * kernels : 1;
	*submit_ns = (t1 - t0) / div;
	*total_ns = (t2 - t0) / div;
out:
	if (exec)
		cuGraphExecDestroy(exec);
	cuGraphDestroy(graph);
	return r;
}

// gour_bench_one_by_one makes the launches of gour_bench_graph's graph one
// by one with cuLaunchKernel, n times over after one untimed round, and
// stores the mean nanoseconds per kernel as gour_bench_graph does.
int gour_bench_one_by_one(CUcontext ctx, CUfunction fn, CUstream stream, CUdeviceptr y, unsigned items, int kernels, int n,
                          double *submit_ns, double *total_ns) {
	CUresult r = cuCtxSetCurrent(ctx);
	if (r != CUDA_SUCCESS)
		return r;
	float a, b;
	void *params[] = {&y, &a, &b, &items};
	unsigned grid = blocks_for(items);
	double t0 = 0, t1;
	for (int round = -1; round < n; round++) {
		if (round == 0) {
			if ((r = cuStreamSynchronize(stream)) != CUDA_SUCCESS)
				return r;
			t0 = now_ns();
		}
		for (int i = 0; i < kernels; i++) {
			a = (float)i;
			b = (float)(kernels - i);
			if ((r = cuLaunchKernel(fn, grid, 1, 1, 128, 1, 1, 0, stream, params, NULL)) != CUDA_SUCCESS)
				return r;
		}
	}
	t1 = now_ns();
	if ((r = cuStreamSynchronize(stream)) != CUDA_SUCCESS)
		return r;
	int div = n * kernels > 0 ? n * kernels : 1;
	*submit_ns = (t1 - t0) / div;
	*total_ns = (now_ns() - t0) / div;
	return CUDA_SUCCESS;
}

#ifdef GOUR_BENCH_MAIN
#include <stdio.h>

// axpb(float *y, float a, float b, unsigned n): y[i] = a*i + b for i < n.
static const char axpb_ptx[] =
	".version 7.0\n"
	".target sm_52\n"
	".address_size 64\n"
	".visible .entry axpb(.param .u64 y, .param .f32 a, .param .f32 b, .param .u32 n) {\n"
	"	.reg .pred %p;\n"
	"	.reg .b32 %r<6>;\n"
	"	.reg .f32 %f<5>;\n"
	"	.reg .b64 %rd<4>;\n"
	"	ld.param.u64 %rd1, [y];\n"
	"	ld.param.f32 %f1, [a];\n"
	"	ld.param.f32 %f2, [b];\n"
	"	ld.param.u32 %r1, [n];\n"
	"	mov.u32 %r2, %ctaid.x;\n"
	"	mov.u32 %r3, %ntid.x;\n"
	"	mov.u32 %r4, %tid.x;\n"
	"	mad.lo.s32 %r5, %r2, %r3, %r4;\n"
	"	setp.ge.u32 %p, %r5, %r1;\n"
	"	@%p bra done;\n"
	"	cvta.to.global.u64 %rd1, %rd1;\n"
	"	cvt.rn.f32.u32 %f3, %r5;\n"
	"	fma.rn.f32 %f4, %f1, %f3, %f2;\n"
	"	mul.wide.u32 %rd2, %r5, 4;\n"
	"	add.s64 %rd3, %rd1, %rd2;\n"
	"	st.global.f32 [%rd3], %f4;\n"
	"done:\n"
	"	ret;\n"
	"}\n";

static int fail(const char *what, int r) {
	const char *name = NULL;
	cuGetErrorName((CUresult)r, &name);
	fprintf(stderr, "%s: %s (%d)\n", what, name ? name : "?", r);
	return 1;
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 100;
	int kernels = argc > 2 ? atoi(argv[2]) : 1000;
	const unsigned items = 128;
	CUdevice dev;
	CUcontext ctx;
	CUstream stream;
	CUmodule mod;
	CUfunction fn;
	CUdeviceptr y;
	CUresult r;
	if ((r = cuInit(0)) != CUDA_SUCCESS || (r = cuDeviceGet(&dev, 0)) != CUDA_SUCCESS ||
	    (r = cuDevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS || (r = cuCtxSetCurrent(ctx)) != CUDA_SUCCESS ||
	    (r = cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS ||
	    (r = cuModuleLoadData(&mod, axpb_ptx)) != CUDA_SUCCESS || (r = cuModuleGetFunction(&fn, mod, "axpb")) != CUDA_SUCCESS ||
	    (r = cuMemAlloc(&y, items * sizeof(float))) != CUDA_SUCCESS)
		return fail("setup", (int)r);
	double build, submit, total;
	int rc;
	if ((rc = gour_bench_launch_args(ctx, fn, stream, y, items, n * kernels, &submit, &total)) != CUDA_SUCCESS)
		return fail("cuLaunchKernel with 4 changing arguments", rc);
	printf("cuLaunchKernel, 4 arguments changing every launch: %.0f ns/launch submitted, %.0f ns/launch with the sync (%d launches)\n",
	       submit, total, n * kernels);
	if ((rc = gour_bench_graph(ctx, fn, stream, y, items, kernels, n, &build, &submit, &total)) != CUDA_SUCCESS)
		return fail("graph", rc);
	printf("graph of %d kernels: built and instantiated in %.0f us; replayed %d times: %.1f ns/kernel submitted, %.1f ns/kernel with the sync\n",
	       kernels, build / 1e3, n, submit, total);
	if ((rc = gour_bench_one_by_one(ctx, fn, stream, y, items, kernels, n, &submit, &total)) != CUDA_SUCCESS)
		return fail("one by one", rc);
	printf("the same %d kernels one by one, %d times: %.1f ns/kernel submitted, %.1f ns/kernel with the sync\n",
	       kernels, n, submit, total);
	cuMemFree(y);
	cuModuleUnload(mod);
	cuStreamDestroy(stream);
	cuDevicePrimaryCtxRelease(dev);
	return 0;
}
#endif
