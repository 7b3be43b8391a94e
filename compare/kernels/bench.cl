// Kernels of gour's driver comparison (package compare), in OpenCL C.
// bench.cu has the same kernels, with the same names and arguments, in
// CUDA C++. Every kernel leaves a result the host checks.

// One work-item adds 1 to c[0]: launched in order n times, c[0] is n.
// Nearly empty, so the launch metrics time the launch, yet a dropped
// launch shows.
__kernel void tick(__global uint *c) {
    if (get_global_id(0) == 0) c[0] += 1;
}

// y = a*x + y
__kernel void axpy(float a, __global const float *x, __global float *y) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}

// Eight independent chains of iters fused multiply-adds each, so that the
// FMA units, not their latency, bound the kernel: 16 flops per iteration.
__kernel void fma_chains(__global float *out, float a, float b, uint iters) {
    float x0 = 0.0f, x1 = 0.125f, x2 = 0.25f, x3 = 0.375f;
    float x4 = 0.5f, x5 = 0.625f, x6 = 0.75f, x7 = 0.875f;
    for (uint i = 0; i < iters; i++) {
        x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b); x3 = fma(x3, a, b);
        x4 = fma(x4, a, b); x5 = fma(x5, a, b); x6 = fma(x6, a, b); x7 = fma(x7, a, b);
    }
    out[get_global_id(0)] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}

// Each work-item reads iters words of its work-group's tile, walking it
// from its own place: 4 bytes of local memory per iteration. tile[j] is
// j & 7, so with a local size that is a power of two and a multiple of 8
// and iters a multiple of the local size, out[i] is 3.5 * iters.
__kernel void local_reads(__global float *out, __local float *tile, uint iters) {
    volatile __local float *t = tile; // every read goes to local memory
    uint lid = get_local_id(0), mask = get_local_size(0) - 1;
    t[lid] = (float)(lid & 7);
    barrier(CLK_LOCAL_MEM_FENCE);
    float acc = 0.0f;
    for (uint i = 0; i < iters; i++) acc += t[(lid + i) & mask];
    out[get_global_id(0)] = acc;
}

// Each work-item adds 1 iters times to counters picked by its id: with a
// global size that is a multiple of mask+1, every counter ends at
// global size * iters / (mask+1).
__kernel void atomics(__global uint *counters, uint mask, uint iters) {
    uint gid = (uint)get_global_id(0);
    for (uint i = 0; i < iters; i++) atomic_add(&counters[(gid + i) & mask], 1u);
}
