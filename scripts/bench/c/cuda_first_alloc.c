// cuda_first_alloc: what a new process's first device allocation costs
// from C, by the CUDA driver API's three ways to allocate, each in a
// process of its own (the first call is the one measured):
//
//   pool     cuMemPoolCreate, then cuMemAllocFromPoolAsync twice
//   default  cuMemAllocAsync from the device's default pool, twice
//   plain    cuMemAlloc twice, then a first cuMemAllocAsync
//
// It is the measurement behind package compute's choice of pool blocks
// from plain allocations (ur.PoolOptions.ContextAlloc): see
// docs/benchmarks.md, "The compute runtime on the H100".
//
// Build and run:
//   gcc -O1 -o bin/cuda_first_alloc scripts/bench/c/cuda_first_alloc.c \
//       -I/usr/local/cuda/include -lcuda
//   for m in pool default plain; do bin/cuda_first_alloc $m; done
#include <cuda.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// TIMED runs call and prints its time and result; a failure ends main.
#define TIMED(label, call)                                                   \
	do {                                                                     \
		double t0 = now_ms();                                                \
		CUresult r = (call);                                                 \
		printf("%-36s %8.3f ms\n", label, now_ms() - t0);                    \
		if (r != CUDA_SUCCESS) {                                             \
			fprintf(stderr, "%s failed: CUresult %d\n", label, (int)r);      \
			return 1;                                                        \
		}                                                                    \
	} while (0)

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "pool";
	CUdevice dev;
	CUcontext ctx;
	CUstream stream;
	CUdeviceptr a, b;
	TIMED("cuInit", cuInit(0));
	TIMED("cuDeviceGet", cuDeviceGet(&dev, 0));
	TIMED("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx, dev));
	TIMED("cuCtxSetCurrent", cuCtxSetCurrent(ctx));
	TIMED("cuStreamCreate", cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
	if (strcmp(mode, "pool") == 0) {
		CUmemPoolProps props;
		memset(&props, 0, sizeof props);
		props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
		props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		props.location.id = 0;
		CUmemoryPool pool;
		TIMED("cuMemPoolCreate", cuMemPoolCreate(&pool, &props));
		TIMED("first cuMemAllocFromPoolAsync 4 KiB", cuMemAllocFromPoolAsync(&a, 4096, pool, stream));
		TIMED("second cuMemAllocFromPoolAsync", cuMemAllocFromPoolAsync(&b, 4096, pool, stream));
	} else if (strcmp(mode, "default") == 0) {
		TIMED("first cuMemAllocAsync 4 KiB", cuMemAllocAsync(&a, 4096, stream));
		TIMED("second cuMemAllocAsync", cuMemAllocAsync(&b, 4096, stream));
	} else if (strcmp(mode, "plain") == 0) {
		TIMED("first cuMemAlloc 4 KiB", cuMemAlloc(&a, 4096));
		TIMED("second cuMemAlloc", cuMemAlloc(&b, 4096));
		TIMED("then a first cuMemAllocAsync", cuMemAllocAsync(&a, 4096, stream));
	} else {
		fprintf(stderr, "usage: %s pool|default|plain\n", argv[0]);
		return 2;
	}
	TIMED("cuStreamSynchronize", cuStreamSynchronize(stream));
	return 0;
}
