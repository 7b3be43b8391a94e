__kernel void add1(__global float* y) { size_t i = get_global_id(0); y[i] += 1.0f; }
