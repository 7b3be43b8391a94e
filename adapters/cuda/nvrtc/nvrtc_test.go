package nvrtc

import (
	"errors"
	"strings"
	"testing"

	inv "github.com/gour-dev/gour/adapters/cuda/internal/nvrtc"
	"github.com/gour-dev/gour/ur"
)

const axpy = `extern "C" __global__ void axpy(float a, const float* x, float* y, unsigned int n) {
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * x[i] + y[i];
}`

// TestCompile compiles with the NVRTC of this machine, or, where there is
// none (CI), checks that every call says so with ur.ErrUnsupportedFeature.
func TestCompile(t *testing.T) {
	if err := Available(); err != nil {
		if !errors.Is(err, ur.ErrUnsupportedFeature) || !strings.Contains(err.Error(), "NVRTC is not available") || !strings.Contains(err.Error(), "libnvrtc.so") {
			t.Fatalf("Available = %v; want ErrUnsupportedFeature naming the library looked for", err)
		}
		_, _, _, cerr := Compile(axpy, "axpy.cu", []string{"-arch=sm_90"})
		_, _, verr := Version()
		for _, e := range []error{cerr, verr} {
			if ur.ResultOf(e) != ur.ErrUnsupportedFeature {
				t.Errorf("without NVRTC: %v, want ErrUnsupportedFeature", e)
			}
		}
		return
	}
	major, minor, err := Version()
	if err != nil || major < 11 {
		t.Fatalf("Version = %d.%d, %v", major, minor, err)
	}
	ptx, cubin, _, err := Compile(axpy, "axpy.cu", []string{"-arch=sm_90"})
	if err != nil || !strings.Contains(string(ptx), ".entry axpy") || !strings.HasPrefix(string(cubin), "\x7fELF") {
		t.Errorf("Compile(sm_90) = %d bytes of PTX, %d of cubin, %v; want both, the cubin an ELF file", len(ptx), len(cubin), err)
	}
	ptx, cubin, _, err = Compile(axpy, "axpy.cu", []string{"-arch=compute_80"})
	if err != nil || !strings.Contains(string(ptx), ".target sm_80") || cubin != nil {
		t.Errorf("Compile(compute_80) = %d bytes of PTX, %d of cubin, %v; want PTX for sm_80 and no cubin", len(ptx), len(cubin), err)
	}
	_, _, log, err := Compile(`extern "C" __global__ void k() { undeclared = 1; }`, "bad.cu", nil)
	if ur.ResultOf(err) != ur.ErrProgramBuildFailure || !strings.Contains(ur.BuildLogOf(err), "undeclared") || log != ur.BuildLogOf(err) {
		t.Errorf("Compile(bad) = %v, log %q; want ErrProgramBuildFailure with the log", err, log)
	}
}

// TestErrors: the errors of a missing library and a failed compile, made
// without a library.
func TestErrors(t *testing.T) {
	if loadError("op", nil) != nil {
		t.Error("loadError(nil) is not nil")
	}
	missing := errors.New("nvrtc: cannot load libnvrtc.so: not found")
	err := loadError("nvrtc.Compile", missing)
	if !errors.Is(err, ur.ErrUnsupportedFeature) || !errors.Is(err, missing) {
		t.Errorf("loadError = %v; want ErrUnsupportedFeature wrapping the loader's error", err)
	}
	if !inv.RealArch([]string{"-arch=sm_90"}) || !inv.RealArch([]string{"--gpu-architecture", "sm_80"}) || inv.RealArch([]string{"-arch=compute_90"}) || inv.RealArch(nil) {
		t.Error("RealArch misreads the options")
	}
}
