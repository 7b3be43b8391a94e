package blas

import (
	"fmt"
	"strings"

	"github.com/gour-dev/gour/dtype"
)

// The own kernels are one C text for OpenCL C and CUDA C: a prelude per
// language maps its spelling (kernel qualifiers, address spaces, work-item
// indices, barriers) and one per element type its storage (ST), the type
// it computes in (ACC: float for float32, float16 and bfloat16, double
// for float64) and the loads and stores between them (LD, STV). A
// program holds every kernel of one type and one GEMM tiling.

// clPrelude spells OpenCL C.
const clPrelude = `#define KERNEL __kernel void
#define GLOBAL __global
#define LOCAL __local
#define LOCAL_PTR __local
#define GEMM_BOUNDS
#define FN
#define RESTRICT restrict
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define LID() ((int)get_local_id(0))
#define LSIZE() ((int)get_local_size(0))
#define GROUP(d) get_group_id(d)
#define NGROUPS() ((long)get_num_groups(0))
#define GID() ((long)get_global_id(0))
#define GSIZE() ((long)get_global_size(0))
#define AS_UINT(x) as_uint(x)
#define AS_FLOAT(x) as_float(x)
#define LDS4(p) vload4(0, (p))
#define LDG4(p) vload4(0, (p))
#define STG4(p, v) vstore4((v), 0, (p))
#define F4(a, b, c, d) ((float4)((a), (b), (c), (d)))
`

// cudaPrelude spells CUDA C for NVRTC, without headers.
const cudaPrelude = `// OpenCL C's names of the unsigned types, as macros: a header NVRTC
// includes may have typedefs of them already.
#define ulong unsigned long long
#define uint unsigned int
#define ushort unsigned short
#define KERNEL extern "C" __global__ void
#define GLOBAL
#define LOCAL __shared__ __align__(16)
#define LOCAL_PTR
// Two GEMM work-groups an SM: at most 128 registers a thread, so that
// the compiler does not trade the second for registers.
#define GEMM_BOUNDS __launch_bounds__(NT, 2)
#define FN static __device__ __forceinline__
#define RESTRICT __restrict__
#define BARRIER() __syncthreads()
#define LID() ((int)threadIdx.x)
#define LSIZE() ((int)blockDim.x)
#define GROUP(d) ((d) == 0 ? blockIdx.x : (d) == 1 ? blockIdx.y : blockIdx.z)
#define NGROUPS() ((long)gridDim.x)
#define GID() ((long)blockIdx.x * blockDim.x + threadIdx.x)
#define GSIZE() ((long)gridDim.x * blockDim.x)
#define AS_UINT(x) __float_as_uint(x)
#define AS_FLOAT(x) __uint_as_float(x)
#define LDS4(p) (*(const float4*)(p))
#define LDG4(p) (*(const float4*)(p))
#define STG4(p, v) (*(float4*)(p) = (v))
FN float4 F4(float a, float b, float c, float d) { float4 v; v.x = a; v.y = b; v.z = c; v.w = d; return v; }
`

// typePrelude defines ST, ACC, LD and STV for t in lang ("opencl" or
// "cuda"), and ABS, SQRT, ISNAN for ACC.
func typePrelude(lang string, t dtype.Type) string {
	var b strings.Builder
	cuda := lang == "cuda"
	acc, accFloat := "float", 1
	if t == dtype.Float64 {
		acc, accFloat = "double", 0
	}
	fmt.Fprintf(&b, "typedef %s ACC;\n#define ACC_FLOAT %d\n", acc, accFloat)
	switch {
	case t == dtype.Float64 && cuda:
		b.WriteString("#define ABS(x) fabs(x)\n#define SQRT(x) sqrt(x)\n")
	case cuda:
		b.WriteString("#define ABS(x) fabsf(x)\n#define SQRT(x) sqrtf(x)\n")
	default:
		b.WriteString("#define ABS(x) fabs(x)\n#define SQRT(x) sqrt(x)\n")
	}
	switch t {
	case dtype.Float32:
		b.WriteString("typedef float ST;\ntypedef uint RAW;\n#define LD(p, i) ((p)[i])\n#define STV(p, i, v) ((p)[i] = (v))\n")
	case dtype.Float64:
		if !cuda {
			b.WriteString("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n")
		}
		b.WriteString("typedef double ST;\ntypedef ulong RAW;\n#define LD(p, i) ((p)[i])\n#define STV(p, i, v) ((p)[i] = (v))\n")
	case dtype.Float16:
		if cuda {
			// PTX's conversions: no cuda_fp16.h under NVRTC.
			b.WriteString(`typedef ushort ST;
typedef ushort RAW;
FN float h2f(ushort h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
FN ushort f2h(float f) { ushort h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
#define LD(p, i) h2f((p)[i])
#define STV(p, i, v) ((p)[i] = f2h(v))
`)
		} else {
			// half as a storage type through vload_half and
			// vstore_half_rte, which need no cl_khr_fp16.
			b.WriteString("typedef half ST;\ntypedef ushort RAW;\n#define LD(p, i) vload_half((i), (p))\n#define STV(p, i, v) vstore_half_rte((v), (i), (p))\n")
		}
	case dtype.BFloat16:
		// bfloat16 is the upper half of a float32: widening is a shift,
		// narrowing rounds to nearest even and keeps NaNs quiet.
		b.WriteString(`typedef ushort ST;
typedef ushort RAW;
FN float bf2f(ushort h) { return AS_FLOAT((uint)h << 16); }
FN ushort f2bf(float f) {
	uint u = AS_UINT(f);
	if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (ushort)(u >> 16);
}
#define LD(p, i) bf2f((p)[i])
#define STV(p, i, v) ((p)[i] = f2bf(v))
`)
	}
	return b.String()
}

// gemmTiling is a GEMM kernel's blocking: a work-group of
// (BM/TM)*(BN/TN) work-items computes a BM×BN block of C, each work-item
// a TM×TN micro-tile in registers, stepping through K by BK with A's and
// B's slices in local memory (two of each: the next slice is loaded into
// registers while the current one is multiplied, and one barrier a step
// orders the two).
type gemmTiling struct {
	BM, BN, BK, TM, TN int
}

func (g gemmTiling) threads() int { return (g.BM / g.TM) * (g.BN / g.TN) }

// vec reports whether the tiling has a four-at-a-time variant: each
// work-item loads whole groups of four of A's and B's slices.
func (g gemmTiling) vec() bool {
	la, lb := g.BM*g.BK/g.threads(), g.BN*g.BK/g.threads()
	return la >= 4 && la%4 == 0 && lb >= 4 && lb%4 == 0
}

// The tilings. big is for GPUs with float accumulators (8×8 per
// work-item, 256 work-items, 16 KiB of local memory); mid for other
// devices and float64 on GPUs (32 KiB at most); small for devices whose
// work-groups are smaller than 256.
var (
	tilingBig   = gemmTiling{BM: 128, BN: 128, BK: 8, TM: 8, TN: 8}
	tilingMid   = gemmTiling{BM: 64, BN: 64, BK: 16, TM: 4, TN: 4}
	tilingF64   = gemmTiling{BM: 64, BN: 64, BK: 8, TM: 4, TN: 4}
	tilingSmall = gemmTiling{BM: 32, BN: 32, BK: 8, TM: 4, TN: 4}
)

// gemmKernelName names the GEMM kernel for the transposes and whether
// it loads four elements at a time, without allocating: a call makes
// one lookup.
func gemmKernelName(ta, tb Transpose, vec bool) string { return gemmNames[ta][tb][b2i(vec)] }

var gemmNames = func() (names [2][2][2]string) {
	for _, ta := range []Transpose{NoTrans, Trans} {
		for _, tb := range []Transpose{NoTrans, Trans} {
			names[ta][tb][0] = "gemm_" + ta.String() + tb.String()
			names[ta][tb][1] = names[ta][tb][0] + "_v4"
		}
	}
	return names
}()

// gemmBody is the GEMM kernel over the macros NAME, TA, TB, VEC, BM, BN,
// BK, TM, TN. Row-major: op(A)(m, k) is A[m*lda + k], or A[k*lda + m]
// with TA; op(B)(k, n) is B[k*ldb + n], or B[n*ldb + k] with TB. Loads
// outside the matrices read zeros, so edges need no other path. VEC (for
// float32, where the host has checked that M, N, K, the leading
// dimensions and offsets are multiples of 4 and the addresses 16-byte
// aligned) moves four elements at a time, each group of four wholly
// inside or outside the matrix.
const gemmBody = `
#define NT ((BM / TM) * (BN / TN))
#define LA (BM * BK / NT)
#define LB (BN * BK / NT)
KERNEL GEMM_BOUNDS NAME(const GLOBAL ST* RESTRICT A, ulong offA, const GLOBAL ST* RESTRICT B, ulong offB,
		GLOBAL ST* RESTRICT C, ulong offC, int M, int N, int K, int lda, int ldb, int ldc,
		ACC alpha, ACC beta, ulong strideA, ulong strideB, ulong strideC, ulong batch0)
{
	LOCAL ACC As[2][BK][BM];
	LOCAL ACC Bs[2][BK][BN];
	const ulong z = batch0 + GROUP(2);
	A += offA + z * strideA;
	B += offB + z * strideB;
	C += offC + z * strideC;
	// Unsigned: divisions by the tiling's powers of two are then shifts
	// (and LLVM 15 emits no freeze, which llvm-spirv cannot translate).
	const uint t = LID();
	const int m0 = (int)GROUP(1) * BM, n0 = (int)GROUP(0) * BN;
	const int tx = t % (BN / TN), ty = t / (BN / TN);
	ACC acc[TM][TN];
	ACC ra[LA], rb[LB];
#pragma unroll
	for (int i = 0; i < TM; i++)
#pragma unroll
		for (int j = 0; j < TN; j++)
			acc[i][j] = 0;

#if VEC
#define LOAD_TILES(k0) do { \
	_Pragma("unroll") for (int c = 0; c < LA / 4; c++) { \
		const uint l = t + c * NT; \
		uint m, k; \
		if (TA) { k = l / (BM / 4); m = (l % (BM / 4)) * 4; } else { m = l / (BK / 4); k = (l % (BK / 4)) * 4; } \
		const int gm = m0 + (int)m, gk = (k0) + (int)k; \
		float4 v = F4(0, 0, 0, 0); \
		if (gm < M && gk < K) v = LDG4(A + (TA ? (long)gk * lda + gm : (long)gm * lda + gk)); \
		ra[4 * c] = v.x; ra[4 * c + 1] = v.y; ra[4 * c + 2] = v.z; ra[4 * c + 3] = v.w; \
	} \
	_Pragma("unroll") for (int c = 0; c < LB / 4; c++) { \
		const uint l = t + c * NT; \
		uint n, k; \
		if (TB) { n = l / (BK / 4); k = (l % (BK / 4)) * 4; } else { k = l / (BN / 4); n = (l % (BN / 4)) * 4; } \
		const int gn = n0 + (int)n, gk = (k0) + (int)k; \
		float4 v = F4(0, 0, 0, 0); \
		if (gn < N && gk < K) v = LDG4(B + (TB ? (long)gn * ldb + gk : (long)gk * ldb + gn)); \
		rb[4 * c] = v.x; rb[4 * c + 1] = v.y; rb[4 * c + 2] = v.z; rb[4 * c + 3] = v.w; \
	} \
} while (0)
#define STORE_TILES(buf) do { \
	_Pragma("unroll") for (int c = 0; c < LA / 4; c++) { \
		const uint l = t + c * NT; \
		_Pragma("unroll") for (int e = 0; e < 4; e++) { \
			if (TA) As[buf][l / (BM / 4)][(l % (BM / 4)) * 4 + e] = ra[4 * c + e]; \
			else As[buf][(l % (BK / 4)) * 4 + e][l / (BK / 4)] = ra[4 * c + e]; \
		} \
	} \
	_Pragma("unroll") for (int c = 0; c < LB / 4; c++) { \
		const uint l = t + c * NT; \
		_Pragma("unroll") for (int e = 0; e < 4; e++) { \
			if (TB) Bs[buf][(l % (BK / 4)) * 4 + e][l / (BK / 4)] = rb[4 * c + e]; \
			else Bs[buf][l / (BN / 4)][(l % (BN / 4)) * 4 + e] = rb[4 * c + e]; \
		} \
	} \
} while (0)
#else
#define LOAD_TILES(k0) do { \
	_Pragma("unroll") for (int c = 0; c < LA; c++) { \
		const uint l = t + c * NT; \
		const uint m = TA ? l % BM : l / BK, k = TA ? l / BM : l % BK; \
		const int gm = m0 + (int)m, gk = (k0) + (int)k; \
		ra[c] = (gm < M && gk < K) ? LD(A, TA ? (long)gk * lda + gm : (long)gm * lda + gk) : (ACC)0; \
	} \
	_Pragma("unroll") for (int c = 0; c < LB; c++) { \
		const uint l = t + c * NT; \
		const uint n = TB ? l / BK : l % BN, k = TB ? l % BK : l / BN; \
		const int gn = n0 + (int)n, gk = (k0) + (int)k; \
		rb[c] = (gn < N && gk < K) ? LD(B, TB ? (long)gn * ldb + gk : (long)gk * ldb + gn) : (ACC)0; \
	} \
} while (0)
#define STORE_TILES(buf) do { \
	_Pragma("unroll") for (int c = 0; c < LA; c++) { \
		const uint l = t + c * NT; \
		As[buf][TA ? l / BM : l % BK][TA ? l % BM : l / BK] = ra[c]; \
	} \
	_Pragma("unroll") for (int c = 0; c < LB; c++) { \
		const uint l = t + c * NT; \
		Bs[buf][TB ? l % BK : l / BN][TB ? l / BK : l % BN] = rb[c]; \
	} \
} while (0)
#endif

	LOAD_TILES(0);
	STORE_TILES(0);
	BARRIER();
	for (int k0 = 0; k0 < K; k0 += BK) {
		const int buf = (k0 / BK) & 1;
		const int more = k0 + BK < K;
		if (more) LOAD_TILES(k0 + BK);
#pragma unroll
		for (int kk = 0; kk < BK; kk++) {
			ACC a[TM], b[TN];
#if ACC_FLOAT
#pragma unroll
			for (int i = 0; i < TM / 4; i++) {
				const float4 v = LDS4(&As[buf][kk][i * (BM / (TM / 4)) + ty * 4]);
				a[4 * i] = v.x; a[4 * i + 1] = v.y; a[4 * i + 2] = v.z; a[4 * i + 3] = v.w;
			}
#pragma unroll
			for (int j = 0; j < TN / 4; j++) {
				const float4 v = LDS4(&Bs[buf][kk][j * (BN / (TN / 4)) + tx * 4]);
				b[4 * j] = v.x; b[4 * j + 1] = v.y; b[4 * j + 2] = v.z; b[4 * j + 3] = v.w;
			}
#else
#pragma unroll
			for (int i = 0; i < TM; i++) a[i] = As[buf][kk][(i / 4) * (BM / (TM / 4)) + ty * 4 + i % 4];
#pragma unroll
			for (int j = 0; j < TN; j++) b[j] = Bs[buf][kk][(j / 4) * (BN / (TN / 4)) + tx * 4 + j % 4];
#endif
#pragma unroll
			for (int i = 0; i < TM; i++)
#pragma unroll
				for (int j = 0; j < TN; j++)
					acc[i][j] += a[i] * b[j];
		}
		if (more) STORE_TILES(buf ^ 1);
		BARRIER();
	}

#pragma unroll
	for (int i = 0; i < TM; i++) {
		const int gm = m0 + (i / 4) * (BM / (TM / 4)) + ty * 4 + i % 4;
		if (gm >= M) continue;
#if VEC
#pragma unroll
		for (int j = 0; j < TN / 4; j++) {
			const int gn = n0 + j * (BN / (TN / 4)) + tx * 4;
			if (gn >= N) continue;
			GLOBAL float* p = C + (long)gm * ldc + gn;
			float4 v = F4(alpha * acc[i][4 * j], alpha * acc[i][4 * j + 1], alpha * acc[i][4 * j + 2], alpha * acc[i][4 * j + 3]);
			if (beta != 0) {
				const float4 c = LDG4(p);
				v.x += beta * c.x; v.y += beta * c.y; v.z += beta * c.z; v.w += beta * c.w;
			}
			STG4(p, v);
		}
#else
#pragma unroll
		for (int j = 0; j < TN; j++) {
			const int gn = n0 + (j / 4) * (BN / (TN / 4)) + tx * 4 + j % 4;
			if (gn >= N) continue;
			const long idx = (long)gm * ldc + gn;
			ACC v = alpha * acc[i][j];
			if (beta != 0) v += beta * LD(C, idx);
			STV(C, idx, v);
		}
#endif
	}
}
#undef NT
#undef LA
#undef LB
#undef LOAD_TILES
#undef STORE_TILES
`

// maxLocal is the largest work-group of the GEMV and Level 1 kernels,
// the size of their local arrays; launches use a power of two up to it.
const maxLocal = 256

// vectorBody is GEMV and the Level 1 routines. A vector is a pointer, an
// element offset and a signed increment; the host has moved the offset
// of a vector with a negative increment to its last element, so element
// i is always at off + i*inc. Reductions are two passes of a tree in
// local memory, without atomics, so a result is the same on every run:
// the first pass writes one partial a work-group (or, with one
// work-group, the result), the second reduces the partials.
const vectorBody = `
#define VEC_AT(p, off, inc, i) LD(p, (long)(off) + (long)(i) * (inc))

// gemv_n: y = alpha*A*x + beta*y, one work-group a row of A.
KERNEL gemv_n(const GLOBAL ST* RESTRICT A, ulong offA, int lda, const GLOBAL ST* RESTRICT X, ulong offX, long incX,
		GLOBAL ST* Y, ulong offY, long incY, int M, int N, ACC alpha, ACC beta)
{
	LOCAL ACC s[MAXL];
	const int t = LID(), L = LSIZE();
	const long i = GROUP(0);
	ACC sum = 0;
	for (int j = t; j < N; j += L) sum += LD(A, offA + i * lda + j) * VEC_AT(X, offX, incX, j);
	s[t] = sum;
	BARRIER();
	for (int h = L / 2; h > 0; h >>= 1) {
		if (t < h) s[t] += s[t + h];
		BARRIER();
	}
	if (t == 0) {
		const long iy = (long)offY + i * incY;
		ACC v = alpha * s[0];
		if (beta != 0) v += beta * LD(Y, iy);
		STV(Y, iy, v);
	}
}

// gemv_t: y = alpha*Aᵀ*x + beta*y, one work-item a column of A.
KERNEL gemv_t(const GLOBAL ST* RESTRICT A, ulong offA, int lda, const GLOBAL ST* RESTRICT X, ulong offX, long incX,
		GLOBAL ST* Y, ulong offY, long incY, int M, int N, ACC alpha, ACC beta)
{
	const long j = GID();
	if (j >= N) return;
	ACC sum = 0;
	for (int i = 0; i < M; i++) sum += LD(A, offA + (long)i * lda + j) * VEC_AT(X, offX, incX, i);
	const long iy = (long)offY + j * incY;
	ACC v = alpha * sum;
	if (beta != 0) v += beta * LD(Y, iy);
	STV(Y, iy, v);
}

KERNEL axpy(long n, ACC alpha, const GLOBAL ST* X, ulong offX, long incX, GLOBAL ST* Y, ulong offY, long incY)
{
	for (long i = GID(); i < n; i += GSIZE()) {
		const long iy = (long)offY + i * incY;
		STV(Y, iy, LD(Y, iy) + alpha * VEC_AT(X, offX, incX, i));
	}
}

KERNEL scal(long n, ACC alpha, GLOBAL ST* X, ulong offX, long incX)
{
	for (long i = GID(); i < n; i += GSIZE()) {
		const long ix = (long)offX + i * incX;
		STV(X, ix, alpha * LD(X, ix));
	}
}

// copy and swap move the stored bits (RAW: an integer of ST's size), so
// they are exact for every type, and OpenCL's half needs no cl_khr_fp16.
KERNEL copy(long n, const GLOBAL ST* X, ulong offX, long incX, GLOBAL ST* Y, ulong offY, long incY)
{
	const GLOBAL RAW* x = (const GLOBAL RAW*)X;
	GLOBAL RAW* y = (GLOBAL RAW*)Y;
	for (long i = GID(); i < n; i += GSIZE()) y[(long)offY + i * incY] = x[(long)offX + i * incX];
}

KERNEL swap(long n, GLOBAL ST* X, ulong offX, long incX, GLOBAL ST* Y, ulong offY, long incY)
{
	GLOBAL RAW* x = (GLOBAL RAW*)X;
	GLOBAL RAW* y = (GLOBAL RAW*)Y;
	for (long i = GID(); i < n; i += GSIZE()) {
		const long ix = (long)offX + i * incX, iy = (long)offY + i * incY;
		const RAW v = x[ix];
		x[ix] = y[iy];
		y[iy] = v;
	}
}

// tree_sum leaves the sum of s[0..L) in s[0].
FN void tree_sum(LOCAL_PTR ACC* s, int t, int L)
{
	BARRIER();
	for (int h = L / 2; h > 0; h >>= 1) {
		if (t < h) s[t] += s[t + h];
		BARRIER();
	}
}

// dot_p1 and asum_p1 write a partial sum a work-group into part, or
// the result when there is one work-group; sum_p2 adds the partials.
KERNEL dot_p1(long n, const GLOBAL ST* X, ulong offX, long incX, const GLOBAL ST* Y, ulong offY, long incY,
		GLOBAL ACC* part, GLOBAL ST* R, ulong offR)
{
	LOCAL ACC s[MAXL];
	const int t = LID();
	ACC sum = 0;
	for (long i = GID(); i < n; i += GSIZE()) sum += VEC_AT(X, offX, incX, i) * VEC_AT(Y, offY, incY, i);
	s[t] = sum;
	tree_sum(s, t, LSIZE());
	if (t == 0) {
		if (NGROUPS() == 1) STV(R, offR, s[0]);
		else part[GROUP(0)] = s[0];
	}
}

KERNEL asum_p1(long n, const GLOBAL ST* X, ulong offX, long incX, GLOBAL ACC* part, GLOBAL ST* R, ulong offR)
{
	LOCAL ACC s[MAXL];
	const int t = LID();
	ACC sum = 0;
	for (long i = GID(); i < n; i += GSIZE()) sum += ABS(VEC_AT(X, offX, incX, i));
	s[t] = sum;
	tree_sum(s, t, LSIZE());
	if (t == 0) {
		if (NGROUPS() == 1) STV(R, offR, s[0]);
		else part[GROUP(0)] = s[0];
	}
}

KERNEL sum_p2(long g, const GLOBAL ACC* part, GLOBAL ST* R, ulong offR)
{
	LOCAL ACC s[MAXL];
	const int t = LID();
	ACC sum = 0;
	for (long i = t; i < g; i += LSIZE()) sum += part[i];
	s[t] = sum;
	tree_sum(s, t, LSIZE());
	if (t == 0) STV(R, offR, s[0]);
}

// The norm keeps a scale and a sum of squares scaled by it (LAPACK's
// lassq), so that no square overflows or underflows: the norm is
// scale*sqrt(ssq).
FN void ssq_add(ACC* scale, ACC* ssq, ACC v)
{
	v = ABS(v);
	if (v == 0) return;
	if (*scale < v) {
		const ACC r = *scale / v;
		*ssq = 1 + *ssq * r * r;
		*scale = v;
	} else {
		const ACC r = v / *scale;
		*ssq += r * r;
	}
}

FN void ssq_merge(ACC* scale, ACC* ssq, ACC scale2, ACC ssq2)
{
	if (scale2 == 0) return;
	if (*scale < scale2) {
		const ACC r = *scale / scale2;
		*ssq = ssq2 + *ssq * r * r;
		*scale = scale2;
	} else {
		const ACC r = scale2 / *scale;
		*ssq += ssq2 * r * r;
	}
}

// nrm2_tree leaves the merged pair of (sc, sq)[0..L) in sc[0], sq[0].
FN void nrm2_tree(LOCAL_PTR ACC* sc, LOCAL_PTR ACC* sq, int t, int L)
{
	BARRIER();
	for (int h = L / 2; h > 0; h >>= 1) {
		if (t < h) {
			ACC a = sc[t], b = sq[t];
			ssq_merge(&a, &b, sc[t + h], sq[t + h]);
			sc[t] = a;
			sq[t] = b;
		}
		BARRIER();
	}
}

// nrm2_p1 writes a (scale, ssq) pair a work-group: part[g] and
// part[g + G]. With one work-group it writes the result.
KERNEL nrm2_p1(long n, const GLOBAL ST* X, ulong offX, long incX, GLOBAL ACC* part, GLOBAL ST* R, ulong offR)
{
	LOCAL ACC sc[MAXL];
	LOCAL ACC sq[MAXL];
	const int t = LID();
	ACC scale = 0, ssq = 0;
	for (long i = GID(); i < n; i += GSIZE()) ssq_add(&scale, &ssq, VEC_AT(X, offX, incX, i));
	sc[t] = scale;
	sq[t] = ssq;
	nrm2_tree(sc, sq, t, LSIZE());
	if (t == 0) {
		const long G = NGROUPS();
		if (G == 1) STV(R, offR, sc[0] * SQRT(sq[0]));
		else {
			part[GROUP(0)] = sc[0];
			part[GROUP(0) + G] = sq[0];
		}
	}
}

KERNEL nrm2_p2(long g, const GLOBAL ACC* part, GLOBAL ST* R, ulong offR)
{
	LOCAL ACC sc[MAXL];
	LOCAL ACC sq[MAXL];
	const int t = LID();
	ACC scale = 0, ssq = 0;
	for (long i = t; i < g; i += LSIZE()) ssq_merge(&scale, &ssq, part[i], part[i + g]);
	sc[t] = scale;
	sq[t] = ssq;
	nrm2_tree(sc, sq, t, LSIZE());
	if (t == 0) STV(R, offR, sc[0] * SQRT(sq[0]));
}

// Iamax keeps a magnitude and an index; NaN has magnitude -1, below
// every number, and of equal magnitudes the lower index wins.
FN void amax_merge(ACC* best, long* at, ACC v, long i)
{
	if (v > *best || (v == *best && i < *at)) {
		*best = v;
		*at = i;
	}
}

FN void amax_tree(LOCAL_PTR ACC* sv, LOCAL_PTR long* si, int t, int L)
{
	BARRIER();
	for (int h = L / 2; h > 0; h >>= 1) {
		if (t < h) {
			ACC v = sv[t];
			long i = si[t];
			amax_merge(&v, &i, sv[t + h], si[t + h]);
			sv[t] = v;
			si[t] = i;
		}
		BARRIER();
	}
}

// iamax_p1 writes a (magnitude, index) pair a work-group: part[g] and
// ((GLOBAL long*)(part + 2G))[g]; the indices follow 2G accumulators so
// that they are 8-byte aligned for every ACC.
KERNEL iamax_p1(long n, const GLOBAL ST* X, ulong offX, long incX, GLOBAL ACC* part, GLOBAL int* R, ulong offR)
{
	LOCAL ACC sv[MAXL];
	LOCAL long si[MAXL];
	const int t = LID();
	ACC best = -2;
	long at = -1;
	for (long i = GID(); i < n; i += GSIZE()) {
		const ACC x = VEC_AT(X, offX, incX, i);
		amax_merge(&best, &at, x != x ? (ACC)-1 : ABS(x), i);
	}
	sv[t] = best;
	si[t] = at;
	amax_tree(sv, si, t, LSIZE());
	if (t == 0) {
		const long G = NGROUPS();
		if (G == 1) R[offR] = (int)si[0];
		else {
			part[GROUP(0)] = sv[0];
			((GLOBAL long*)(part + 2 * G))[GROUP(0)] = si[0];
		}
	}
}

KERNEL iamax_p2(long g, const GLOBAL ACC* part, GLOBAL int* R, ulong offR)
{
	LOCAL ACC sv[MAXL];
	LOCAL long si[MAXL];
	const int t = LID();
	const GLOBAL long* idx = (const GLOBAL long*)(part + 2 * g);
	ACC best = -2;
	long at = -1;
	for (long i = t; i < g; i += LSIZE()) amax_merge(&best, &at, part[i], idx[i]);
	sv[t] = best;
	si[t] = at;
	amax_tree(sv, si, t, LSIZE());
	if (t == 0) R[offR] = (int)si[0];
}
`

// trsmBody is what the own triangular solve adds to the GEMM kernels:
// the inversion of op(A)'s diagonal blocks, and a matrix copy. A block's
// inverse is computed a column a work-item by substitution, reading its
// own column back from D, so work-items need no barrier; blocks are
// small (the GEMM tiling's BM), and the solve's arithmetic is in the
// general products that follow.
const trsmBody = `
// trsm_inv writes the inverse of each nb×nb diagonal block b of T =
// op(A) (m×m; T(i, k) is A[i*lda + k], or A[k*lda + i] with trans) to D
// from b*nb*nb, row-major nb×nb with zeros outside its triangle and, in
// the last block, past m. A work-group of nb work-items takes blocks
// GROUP(1), GROUP(1) + blockStep, ...; work-item j computes column j.
// (Indices come from the grid's dimensions rather than a division and
// remainder, for which LLVM 15 emits a freeze that llvm-spirv cannot
// translate.)
KERNEL trsm_inv(const GLOBAL ST* A, ulong offA, int lda, int m, int nb, int lower, int trans, int unit, GLOBAL ST* D, int blockStep)
{
	const int j = LID();
	A += offA;
	for (long b = GROUP(1); b * nb < m; b += blockStep) {
		const int r = m - b * nb < nb ? (int)(m - b * nb) : nb;
		const long d = b * nb * nb;
		const GLOBAL ST* Ab = A + b * nb * lda + b * nb;
#define TRI(i, k) LD(Ab, trans ? (long)(k) * lda + (i) : (long)(i) * lda + (k))
		for (int i = 0; i < nb; i++) STV(D, d + (long)i * nb + j, (ACC)0);
		if (j >= r) continue;
		if (lower) {
			for (int i = j; i < r; i++) {
				ACC s = i == j ? (ACC)1 : (ACC)0;
				for (int k = j; k < i; k++) s -= TRI(i, k) * LD(D, d + (long)k * nb + j);
				STV(D, d + (long)i * nb + j, unit ? s : s / TRI(i, i));
			}
		} else {
			for (int i = j; i >= 0; i--) {
				ACC s = i == j ? (ACC)1 : (ACC)0;
				for (int k = i + 1; k <= j; k++) s -= TRI(i, k) * LD(D, d + (long)k * nb + j);
				STV(D, d + (long)i * nb + j, unit ? s : s / TRI(i, i));
			}
		}
#undef TRI
	}
}

// mcopy copies the M×N matrix X to Y (row-major, leading dimensions ldx
// and ldy) as stored bits; with zero it writes zeros to Y instead. Rows
// GROUP(1), GROUP(1) + rowStep, ...; columns over dimension 0.
KERNEL mcopy(int M, int N, const GLOBAL ST* X, ulong offX, int ldx, GLOBAL ST* Y, ulong offY, int ldy, int zero, int rowStep)
{
	const GLOBAL RAW* x = (const GLOBAL RAW*)X;
	GLOBAL RAW* y = (GLOBAL RAW*)Y;
	for (long i = GROUP(1); i < M; i += rowStep)
		for (long j = GID(); j < N; j += GSIZE())
			y[(long)offY + i * ldy + j] = zero ? (RAW)0 : x[(long)offX + i * ldx + j];
}
`

// programSource is the whole program of t's kernels in lang, with the
// GEMM kernels tiled by g.
func programSource(lang string, t dtype.Type, g gemmTiling) string {
	var b strings.Builder
	if lang == "cuda" {
		b.WriteString(cudaPrelude)
	} else {
		b.WriteString(clPrelude)
	}
	b.WriteString(typePrelude(lang, t))
	fmt.Fprintf(&b, "#define MAXL %d\n#define BM %d\n#define BN %d\n#define BK %d\n#define TM %d\n#define TN %d\n", maxLocal, g.BM, g.BN, g.BK, g.TM, g.TN)
	for _, ta := range []Transpose{NoTrans, Trans} {
		for _, tb := range []Transpose{NoTrans, Trans} {
			for _, vec := range []bool{false, true} {
				if vec && (t != dtype.Float32 || !g.vec()) {
					continue
				}
				fmt.Fprintf(&b, "#define NAME %s\n#define TA %d\n#define TB %d\n#define VEC %d\n", gemmKernelName(ta, tb, vec), ta, tb, b2i(vec))
				b.WriteString(gemmBody)
				b.WriteString("#undef NAME\n#undef TA\n#undef TB\n#undef VEC\n")
			}
		}
	}
	b.WriteString(vectorBody)
	b.WriteString(trsmBody)
	return b.String()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
