package main

import (
	"fmt"

	"github.com/gour-dev/gour/programmgr"
)

// cKernels is the kernels of kernels.go written in C, the same
// algorithms line for line, in one source that builds as CUDA C
// (NVRTC, on CUDA devices) and as OpenCL C (elsewhere): a prelude per
// language defines the few words that differ. The constants are those of
// kernels.go, substituted by cSource.
const cKernels = `
KERNEL axpy(float a, GLOBAL float* x, GLOBAL float* y, int n) {
	int i = GID_X;
	if (i < n) {
		y[i] += a * x[i];
	}
}

KERNEL sum(GLOBAL float* x, int n, GLOBAL float* partial) {
	SHARED float tile[GROUP];
	int l = LID_X;
	float s = 0.0f;
	for (int i = GID_X; i < n; i += GSZ_X) {
		s += x[i];
	}
	tile[l] = s;
	BARRIER();
	for (int step = GROUP / 2; step > 0; step /= 2) {
		if (l < step) {
			tile[l] += tile[l + step];
		}
		BARRIER();
	}
	if (l == 0) {
		partial[GRP_X] = tile[0];
	}
}

KERNEL transpose(GLOBAL float* in, GLOBAL float* out, int rows, int cols) {
	SHARED float tile[TILE_DIM * (TILE_DIM + 1)];
	int tx = LID_X, ty = LID_Y;
	int bx = GRP_X * TILE_DIM, by = GRP_Y * TILE_DIM;
	for (int k = 0; k < TILE_DIM; k += TILE_ROWS) {
		int r = by + ty + k, c = bx + tx;
		if (r < rows && c < cols) {
			tile[(ty + k) * (TILE_DIM + 1) + tx] = in[r * cols + c];
		}
	}
	BARRIER();
	for (int k = 0; k < TILE_DIM; k += TILE_ROWS) {
		int r = bx + ty + k, c = by + tx;
		if (r < cols && c < rows) {
			out[r * rows + c] = tile[tx * (TILE_DIM + 1) + ty + k];
		}
	}
}

KERNEL softmax(GLOBAL float* x, GLOBAL float* y, int cols) {
	SHARED float rmax[GROUP];
	SHARED float rsum[GROUP];
	int l = LID_X;
	int base = GRP_X * cols;
	float v[ROW_PER];
	float m = LOWEST;
	for (int k = 0; k < ROW_PER; k++) {
		v[k] = LOWEST;
		int j = l + k * GROUP;
		if (j < cols) {
			v[k] = x[base + j];
		}
		m = MAXF(m, v[k]);
	}
	rmax[l] = m;
	BARRIER();
	for (int step = GROUP / 2; step > 0; step /= 2) {
		if (l < step) {
			rmax[l] = MAXF(rmax[l], rmax[l + step]);
		}
		BARRIER();
	}
	m = rmax[0];
	float s = 0.0f;
	for (int k = 0; k < ROW_PER; k++) {
		v[k] = EXPF(v[k] - m);
		s += v[k];
	}
	rsum[l] = s;
	BARRIER();
	for (int step = GROUP / 2; step > 0; step /= 2) {
		if (l < step) {
			rsum[l] += rsum[l + step];
		}
		BARRIER();
	}
	float inv = 1.0f / rsum[0];
	for (int k = 0; k < ROW_PER; k++) {
		int j = l + k * GROUP;
		if (j < cols) {
			y[base + j] = v[k] * inv;
		}
	}
}

KERNEL layer_norm(GLOBAL float* x, GLOBAL float* w, GLOBAL float* b, GLOBAL float* y, int cols, float eps) {
	SHARED float rsum[GROUP];
	SHARED float rvar[GROUP];
	int l = LID_X;
	int base = GRP_X * cols;
	float v[ROW_PER];
	float s = 0.0f;
	for (int k = 0; k < ROW_PER; k++) {
		v[k] = 0.0f;
		int j = l + k * GROUP;
		if (j < cols) {
			v[k] = x[base + j];
		}
		s += v[k];
	}
	rsum[l] = s;
	BARRIER();
	for (int step = GROUP / 2; step > 0; step /= 2) {
		if (l < step) {
			rsum[l] += rsum[l + step];
		}
		BARRIER();
	}
	float mean = rsum[0] / (float)cols;
	float q = 0.0f;
	for (int k = 0; k < ROW_PER; k++) {
		int j = l + k * GROUP;
		if (j < cols) {
			float d = v[k] - mean;
			q += d * d;
		}
	}
	rvar[l] = q;
	BARRIER();
	for (int step = GROUP / 2; step > 0; step /= 2) {
		if (l < step) {
			rvar[l] += rvar[l + step];
		}
		BARRIER();
	}
	float rstd = RSQRTF(rvar[0] / (float)cols + eps);
	for (int k = 0; k < ROW_PER; k++) {
		int j = l + k * GROUP;
		if (j < cols) {
			y[base + j] = (v[k] - mean) * rstd * w[j] + b[j];
		}
	}
}

KERNEL sgemm(GLOBAL float* a, GLOBAL float* b, GLOBAL float* c, int m, int n, int k) {
	SHARED float as[GEMM_TILE * GEMM_TILE];
	SHARED float bs[GEMM_TILE * GEMM_TILE];
	int tx = LID_X, ty = LID_Y;
	int col = GID_X, row = GID_Y;
	float acc = 0.0f;
	for (int t = 0; t < (k + GEMM_TILE - 1) / GEMM_TILE; t++) {
		as[ty * GEMM_TILE + tx] = 0.0f;
		int ac = t * GEMM_TILE + tx;
		if (row < m && ac < k) {
			as[ty * GEMM_TILE + tx] = a[row * k + ac];
		}
		bs[ty * GEMM_TILE + tx] = 0.0f;
		int br = t * GEMM_TILE + ty;
		if (br < k && col < n) {
			bs[ty * GEMM_TILE + tx] = b[br * n + col];
		}
		BARRIER();
		for (int i = 0; i < GEMM_TILE; i++) {
			acc += as[ty * GEMM_TILE + i] * bs[i * GEMM_TILE + tx];
		}
		BARRIER();
	}
	if (row < m && col < n) {
		c[row * n + col] = acc;
	}
}
`

// cudaPrelude and openCLPrelude define the words of cKernels in each
// language. MAXF is gokernel's max of two floats (a > b ? a : b), and
// BARRIER the barrier gokernel emits.
const (
	cudaPrelude = `#define KERNEL extern "C" __global__ void
#define GLOBAL
#define SHARED __shared__
#define LID_X ((int)threadIdx.x)
#define LID_Y ((int)threadIdx.y)
#define GRP_X ((int)blockIdx.x)
#define GRP_Y ((int)blockIdx.y)
#define GID_X ((int)(blockIdx.x * blockDim.x + threadIdx.x))
#define GID_Y ((int)(blockIdx.y * blockDim.y + threadIdx.y))
#define GSZ_X ((int)(gridDim.x * blockDim.x))
#define BARRIER() __syncthreads()
#define EXPF(x) expf(x)
#define RSQRTF(x) rsqrtf(x)
`
	openCLPrelude = `#define KERNEL __kernel void
#define GLOBAL __global
#define SHARED __local
#define LID_X ((int)get_local_id(0))
#define LID_Y ((int)get_local_id(1))
#define GRP_X ((int)get_group_id(0))
#define GRP_Y ((int)get_group_id(1))
#define GID_X ((int)get_global_id(0))
#define GID_Y ((int)get_global_id(1))
#define GSZ_X ((int)get_global_size(0))
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define EXPF(x) exp(x)
#define RSQRTF(x) rsqrt(x)
`
)

// cNames are the kernels of cKernels.
var cNames = []string{"axpy", "sum", "transpose", "softmax", "layer_norm", "sgemm"}

// cSource is cKernels for backend ("cuda", else OpenCL C), with
// kernels.go's constants.
func cSource(backend string) string {
	prelude := openCLPrelude
	if backend == "cuda" {
		prelude = cudaPrelude
	}
	consts := fmt.Sprintf("#define MAXF(a, b) ((a) > (b) ? (a) : (b))\n"+
		"#define GROUP %d\n#define TILE_DIM %d\n#define TILE_ROWS %d\n#define GEMM_TILE %d\n#define ROW_PER %d\n#define LOWEST (%.9gf)\n",
		group, tileDim, tileRows, gemmTile, rowPer, lowest)
	return prelude + consts + cKernels
}

// cLang names the language cSource is written in for backend.
func cLang(backend string) string {
	if backend == "cuda" {
		return "CUDA C"
	}
	return "OpenCL C"
}

// cImage is cSource for backend as a device image the program manager
// builds: with NVRTC on CUDA, by the OpenCL driver elsewhere (and through
// clang and SPIR-V on Level Zero), as gokernel's own images are.
func cImage(backend string) (*programmgr.Image, error) {
	f := programmgr.FormatOpenCLC
	if backend == "cuda" {
		f = programmgr.FormatCUDAC
	}
	return programmgr.NewImage(programmgr.ImageDesc{Format: f, Bytes: []byte(cSource(backend)), KernelNames: cNames})
}
