// cuda_loop: the C side of gour's in-process launch comparison. urbench
// launch -c-loop loads this library into its own process and alternates
// rounds of C launches (one call of gour_bench_launch_loop) with rounds of
// gour launches, on the same context, stream and kernel, so that both run
// on the same machine, in the same process, at the same time.
//
// Build: nvcc -O2 -shared -Xcompiler -fPIC -o bin/libcudaloop.so \
//          scripts/bench/c/cuda_loop.c -lcuda
#include <cuda.h>

// gour_bench_launch_loop makes ctx current, then launches fn n times as
// cuda_launch.c does: one block of 32 threads, one 8-byte argument, no
// event. With setctx non-zero it makes ctx current before every launch, as
// a C program must when it cannot know which context its thread has. It
// returns the first error, or CUDA_SUCCESS.
int gour_bench_launch_loop(CUcontext ctx, CUfunction fn, CUstream stream, int n, int setctx) {
	CUresult r = cuCtxSetCurrent(ctx);
	if (r != CUDA_SUCCESS)
		return r;
	unsigned long long p = 0;
	void *params[] = {&p};
	for (int i = 0; i < n; i++) {
		if (setctx && (r = cuCtxSetCurrent(ctx)) != CUDA_SUCCESS)
			return r;
		r = cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, stream, params, NULL);
		if (r != CUDA_SUCCESS)
			return r;
	}
	return CUDA_SUCCESS;
}
