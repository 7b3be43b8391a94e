package axpy

import (
	_ "embed"

	"github.com/gour-dev/gour/programmgr"
)

// The kernel, axpy(float a, const float* x, float* y, uint n), in each
// language.
var (
	//go:embed axpy.cl
	OpenCLC string
	//go:embed axpy.cu
	CUDAC string
)

// Image returns the device image of axpy for a backend: CUDA C for "cuda",
// OpenCL C otherwise.
func Image(backend string) (*programmgr.Image, error) {
	desc := programmgr.ImageDesc{Format: programmgr.FormatOpenCLC, Bytes: []byte(OpenCLC), KernelNames: []string{"axpy"}}
	if backend == "cuda" {
		desc.Format, desc.Bytes = programmgr.FormatCUDAC, []byte(CUDAC)
	}
	return programmgr.NewImage(desc)
}
