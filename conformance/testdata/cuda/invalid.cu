// A program that must not build: it uses an undeclared identifier.
extern "C" __global__ void broken(int *out) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = gour_undeclared_identifier;
}
