// y = a*x + y, in single and in double precision.
extern "C" __global__ void axpy(float a, const float* x, float* y, unsigned int n) {
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void axpy_f64(double a, const double* x, double* y, unsigned int n) {
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * x[i] + y[i];
}
