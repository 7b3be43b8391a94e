// y = a*x + y, in single and in double precision. urpack puts the double
// kernel in an image of its own, which devices without fp64 never build.
__kernel void axpy(float a, __global const float* x, __global float* y, uint n) {
	size_t i = get_global_id(0);
	if (i < n) y[i] = a * x[i] + y[i];
}

__kernel void axpy_f64(double a, __global const double* x, __global double* y, uint n) {
	size_t i = get_global_id(0);
	if (i < n) y[i] = a * x[i] + y[i];
}
