// The library half of the compile + link test (compiled with -rdc=true).
extern "C" __device__ int gour_triple(int v) {
    return 3 * v;
}
