// Package opencl is gour's OpenCL adapter: it drives any OpenCL ICD
// (PoCL, NVIDIA, Intel, ...) through libOpenCL.so.1, opened at run time.
//
// Importing the package registers the adapter under the name "opencl".
// Raw bindings live in internal/cl; this package only translates the
// calls of ur/driver into OpenCL calls and OpenCL status codes into
// Unified Runtime result codes.
package opencl
