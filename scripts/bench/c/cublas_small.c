// cublas_small: the C side of gour's in-process small-GEMM comparison.
// urbench blas -c-small loads this library into its own process and
// alternates rounds of C calls (one call of gour_bench_cublas_sgemm_loop)
// with rounds of gour's blas.Handle.Gemm, on the same context, stream and
// matrices, so that both run on the same machine, in the same process, at
// the same time: what a C program pays per cublasSgemm is what gour's
// call is compared with.
//
// It declares the few cuBLAS and CUDA driver functions it calls, so it
// builds without the toolkit's headers (cuBLAS may come from a Python
// wheel). Build (scripts/bench/blas.sh does):
//
//   gcc -O2 -shared -fPIC -o bin/libcublas_small.so
//       scripts/bench/cublas_small.c /path/to/libcublas.so.13
//       -l:libcuda.so.1 -Wl,-rpath,/path/to
typedef struct cublasContext *cublasHandle_t;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;

extern int cuCtxSetCurrent(CUcontext ctx);
extern int cublasCreate_v2(cublasHandle_t *handle);
extern int cublasSetStream_v2(cublasHandle_t handle, CUstream stream);
extern int cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, unsigned long size);
extern int cublasSgemm_v2(cublasHandle_t handle, int transa, int transb, int m, int n, int k, const float *alpha,
			  const float *A, int lda, const float *B, int ldb, const float *beta, float *C, int ldc);

static cublasHandle_t handle;
static CUstream bound;

// gour_bench_cublas_sgemm_loop makes ctx current, then calls cublasSgemm
// iters times for the n×n product C = A·B (column-major, no transposes,
// alpha 1, beta 0) on stream, through one handle made on the first call
// (cuBLAS's defaults: host pointer mode, default math, its own
// workspace). It returns the first error: a negative CUresult from the
// driver, else a cublasStatus_t, else 0.
int gour_bench_cublas_sgemm_loop(CUcontext ctx, CUstream stream, const float *A, const float *B, float *C, int n,
				 int iters) {
	int r = cuCtxSetCurrent(ctx);
	if (r != 0)
		return -r;
	if (handle == 0 && (r = cublasCreate_v2(&handle)) != 0)
		return r;
	if (bound != stream) {
		if ((r = cublasSetStream_v2(handle, stream)) != 0)
			return r;
		bound = stream;
	}
	const float alpha = 1, beta = 0;
	for (int i = 0; i < iters; i++)
		if ((r = cublasSgemm_v2(handle, 0, 0, n, n, n, &alpha, A, n, B, n, &beta, C, n)) != 0)
			return r;
	return 0;
}

static cublasHandle_t handles[2];
static CUstream bounds[2];

// gour_bench_cublas_sgemm_loop_with is gour_bench_cublas_sgemm_loop with
// the differences from gour's calls made one at a time, for a breakdown:
// with setctx non-zero it makes ctx current before every call, as gour
// does; with ws non-NULL its handle (one per setting of ws, made on first
// use) computes with the workspace of ws_size bytes at ws, as gour's
// handle does, instead of cuBLAS's own.
int gour_bench_cublas_sgemm_loop_with(CUcontext ctx, CUstream stream, const float *A, const float *B, float *C, int n,
				      int iters, int setctx, void *ws, unsigned long ws_size) {
	int r = cuCtxSetCurrent(ctx);
	if (r != 0)
		return -r;
	int k = ws != 0;
	if (handles[k] == 0 && (r = cublasCreate_v2(&handles[k])) != 0)
		return r;
	if (bounds[k] != stream) {
		if ((r = cublasSetStream_v2(handles[k], stream)) != 0)
			return r;
		if (ws != 0 && (r = cublasSetWorkspace_v2(handles[k], ws, ws_size)) != 0)
			return r;
		bounds[k] = stream;
	}
	const float alpha = 1, beta = 0;
	for (int i = 0; i < iters; i++) {
		if (setctx && (r = cuCtxSetCurrent(ctx)) != 0)
			return -r;
		if ((r = cublasSgemm_v2(handles[k], 0, 0, n, n, n, &alpha, A, n, B, n, &beta, C, n)) != 0)
			return r;
	}
	return 0;
}
