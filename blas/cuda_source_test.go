package blas

import (
	_ "embed"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gour-dev/gour/dtype"
)

// cudaShim declares what NVRTC provides, embedded so that the test binary
// runs from any directory.
//
//go:embed testdata/cuda_shim.h
var cudaShim []byte

// TestCUDASource compiles every type's CUDA C program, with the tiling a
// CUDA GPU gives it (and float32's with the small one), to PTX with clang's CUDA front end, which needs no CUDA toolkit
// (testdata/cuda_shim.h declares what NVRTC provides): so the CUDA text is
// checked where there is no GPU. The kernels run on CUDA in the tests on
// the GPU machine. It skips without clang (failing under
// GOUR_REQUIRE_SPIRV_COMPILER=1, which requires clang for SPIR-V too).
func TestCUDASource(t *testing.T) {
	clang := ""
	for _, name := range []string{"clang-15", "clang"} {
		if p, err := exec.LookPath(name); err == nil {
			clang = p
			break
		}
	}
	if clang == "" {
		if os.Getenv("GOUR_REQUIRE_SPIRV_COMPILER") == "1" {
			t.Fatal("GOUR_REQUIRE_SPIRV_COMPILER=1 and no clang-15 or clang on PATH")
		}
		t.Skip("no clang on PATH")
	}
	dir := t.TempDir()
	shim := filepath.Join(dir, "cuda_shim.h")
	if err := os.WriteFile(shim, cudaShim, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ty := range []dtype.Type{dtype.Float32, dtype.Float64, dtype.Float16, dtype.BFloat16} {
		tilings := []gemmTiling{tilingBig}
		switch ty {
		case dtype.Float64:
			tilings = []gemmTiling{tilingF64}
		case dtype.Float32:
			tilings = append(tilings, tilingSmall)
		}
		for _, g := range tilings {
			src := filepath.Join(dir, "blas.cu")
			if err := os.WriteFile(src, []byte(programSource("cuda", ty, g)), 0o644); err != nil {
				t.Fatal(err)
			}
			ptx := filepath.Join(dir, "blas.ptx")
			out, err := exec.Command(clang, "-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_80", "-nocudainc", "-nocudalib",
				"-O1", "-S", "-Werror", "-include", shim, src, "-o", ptx).CombinedOutput()
			if err != nil {
				t.Fatalf("%s, tiling %+v: %v\n%s", ty, g, err, out)
			}
			b, err := os.ReadFile(ptx)
			if err != nil {
				t.Fatal(err)
			}
			names := append([]string(nil), kernelNames...)
			for _, ta := range []Transpose{NoTrans, Trans} {
				for _, tb := range []Transpose{NoTrans, Trans} {
					names = append(names, gemmKernelName(ta, tb, false))
				}
			}
			for _, name := range names {
				if !strings.Contains(string(b), ".entry "+name+"(") {
					t.Errorf("%s, tiling %+v: no kernel %s in the PTX", ty, g, name)
				}
			}
		}
	}
}
