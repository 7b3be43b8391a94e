// cuda_mem: the C side of gour's memory benchmarks, called from C against
// the CUDA driver API as a program would, to set beside the same work
// through gour:
//
//   gour_bench_alloc_free      n × (cuMemAlloc + cuMemFree) of size bytes
//   gour_bench_pool_alloc_free n × (cuMemAllocFromPoolAsync + cuMemFreeAsync)
//                              of size bytes on a stream, then one sync
//   gour_bench_pinned_copy     cuMemcpyHtoDAsync and cuMemcpyDtoHAsync of
//                              size bytes from cuMemHostAlloc memory
//
// A Go benchmark loads the library (dl.Open, as urbench launch -c-loop
// loads libcudaloop.so) and calls them on its own context and stream, so
// both run in one process on one machine. Built with -DGOUR_BENCH_MAIN it
// is also a program that runs all three on device 0 and prints the
// figures.
//
// Build, as a library and as a program:
//   nvcc -O2 -shared -Xcompiler -fPIC -o bin/libcudamem.so scripts/bench/c/cuda_mem.c -lcuda
//   nvcc -O2 -DGOUR_BENCH_MAIN -o bin/cuda_mem scripts/bench/c/cuda_mem.c -lcuda
// Run: bin/cuda_mem [iterations]   (default 10000; the copies: 256 MiB, 20 each way)
#include <cuda.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

// gour_bench_alloc_free makes ctx current and times n iterations of
// cuMemAlloc(size) + cuMemFree, after one untimed iteration. It stores the
// mean nanoseconds of one iteration (both calls) in *ns and returns the
// first error, or CUDA_SUCCESS.
int gour_bench_alloc_free(CUcontext ctx, size_t size, int n, double *ns) {
	CUresult r = cuCtxSetCurrent(ctx);
	if (r != CUDA_SUCCESS)
		return r;
	CUdeviceptr p;
	if ((r = cuMemAlloc(&p, size)) != CUDA_SUCCESS || (r = cuMemFree(p)) != CUDA_SUCCESS)
		return r;
	double t0 = now_ns();
	for (int i = 0; i < n; i++) {
		if ((r = cuMemAlloc(&p, size)) != CUDA_SUCCESS)
			return r;
		if ((r = cuMemFree(p)) != CUDA_SUCCESS)
			return r;
	}
	*ns = (now_ns() - t0) / (n > 0 ? n : 1);
	return CUDA_SUCCESS;
}

// gour_bench_pool_alloc_free makes ctx current and times n iterations of
// cuMemAllocFromPoolAsync(size) + cuMemFreeAsync on stream, then one
// cuStreamSynchronize, which the time includes. pool 0 makes a pool of
// pinned memory on the context's device that keeps what it reserves
// (release threshold UINT64_MAX), destroyed at the end; one untimed
// iteration fills it first. It stores the mean nanoseconds of one
// iteration in *ns and returns the first error, or CUDA_SUCCESS.
int gour_bench_pool_alloc_free(CUcontext ctx, CUstream stream, CUmemoryPool pool, size_t size, int n, double *ns) {
	// Declared before the first goto, so that the file also compiles as C++.
	CUmemoryPool own = NULL;
	CUdeviceptr p;
	double t0;
	CUresult r = cuCtxSetCurrent(ctx);
	if (r != CUDA_SUCCESS)
		return r;
	if (pool == NULL) {
		CUdevice dev;
		if ((r = cuCtxGetDevice(&dev)) != CUDA_SUCCESS)
			return r;
		CUmemPoolProps props;
		memset(&props, 0, sizeof props);
		props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
		props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
		props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		props.location.id = dev;
		if ((r = cuMemPoolCreate(&own, &props)) != CUDA_SUCCESS)
			return r;
		cuuint64_t keep = UINT64_MAX;
		if ((r = cuMemPoolSetAttribute(own, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep)) != CUDA_SUCCESS)
			goto out;
		pool = own;
	}
	if ((r = cuMemAllocFromPoolAsync(&p, size, pool, stream)) != CUDA_SUCCESS ||
	    (r = cuMemFreeAsync(p, stream)) != CUDA_SUCCESS ||
	    (r = cuStreamSynchronize(stream)) != CUDA_SUCCESS)
		goto out;
	t0 = now_ns();
	for (int i = 0; i < n; i++) {
		if ((r = cuMemAllocFromPoolAsync(&p, size, pool, stream)) != CUDA_SUCCESS)
			goto out;
		if ((r = cuMemFreeAsync(p, stream)) != CUDA_SUCCESS)
			goto out;
	}
	if ((r = cuStreamSynchronize(stream)) != CUDA_SUCCESS)
		goto out;
	*ns = (now_ns() - t0) / (n > 0 ? n : 1);
out:
	if (own != NULL) {
		CUresult r2 = cuMemPoolDestroy(own);
		if (r == CUDA_SUCCESS)
			r = r2;
	}
	return r;
}

// copy_gbps times reps asynchronous copies of size bytes on stream between
// two events (after one untimed copy) and returns GB/s (1e9 bytes per
// second) in *gbps.
static CUresult copy_gbps(CUstream stream, int h2d, CUdeviceptr dev, void *host, size_t size, int reps, double *gbps) {
	CUevent start, end;
	CUresult r;
	if ((r = cuEventCreate(&start, CU_EVENT_DEFAULT)) != CUDA_SUCCESS)
		return r;
	if ((r = cuEventCreate(&end, CU_EVENT_DEFAULT)) != CUDA_SUCCESS) {
		cuEventDestroy(start);
		return r;
	}
	for (int i = -1; i < reps && r == CUDA_SUCCESS; i++) {
		if (i == 0 && (r = cuEventRecord(start, stream)) != CUDA_SUCCESS)
			break;
		r = h2d ? cuMemcpyHtoDAsync(dev, host, size, stream) : cuMemcpyDtoHAsync(host, dev, size, stream);
		if (i == -1 && r == CUDA_SUCCESS)
			r = cuStreamSynchronize(stream);
	}
	float ms = 0;
	if (r == CUDA_SUCCESS && (r = cuEventRecord(end, stream)) == CUDA_SUCCESS &&
	    (r = cuEventSynchronize(end)) == CUDA_SUCCESS &&
	    (r = cuEventElapsedTime(&ms, start, end)) == CUDA_SUCCESS)
		*gbps = ms > 0 ? (double)size * reps / (ms * 1e-3) / 1e9 : 0;
	cuEventDestroy(start);
	cuEventDestroy(end);
	return r;
}

// gour_bench_pinned_copy makes ctx current, allocates size bytes of
// page-locked host memory (cuMemHostAlloc, PORTABLE | DEVICEMAP, as gour's
// USM host allocations) and of device memory, and times reps copies each
// way on stream with events. It stores GB/s host to device in *h2d and
// device to host in *d2h and returns the first error, or CUDA_SUCCESS.
int gour_bench_pinned_copy(CUcontext ctx, CUstream stream, size_t size, int reps, double *h2d, double *d2h) {
	CUresult r = cuCtxSetCurrent(ctx);
	if (r != CUDA_SUCCESS)
		return r;
	void *host = NULL;
	CUdeviceptr dev = 0;
	if ((r = cuMemHostAlloc(&host, size, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP)) != CUDA_SUCCESS)
		return r;
	memset(host, 1, size); // touch every page before timing
	if ((r = cuMemAlloc(&dev, size)) == CUDA_SUCCESS &&
	    (r = copy_gbps(stream, 1, dev, host, size, reps, h2d)) == CUDA_SUCCESS)
		r = copy_gbps(stream, 0, dev, host, size, reps, d2h);
	if (dev != 0)
		cuMemFree(dev);
	cuMemFreeHost(host);
	return r;
}

#ifdef GOUR_BENCH_MAIN
#include <stdio.h>
#include <stdlib.h>

static int fail(const char *what, int r) {
	const char *name = NULL;
	cuGetErrorName((CUresult)r, &name);
	fprintf(stderr, "%s: %s (%d)\n", what, name ? name : "?", r);
	return 1;
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 10000;
	CUdevice dev;
	CUcontext ctx;
	CUstream stream;
	CUresult r;
	if ((r = cuInit(0)) != CUDA_SUCCESS || (r = cuDeviceGet(&dev, 0)) != CUDA_SUCCESS ||
	    (r = cuDevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS || (r = cuCtxSetCurrent(ctx)) != CUDA_SUCCESS ||
	    (r = cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
		return fail("setup", (int)r);
	const size_t mib = 1 << 20;
	double ns, h2d, d2h;
	int rc;
	if ((rc = gour_bench_alloc_free(ctx, mib, n, &ns)) != CUDA_SUCCESS)
		return fail("cuMemAlloc+cuMemFree", rc);
	printf("cuMemAlloc+cuMemFree 1 MiB: %.0f ns/iteration (%d iterations)\n", ns, n);
	if ((rc = gour_bench_pool_alloc_free(ctx, stream, NULL, mib, n, &ns)) != CUDA_SUCCESS)
		return fail("cuMemAllocFromPoolAsync+cuMemFreeAsync", rc);
	printf("cuMemAllocFromPoolAsync+cuMemFreeAsync 1 MiB: %.0f ns/iteration (%d iterations, one sync)\n", ns, n);
	if ((rc = gour_bench_pinned_copy(ctx, stream, 256 * mib, 20, &h2d, &d2h)) != CUDA_SUCCESS)
		return fail("pinned copies", rc);
	printf("256 MiB from cuMemHostAlloc memory: host to device %.2f GB/s, device to host %.2f GB/s\n", h2d, d2h);
	cuStreamDestroy(stream);
	cuDevicePrimaryCtxRelease(dev);
	return 0;
}
#endif
