// Kernels of gour's driver comparison (package compare), in CUDA C++,
// built with NVRTC: the kernels of bench.cl, with the same names and
// arguments. A __local argument is a byte offset into the launch's dynamic
// shared memory (see ur.Kernel.SetArgLocal).

extern __shared__ unsigned char gour_local[];

#define GLOBAL_ID ((size_t)blockIdx.x * blockDim.x + threadIdx.x)

extern "C" __global__ void tick(unsigned int *c) {
    if (GLOBAL_ID == 0) c[0] += 1;
}

extern "C" __global__ void axpy(float a, const float *x, float *y) {
    size_t i = GLOBAL_ID;
    y[i] = a * x[i] + y[i];
}

extern "C" __global__ void fma_chains(float *out, float a, float b, unsigned int iters) {
    float x0 = 0.0f, x1 = 0.125f, x2 = 0.25f, x3 = 0.375f;
    float x4 = 0.5f, x5 = 0.625f, x6 = 0.75f, x7 = 0.875f;
    for (unsigned int i = 0; i < iters; i++) {
        x0 = fmaf(x0, a, b); x1 = fmaf(x1, a, b); x2 = fmaf(x2, a, b); x3 = fmaf(x3, a, b);
        x4 = fmaf(x4, a, b); x5 = fmaf(x5, a, b); x6 = fmaf(x6, a, b); x7 = fmaf(x7, a, b);
    }
    out[GLOBAL_ID] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}

extern "C" __global__ void local_reads(float *out, size_t tile_offset, unsigned int iters) {
    volatile float *tile = (volatile float *)(gour_local + tile_offset);
    unsigned int lid = threadIdx.x, mask = blockDim.x - 1;
    tile[lid] = (float)(lid & 7);
    __syncthreads();
    float acc = 0.0f;
    for (unsigned int i = 0; i < iters; i++) acc += tile[(lid + i) & mask];
    out[GLOBAL_ID] = acc;
}

extern "C" __global__ void atomics(unsigned int *counters, unsigned int mask, unsigned int iters) {
    unsigned int gid = (unsigned int)GLOBAL_ID;
    for (unsigned int i = 0; i < iters; i++) atomicAdd(&counters[(gid + i) & mask], 1u);
}
