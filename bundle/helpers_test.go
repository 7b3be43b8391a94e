package bundle

import (
	"os"
	"testing"
)

// Device code of the conformance suite, the ready IL and source the
// tests bundle.
const (
	openclKernels = "../conformance/testdata/opencl/kernels.cl"
	cudaKernels   = "../conformance/testdata/cuda/kernels.cu"
	ptxKernels    = "../conformance/testdata/cuda/kernels.ptx"
	spirvKernels  = "../conformance/testdata/spirv/kernels.spv"
	spirvFP64     = "../conformance/testdata/spirv/kernels_fp64.spv"
)

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustImage(t testing.TB, im Image) Image {
	t.Helper()
	im, err := NewImage(im)
	if err != nil {
		t.Fatal(err)
	}
	return im
}

// fakeCubin stands for a cubin: selection never looks inside one.
func fakeCubin(arch string) []byte { return []byte("\x7fELF fake cubin for " + arch) }

// sampleBundle is a bundle as urpack makes it from the conformance
// kernels: cubins for sm_80 and sm_90, PTX for compute_52, SPIR-V with and
// without fp64, OpenCL C split by aspects, CUDA C, and a Level Zero binary
// for device 0x0bd5 (without axpy_f64, as for a device lacking fp64).
func sampleBundle(t testing.TB) *Bundle {
	t.Helper()
	cu, err := Analyze(FormatCUDAC, readFile(t, cudaKernels))
	if err != nil {
		t.Fatal(err)
	}
	var cuKernels []string
	for _, k := range cu.Kernels {
		cuKernels = append(cuKernels, k.Name)
	}
	b := &Bundle{}
	for _, arch := range []string{"sm_80", "sm_90"} {
		b.Images = append(b.Images, mustImage(t, Image{Target: Target{BackendCUDA, arch}, Format: FormatNative, Kernels: cuKernels, Properties: Properties{Aspects: AspectFP64}, Code: fakeCubin(arch)}))
	}
	b.Images = append(b.Images, mustImage(t, Image{Target: Target{BackendCUDA, "compute_52"}, Format: FormatPTX, Kernels: []string{"add_one", "fill_u32", "iota"}, Code: readFile(t, ptxKernels)}))
	for _, path := range []string{spirvKernels, spirvFP64} {
		a, err := Analyze(FormatSPIRV, readFile(t, path))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, k := range a.Kernels {
			names = append(names, k.Name)
		}
		b.Images = append(b.Images, mustImage(t, Image{Format: FormatSPIRV, Kernels: names, Properties: Properties{Aspects: a.Kernels[0].Aspects}, Code: a.src}))
	}
	cl, err := Analyze(FormatOpenCLC, readFile(t, openclKernels))
	if err != nil {
		t.Fatal(err)
	}
	parts, err := cl.Split(SplitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		b.Images = append(b.Images, mustImage(t, Image{Target: Target{Backend: BackendOpenCL}, Format: FormatOpenCLC, Kernels: p.Kernels, Properties: Properties{Aspects: p.Aspects}, Code: p.Code}))
	}
	b.Images = append(b.Images, mustImage(t, Image{Target: Target{Backend: BackendCUDA}, Format: FormatCUDAC, Kernels: cuKernels, Properties: Properties{Aspects: AspectFP64}, Code: cu.src}))
	b.Images = append(b.Images, mustImage(t, Image{Target: Target{BackendLevelZero, "0x0bd5"}, Format: FormatNative, Kernels: []string{"add_one", "axpy", "iota"}, Code: []byte("fake zebin")}))
	return b
}
