// Compiled on its own (with -rdc=true), then linked with link_lib.cu.
extern "C" __device__ int gour_triple(int v);

extern "C" __global__ void linked(int *out) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = gour_triple((int)i);
}
