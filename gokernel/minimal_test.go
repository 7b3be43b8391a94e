package gokernel

import (
	"fmt"
	"testing"

	"github.com/gour-dev/gour/ur"
)

// NVRTC's refusal of -minimal (an NVRTC before CUDA 12.4) is told from
// other build failures, so that only it makes a build retry without.
func TestRefusedMinimal(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&ur.Error{Result: ur.ErrProgramBuildFailure, Adapter: "cuda", NativeName: "NVRTC_ERROR_INVALID_OPTION", Native: 5}, true},
		{fmt.Errorf("programmgr: %w", &ur.Error{Result: ur.ErrProgramBuildFailure, Adapter: "cuda", BuildLog: "nvrtc: error: invalid option: -minimal"}), true},
		{&ur.Error{Result: ur.ErrProgramBuildFailure, Adapter: "cuda", NativeName: "NVRTC_ERROR_COMPILATION", BuildLog: "gour.cu(3): error: identifier \"x\" is undefined"}, false},
		{&ur.Error{Result: ur.ErrProgramBuildFailure, Adapter: "opencl", BuildLog: "-minimal"}, false},
		{fmt.Errorf("not a driver's"), false},
	} {
		if got := refusedMinimal(c.err); got != c.want {
			t.Errorf("refusedMinimal(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// CUDA C images carry -minimal unless NVRTC refused it or the
// environment turns it off; OpenCL C images carry no option.
func TestMinimalImages(t *testing.T) {
	m := &Module{CUDA: "__global__ void K() {}", OpenCL: "__kernel void K() {}", Kernels: []KernelInfo{{Name: "K"}}}
	k := &m.Kernels[0]
	img, minimal, err := m.image(k, true, false)
	if err != nil || !minimal || img.CompileOptions() != minimalCUDA {
		t.Fatalf("CUDA image: minimal %v, options %q, %v", minimal, img.CompileOptions(), err)
	}
	if img, minimal, _ := m.image(k, false, false); minimal || img.CompileOptions() != "" {
		t.Errorf("OpenCL image: minimal %v, options %q", minimal, img.CompileOptions())
	}
	t.Setenv("GOUR_GOKERNEL_NVRTC_MINIMAL", "0")
	if img, minimal, _ := m.image(k, true, false); minimal || img.CompileOptions() != "" {
		t.Errorf("GOUR_GOKERNEL_NVRTC_MINIMAL=0: minimal %v, options %q", minimal, img.CompileOptions())
	}
	t.Setenv("GOUR_GOKERNEL_NVRTC_MINIMAL", "")
	m.im.fullCUDA = true
	if img, minimal, _ := m.image(k, true, false); minimal || img.CompileOptions() != "" {
		t.Errorf("after NVRTC refused it: minimal %v, options %q", minimal, img.CompileOptions())
	}
}
