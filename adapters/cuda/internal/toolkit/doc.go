// Package toolkit finds the libraries of a CUDA toolkit (NVRTC,
// nvJitLink), which, unlike the driver, are often not on the loader's
// search path.
package toolkit
