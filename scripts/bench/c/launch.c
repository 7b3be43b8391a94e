// launch: the C baseline of gour's launch benchmark.
//
// It times the sequence gour's BenchmarkLaunch and golaunch time, through
// OpenCL directly: on the first PoCL CPU device, build the kernel "add1"
// from the file given, then per round run ITERS times
//     clSetKernelArg(k, 0, buffer) + clEnqueueNDRangeKernel(global 1024, no event)
// followed by one clFinish. It prints the median over ROUNDS rounds of the
// nanoseconds per launch, and of the time until the last launch returned
// (before clFinish: what the host spends enqueueing), in the format
// golaunch uses:
//     c    ns/launch 1234.5 enqueue 567.8 (median of R rounds x N launches; min ... max ...)
// and checks at the end that every launch ran (each adds 1 to every element).
//
// It lives apart from the Go files: the go command refuses .c files in a
// package that does not use cgo.
//
// With --setarg it times clSetKernelArg alone instead (ITERS calls per
// round), the counterpart of BenchmarkSetArgMem:
//     c    ns/setarg 16.4 (median of R rounds x N calls)
//
// Build: gcc -O2 -o launch launch.c -lOpenCL
// Run:   ./launch [--setarg] ../add1.cl [ITERS [ROUNDS]]
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GLOBAL 1024
#define WARMUP 1000

#define CHECK(call)                                                         \
	do {                                                                    \
		cl_int err_ = (call);                                               \
		if (err_ != CL_SUCCESS) {                                           \
			fprintf(stderr, "launch: %s failed: %d (line %d)\n", #call,     \
			        err_, __LINE__);                                        \
			exit(1);                                                        \
		}                                                                   \
	} while (0)

static double now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

// median sorts xs and returns its median.
static double median(double *xs, int n) {
	qsort(xs, (size_t)n, sizeof *xs, cmp_double);
	return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

static char *read_file(const char *path) {
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "launch: cannot read %s\n", path);
		exit(1);
	}
	s[n] = 0;
	fclose(f);
	return s;
}

// first_pocl_cpu finds the first CPU device of the first PoCL platform.
static cl_device_id first_pocl_cpu(void) {
	cl_uint np = 0;
	CHECK(clGetPlatformIDs(0, NULL, &np));
	cl_platform_id *ps = calloc(np, sizeof *ps);
	CHECK(clGetPlatformIDs(np, ps, NULL));
	for (cl_uint i = 0; i < np; i++) {
		char name[256] = {0};
		CHECK(clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name - 1, name, NULL));
		if (!strstr(name, "Portable Computing Language"))
			continue;
		cl_device_id d;
		cl_uint nd = 0;
		if (clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_CPU, 1, &d, &nd) == CL_SUCCESS && nd > 0) {
			free(ps);
			return d;
		}
	}
	fprintf(stderr, "launch: no PoCL CPU device\n");
	exit(1);
}

int main(int argc, char **argv) {
	int setarg_only = argc > 1 && strcmp(argv[1], "--setarg") == 0;
	if (setarg_only) {
		argc--;
		argv++;
	}
	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: launch [--setarg] KERNEL.cl [ITERS [ROUNDS]]\n");
		return 2;
	}
	const char *src = read_file(argv[1]);
	long iters = argc > 2 ? atol(argv[2]) : 20000;
	int rounds = argc > 3 ? atoi(argv[3]) : 10;
	if (iters <= 0 || rounds <= 0) {
		fprintf(stderr, "launch: ITERS and ROUNDS must be positive\n");
		return 2;
	}

	cl_int err;
	cl_device_id dev = first_pocl_cpu();
	cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	CHECK(err);
	cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
	CHECK(err);
	cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
	CHECK(err);
	if (clBuildProgram(prog, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
		char log[16384] = {0};
		clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
		fprintf(stderr, "launch: build failed:\n%s\n", log);
		return 1;
	}
	cl_kernel k = clCreateKernel(prog, "add1", &err);
	CHECK(err);
	float zeros[GLOBAL] = {0};
	cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zeros, zeros, &err);
	CHECK(err);
	const size_t global = GLOBAL;

	if (setarg_only) {
		double *ns = calloc((size_t)rounds, sizeof *ns);
		for (int r = 0; r < rounds; r++) {
			double t0 = now_ns();
			for (long i = 0; i < iters; i++)
				CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
			ns[r] = (now_ns() - t0) / (double)iters;
		}
		printf("c    ns/setarg %.1f (median of %d rounds x %ld calls)\n", median(ns, rounds), rounds, iters);
		return 0;
	}

	for (int i = 0; i < WARMUP; i++) {
		CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
		CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
	}
	CHECK(clFinish(q));

	double *ns = calloc((size_t)rounds, sizeof *ns);
	double *enq = calloc((size_t)rounds, sizeof *enq);
	for (int r = 0; r < rounds; r++) {
		double t0 = now_ns();
		for (long i = 0; i < iters; i++) {
			CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
			CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
		}
		double t1 = now_ns();
		CHECK(clFinish(q));
		ns[r] = (now_ns() - t0) / (double)iters;
		enq[r] = (t1 - t0) / (double)iters;
	}

	float out[GLOBAL];
	CHECK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
	float want = (float)(WARMUP + iters * rounds);
	for (int i = 0; i < GLOBAL; i++) {
		if (out[i] != want) {
			fprintf(stderr, "launch: y[%d] = %g, want %g: not every launch ran\n", i, out[i], want);
			return 1;
		}
	}

	qsort(ns, (size_t)rounds, sizeof *ns, cmp_double);
	printf("c    ns/launch %.1f enqueue %.1f (median of %d rounds x %ld launches; min %.1f max %.1f)\n",
	       median(ns, rounds), median(enq, rounds), rounds, iters, ns[0], ns[rounds - 1]);

	clReleaseMemObject(buf);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
	return 0;
}
