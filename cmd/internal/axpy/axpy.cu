// y = a*x + y over n floats, one thread per element: axpy.cl in CUDA C,
// for the default device of a machine with an NVIDIA GPU.
extern "C" __global__ void axpy(float a, const float* x, float* y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
