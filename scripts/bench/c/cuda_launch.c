// cuda_launch: the C baseline of gour's CUDA launch benchmark. It loads the
// kernel "empty" from a PTX file, then times ROUNDS rounds of ITERS
// cuLaunchKernel calls (one block of 32 threads, no event) on a
// non-blocking stream, each round followed by one cuStreamSynchronize, and
// prints the median in the format of `urbench launch`.
//
// Build: nvcc -O2 -o bin/cuda_launch scripts/bench/c/cuda_launch.c -lcuda
// Run:   bin/cuda_launch scripts/bench/empty.ptx [ITERS [ROUNDS [setctx]]]
// With "setctx", each launch is preceded by cuCtxSetCurrent, as a
// multi-threaded C program that cannot trust the thread's context does.
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cuda_loop.c" /* the launch loop itself, shared with urbench -c-loop */

#define CHECK(call)                                                          \
	do {                                                                     \
		CUresult r_ = (CUresult)(call);                                      \
		if (r_ != CUDA_SUCCESS) {                                            \
			const char *name_ = "?";                                         \
			cuGetErrorName(r_, &name_);                                      \
			fprintf(stderr, "%s: %s (%d)\n", #call, name_, (int)r_);         \
			exit(1);                                                         \
		}                                                                    \
	} while (0)

static double now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n) {
	qsort(v, n, sizeof *v, cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: %s empty.ptx [ITERS [ROUNDS]]\n", argv[0]);
		return 2;
	}
	int iters = argc > 2 ? atoi(argv[2]) : 20000;
	int rounds = argc > 3 ? atoi(argv[3]) : 10;
	int setctx = argc > 4 && argv[4][0] == 's';
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	static char ptx[1 << 20];
	size_t n = fread(ptx, 1, sizeof ptx - 1, f);
	fclose(f);
	ptx[n] = 0;

	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	CUstream stream;
	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&dev, 0));
	CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(cuModuleLoadData(&mod, ptx));
	CHECK(cuModuleGetFunction(&fn, mod, "empty"));
	CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
	CHECK(gour_bench_launch_loop(ctx, fn, stream, 1000, setctx)); /* warm up */
	CHECK(cuStreamSynchronize(stream));

	double *total = malloc(rounds * sizeof *total), *enq = malloc(rounds * sizeof *enq);
	double lo = 1e300, hi = 0;
	for (int r = 0; r < rounds; r++) {
		double t0 = now_ns();
		CHECK(gour_bench_launch_loop(ctx, fn, stream, iters, setctx));
		double t1 = now_ns();
		CHECK(cuStreamSynchronize(stream));
		double t2 = now_ns();
		total[r] = (t2 - t0) / iters;
		enq[r] = (t1 - t0) / iters;
		if (total[r] < lo) lo = total[r];
		if (total[r] > hi) hi = total[r];
	}
	printf(setctx ? "c+setctx ns/launch" : "c    ns/launch");
	printf(" %.1f enqueue %.1f (median of %d rounds x %d launches; min %.1f max %.1f)\n",
	       median(total, rounds), median(enq, rounds), rounds, iters, lo, hi);
	return 0;
}
