// Kernels of the gour conformance suite, in CUDA C++ (built with NVRTC).
// Every backend has the same kernels, with the same names and arguments,
// in its own language under testdata/<backend>/; these mirror
// testdata/opencl/kernels.cl one for one.
//
// OpenCL to CUDA: uint = unsigned int, long = long long (64 bits), char =
// signed char; get_global_id(d) = blockIdx*blockDim + threadIdx,
// get_global_size(d) = gridDim*blockDim, get_local_id = threadIdx,
// get_local_size = blockDim, get_group_id = blockIdx, barrier =
// __syncthreads(). CUDA launches have no global offset, so the offset
// terms of index2d and index3d are 0 here.
//
// A __local argument is a size_t byte offset into the launch's one block
// of dynamic shared memory, gour_local (see ur.Kernel.SetArgLocal).

#ifndef SCALE
#define SCALE 1
#endif

extern __shared__ unsigned char gour_local[];

#define GOUR_GLOBAL_ID(d) ((size_t)blockIdx.d * blockDim.d + threadIdx.d)
#define GOUR_GLOBAL_SIZE(d) ((size_t)gridDim.d * blockDim.d)

// y = a*x + y
extern "C" __global__ void axpy(float a, const float *x, float *y) {
    size_t i = GOUR_GLOBAL_ID(x);
    y[i] = a * x[i] + y[i];
}

// out[i] = i, with i the global id.
extern "C" __global__ void iota(unsigned int *out) {
    size_t i = GOUR_GLOBAL_ID(x);
    out[i] = (unsigned int)i;
}

// out[i] = value
extern "C" __global__ void fill_u32(unsigned int *out, unsigned int value) {
    out[GOUR_GLOBAL_ID(x)] = value;
}

// out[i] += 1, for launches that must run in order.
extern "C" __global__ void add_one(unsigned int *out) {
    out[GOUR_GLOBAL_ID(x)] += 1;
}

// Each work-item writes its coordinates, packed as x | y<<10 | z<<20, at
// its linear id (z*H + y)*W + x.
extern "C" __global__ void index2d(unsigned int *out) {
    size_t x = GOUR_GLOBAL_ID(x), y = GOUR_GLOBAL_ID(y);
    size_t w = GOUR_GLOBAL_SIZE(x);
    size_t lin = y * w + x;
    out[lin] = (unsigned int)(x | (y << 10));
}

extern "C" __global__ void index3d(unsigned int *out) {
    size_t x = GOUR_GLOBAL_ID(x), y = GOUR_GLOBAL_ID(y), z = GOUR_GLOBAL_ID(z);
    size_t w = GOUR_GLOBAL_SIZE(x), h = GOUR_GLOBAL_SIZE(y);
    size_t lin = (z * h + y) * w + x;
    out[lin] = (unsigned int)(x | (y << 10) | (z << 20));
}

// Each work-item writes its group id and local id in dimension 0, packed
// as group<<16 | local, and the local size in sizes[0].
extern "C" __global__ void local_ids(unsigned int *out, unsigned int *sizes) {
    size_t i = GOUR_GLOBAL_ID(x);
    out[i] = (unsigned int)(((size_t)blockIdx.x << 16) | threadIdx.x);
    if (i == 0) {
        sizes[0] = (unsigned int)blockDim.x;
    }
}

// Each work-group sums its part of in through a local buffer of one uint
// per work-item, scratch_offset bytes into the dynamic shared memory; the
// local size must be a power of two.
extern "C" __global__ void group_sum(const unsigned int *in, unsigned int *out, size_t scratch_offset) {
    unsigned int *scratch = (unsigned int *)(gour_local + scratch_offset);
    size_t l = threadIdx.x, n = blockDim.x;
    scratch[l] = in[GOUR_GLOBAL_ID(x)];
    __syncthreads();
    for (size_t s = n / 2; s > 0; s /= 2) {
        if (l < s) {
            scratch[l] += scratch[l + s];
        }
        __syncthreads();
    }
    if (l == 0) {
        out[blockIdx.x] = scratch[0];
    }
}

// x[i] *= SCALE: build with -DSCALE=n to change the result.
extern "C" __global__ void scale(int *x) {
    x[GOUR_GLOBAL_ID(x)] *= SCALE;
}

// Every scalar type by value; out receives each, widened to long long, and
// fout the float.
extern "C" __global__ void scalars(long long *out, float *fout,
                                   signed char c, unsigned char uc, short s, unsigned short us,
                                   int i, unsigned int ui, long long l, unsigned long long ul, float f) {
    if (GOUR_GLOBAL_ID(x) == 0) {
        out[0] = c;
        out[1] = uc;
        out[2] = s;
        out[3] = us;
        out[4] = i;
        out[5] = ui;
        out[6] = l;
        out[7] = (long long)ul;
        fout[0] = f;
    }
}

// y = a*x + y in double precision; every CUDA device has fp64.
extern "C" __global__ void axpy_f64(double a, const double *x, double *y) {
    size_t i = GOUR_GLOBAL_ID(x);
    y[i] = a * x[i] + y[i];
}

// A global variable the host reads and writes (Program.Global).
__device__ unsigned int gour_global_counter;
