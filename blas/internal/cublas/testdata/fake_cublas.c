// A stand-in for libcublas.so and libcuda.so.1: each function records its
// name, its integer and pointer arguments and the scalars it was given,
// so that the binding's calls can be checked without a GPU. Build with
// cc -shared -fPIC.
#include <string.h>

typedef long long ll;

static const char *last_name = "";
static ll last_args[24];
static int last_nargs;
static double last_alpha, last_beta;
static ll current_ctx;
static int math_mode;
static int pointer_mode;


#define A(i, v) last_args[i] = (ll)(v)

const char *fake_last(ll *args, int *nargs, double *alpha, double *beta, ll *ctx, int *mode) {
	memcpy(args, last_args, sizeof last_args);
	*nargs = last_nargs;
	*alpha = last_alpha;
	*beta = last_beta;
	*ctx = current_ctx;
	*mode = pointer_mode;
	return last_name;
}

static void start(const char *name, int n) {
	last_name = name;
	last_nargs = n;
	memset(last_args, 0, sizeof last_args);
	last_alpha = last_beta = 0;
}

// The CUDA driver: context 0xbad fails with CUDA_ERROR_INVALID_CONTEXT.
int cuCtxSetCurrent(ll ctx) {
	if (ctx == 0xbad)
		return 201;
	current_ctx = ctx;
	return 0;
}
int cuCtxGetId(ll ctx, unsigned long long *id) {
	if (ctx == 0xbad || ctx == 0x1d1e55)
		return 201;
	*id = (unsigned long long)ctx * 10;
	return 0;
}
int cuGetErrorName(int r, const char **s) {
	*s = r == 201 ? "CUDA_ERROR_INVALID_CONTEXT" : "CUDA_ERROR_UNKNOWN";
	return 0;
}

int cublasGetProperty(int type, int *value) {
	*value = type == 0 ? 13 : type == 1 ? 1 : 7;
	return 0;
}
int cublasCreate_v2(void **h) {
	start("cublasCreate_v2", 1);
	*h = (void *)0x4242;
	return 0;
}
int cublasDestroy_v2(void *h) {
	start("cublasDestroy_v2", 1);
	A(0, h);
	return 0;
}
int cublasGetVersion_v2(void *h, int *v) {
	(void)h;
	*v = 130107;
	return 0;
}
int cublasSetStream_v2(void *h, void *s) {
	start("cublasSetStream_v2", 2);
	A(0, h), A(1, s);
	return 0;
}
int cublasSetWorkspace_v2(void *h, void *w, unsigned long size) {
	start("cublasSetWorkspace_v2", 3);
	A(0, h), A(1, w), A(2, size);
	return 0;
}
int cublasSetPointerMode_v2(void *h, int m) {
	(void)h;
	pointer_mode = m;
	return 0;
}
int cublasSetMathMode(void *h, int m) {
	(void)h;
	if (m == 99)
		return 7; // CUBLAS_STATUS_INVALID_VALUE
	math_mode = m;
	return 0;
}
int cublasGetMathMode(void *h, int *m) {
	(void)h;
	*m = math_mode;
	return 0;
}

#define GEMM_BODY(name, T)                                                                     \
	start(name, 14);                                                                           \
	A(0, h), A(1, ta), A(2, tb), A(3, m), A(4, n), A(5, k), A(7, a), A(8, lda), A(9, b);       \
	A(10, ldb), A(12, c), A(13, ldc);                                                          \
	last_alpha = *(const T *)alpha, last_beta = *(const T *)beta;                              \
	return 0;

int cublasSgemm_v2(void *h, int ta, int tb, int m, int n, int k, const float *alpha, const float *a, int lda,
		   const float *b, int ldb, const float *beta, float *c, int ldc) {
	GEMM_BODY("cublasSgemm_v2", float)
}
int cublasDgemm_v2(void *h, int ta, int tb, int m, int n, int k, const double *alpha, const double *a, int lda,
		   const double *b, int ldb, const double *beta, double *c, int ldc) {
	GEMM_BODY("cublasDgemm_v2", double)
}

static void scalars(int compute, const void *alpha, const void *beta) {
	if (compute == 70)
		last_alpha = *(const double *)alpha, last_beta = *(const double *)beta;
	else
		last_alpha = *(const float *)alpha, last_beta = *(const float *)beta;
}

int cublasGemmEx(void *h, int ta, int tb, int m, int n, int k, const void *alpha, const void *a, int at, int lda,
		 const void *b, int bt, int ldb, const void *beta, void *c, int ct, int ldc, int compute, int algo) {
	start("cublasGemmEx", 19);
	A(0, h), A(1, ta), A(2, tb), A(3, m), A(4, n), A(5, k), A(7, a), A(8, at), A(9, lda), A(10, b), A(11, bt);
	A(12, ldb), A(14, c), A(15, ct), A(16, ldc), A(17, compute), A(18, algo);
	scalars(compute, alpha, beta);
	return 0;
}

#define STRIDED_BODY(name, T)                                                                  \
	start(name, 18);                                                                           \
	A(0, h), A(1, ta), A(2, tb), A(3, m), A(4, n), A(5, k), A(7, a), A(8, lda), A(9, sa);      \
	A(10, b), A(11, ldb), A(12, sb), A(14, c), A(15, ldc), A(16, sc), A(17, batch);            \
	last_alpha = *(const T *)alpha, last_beta = *(const T *)beta;                              \
	return 0;

int cublasSgemmStridedBatched(void *h, int ta, int tb, int m, int n, int k, const float *alpha, const float *a,
			      int lda, ll sa, const float *b, int ldb, ll sb, const float *beta, float *c, int ldc,
			      ll sc, int batch) {
	STRIDED_BODY("cublasSgemmStridedBatched", float)
}
int cublasDgemmStridedBatched(void *h, int ta, int tb, int m, int n, int k, const double *alpha, const double *a,
			      int lda, ll sa, const double *b, int ldb, ll sb, const double *beta, double *c,
			      int ldc, ll sc, int batch) {
	STRIDED_BODY("cublasDgemmStridedBatched", double)
}
int cublasGemmStridedBatchedEx(void *h, int ta, int tb, int m, int n, int k, const void *alpha, const void *a,
			       int at, int lda, ll sa, const void *b, int bt, int ldb, ll sb, const void *beta,
			       void *c, int ct, int ldc, ll sc, int batch, int compute, int algo) {
	start("cublasGemmStridedBatchedEx", 23);
	A(0, h), A(1, ta), A(2, tb), A(3, m), A(4, n), A(5, k), A(7, a), A(8, at), A(9, lda), A(10, sa);
	A(11, b), A(12, bt), A(13, ldb), A(14, sb), A(16, c), A(17, ct), A(18, ldc), A(19, sc), A(20, batch);
	A(21, compute), A(22, algo);
	scalars(compute, alpha, beta);
	return 0;
}
int cublasGemmBatchedEx(void *h, int ta, int tb, int m, int n, int k, const void *alpha, const void *const a[],
			int at, int lda, const void *const b[], int bt, int ldb, const void *beta, void *const c[],
			int ct, int ldc, int batch, int compute, int algo) {
	start("cublasGemmBatchedEx", 20);
	A(0, h), A(1, ta), A(2, tb), A(3, m), A(4, n), A(5, k), A(7, a), A(8, at), A(9, lda), A(10, b), A(11, bt);
	A(12, ldb), A(14, c), A(15, ct), A(16, ldc), A(17, batch), A(18, compute), A(19, algo);
	scalars(compute, alpha, beta);
	return 0;
}

#define GEMV_BODY(name, T)                                                                     \
	start(name, 12);                                                                           \
	A(0, h), A(1, t), A(2, m), A(3, n), A(5, a), A(6, lda), A(7, x), A(8, incx), A(10, y);     \
	A(11, incy);                                                                               \
	last_alpha = *(const T *)alpha, last_beta = *(const T *)beta;                              \
	return 0;

int cublasSgemv_v2(void *h, int t, int m, int n, const float *alpha, const float *a, int lda, const float *x,
		   int incx, const float *beta, float *y, int incy) {
	GEMV_BODY("cublasSgemv_v2", float)
}
int cublasDgemv_v2(void *h, int t, int m, int n, const double *alpha, const double *a, int lda, const double *x,
		   int incx, const double *beta, double *y, int incy) {
	GEMV_BODY("cublasDgemv_v2", double)
}

#define AXPY(name, T)                                                                          \
	int name(void *h, int n, const T *alpha, const T *x, int incx, T *y, int incy) {           \
		start(#name, 7);                                                                       \
		A(0, h), A(1, n), A(3, x), A(4, incx), A(5, y), A(6, incy);                            \
		last_alpha = *alpha;                                                                   \
		return 0;                                                                              \
	}
AXPY(cublasSaxpy_v2, float)
AXPY(cublasDaxpy_v2, double)

#define XY(name, T)                                                                            \
	int name(void *h, int n, const T *x, int incx, T *y, int incy) {                           \
		start(#name, 6);                                                                       \
		A(0, h), A(1, n), A(2, x), A(3, incx), A(4, y), A(5, incy);                            \
		return 0;                                                                              \
	}
XY(cublasScopy_v2, float)
XY(cublasDcopy_v2, double)
XY(cublasSswap_v2, float)
XY(cublasDswap_v2, double)

#define DOT(name, T)                                                                           \
	int name(void *h, int n, const T *x, int incx, const T *y, int incy, T *r) {               \
		start(#name, 7);                                                                       \
		A(0, h), A(1, n), A(2, x), A(3, incx), A(4, y), A(5, incy), A(6, r);                   \
		return pointer_mode == 1 ? 0 : 14;                                                     \
	}
DOT(cublasSdot_v2, float)
DOT(cublasDdot_v2, double)

#define RED(name, T, R)                                                                        \
	int name(void *h, int n, const T *x, int incx, R *r) {                                     \
		start(#name, 5);                                                                       \
		A(0, h), A(1, n), A(2, x), A(3, incx), A(4, r);                                        \
		return pointer_mode == 1 ? 0 : 14;                                                     \
	}
RED(cublasSnrm2_v2, float, float)
RED(cublasDnrm2_v2, double, double)
RED(cublasSasum_v2, float, float)
RED(cublasDasum_v2, double, double)
RED(cublasIsamax_v2, float, int)
RED(cublasIdamax_v2, double, int)

#define SCAL(name, T)                                                                          \
	int name(void *h, int n, const T *alpha, T *x, int incx) {                                 \
		start(#name, 5);                                                                       \
		A(0, h), A(1, n), A(3, x), A(4, incx);                                                 \
		last_alpha = *alpha;                                                                   \
		return pointer_mode == 0 ? 0 : 14;                                                     \
	}
SCAL(cublasSscal_v2, float)
SCAL(cublasDscal_v2, double)

int cublasAxpyEx(void *h, int n, const void *alpha, int at, const void *x, int xt, int incx, void *y, int yt,
		 int incy, int et) {
	start("cublasAxpyEx", 11);
	A(0, h), A(1, n), A(3, at), A(4, x), A(5, xt), A(6, incx), A(7, y), A(8, yt), A(9, incy), A(10, et);
	last_alpha = *(const float *)alpha;
	return 0;
}
int cublasDotEx(void *h, int n, const void *x, int xt, int incx, const void *y, int yt, int incy, void *r, int rt,
		int et) {
	start("cublasDotEx", 11);
	A(0, h), A(1, n), A(2, x), A(3, xt), A(4, incx), A(5, y), A(6, yt), A(7, incy), A(8, r), A(9, rt), A(10, et);
	return 0;
}
int cublasNrm2Ex(void *h, int n, const void *x, int xt, int incx, void *r, int rt, int et) {
	start("cublasNrm2Ex", 8);
	A(0, h), A(1, n), A(2, x), A(3, xt), A(4, incx), A(5, r), A(6, rt), A(7, et);
	return 0;
}
int cublasScalEx(void *h, int n, const void *alpha, int at, void *x, int xt, int incx, int et) {
	start("cublasScalEx", 8);
	A(0, h), A(1, n), A(3, at), A(4, x), A(5, xt), A(6, incx), A(7, et);
	last_alpha = *(const float *)alpha;
	return 0;
}

#define TRSM_BODY(name, T)                                                                     \
	start(name, 12);                                                                           \
	A(0, h), A(1, side), A(2, fill), A(3, t), A(4, diag), A(5, m), A(6, n), A(8, a), A(9, lda); \
	A(10, b), A(11, ldb);                                                                      \
	last_alpha = *(const T *)alpha;                                                            \
	return 0;

int cublasStrsm_v2(void *h, int side, int fill, int t, int diag, int m, int n, const float *alpha, const float *a,
		   int lda, float *b, int ldb) {
	TRSM_BODY("cublasStrsm_v2", float)
}
int cublasDtrsm_v2(void *h, int side, int fill, int t, int diag, int m, int n, const double *alpha, const double *a,
		   int lda, double *b, int ldb) {
	TRSM_BODY("cublasDtrsm_v2", double)
}
