// What NVRTC declares without headers and the own kernels use, for
// clang's CUDA front end without a CUDA toolkit (cuda_source_test.go):
// the compile checks the CUDA C text, not NVRTC's code generation.
#include <__clang_cuda_builtin_vars.h>
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __forceinline__ __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
struct __attribute__((aligned(16))) float4 {
	float x, y, z, w;
};
__device__ float __uint_as_float(unsigned int);
__device__ unsigned int __float_as_uint(float);
__device__ float fabsf(float);
__device__ float sqrtf(float);
__device__ double fabs(double);
__device__ double sqrt(double);
__device__ void __syncthreads();
