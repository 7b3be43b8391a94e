// Package nvlib is the floor every binding of an NVIDIA library stands
// on: the CUDA driver (libcuda), opened once per process and shared by
// the CUDA adapter, cuBLAS's binding and NCCL's, and the one finder of
// the libraries that carry a toolkit's version in their sonames (NVRTC,
// nvJitLink, cuBLAS, NCCL), which, unlike the driver, are often not on
// the loader's search path. A binding describes its library as a
// [Library] and opens it through [Load]; it takes the driver from
// [Driver] and never closes it.
package nvlib
