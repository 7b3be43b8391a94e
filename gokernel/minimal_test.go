package gokernel

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// NVRTC's refusal of -minimal (an NVRTC before CUDA 12.4) is told from
// other build failures: only it stops the module asking for -minimal.
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
	img, minimal, err := m.image(k, true, false, true)
	if err != nil || !minimal || img.CompileOptions() != minimalCUDA {
		t.Fatalf("CUDA image: minimal %v, options %q, %v", minimal, img.CompileOptions(), err)
	}
	if img, minimal, _ := m.image(k, false, false, true); minimal || img.CompileOptions() != "" {
		t.Errorf("OpenCL image: minimal %v, options %q", minimal, img.CompileOptions())
	}
	t.Setenv("GOUR_GOKERNEL_NVRTC_MINIMAL", "0")
	if img, minimal, _ := m.image(k, true, false, true); minimal || img.CompileOptions() != "" {
		t.Errorf("GOUR_GOKERNEL_NVRTC_MINIMAL=0: minimal %v, options %q", minimal, img.CompileOptions())
	}
	if img, minimal, _ := m.image(k, true, false, false); minimal || img.CompileOptions() != "" {
		t.Errorf("asked for without: minimal %v, options %q", minimal, img.CompileOptions())
	}
	t.Setenv("GOUR_GOKERNEL_NVRTC_MINIMAL", "")
	m.im.fullCUDA = true
	if img, minimal, _ := m.image(k, true, false, true); minimal || img.CompileOptions() != "" {
		t.Errorf("after NVRTC refused it: minimal %v, options %q", minimal, img.CompileOptions())
	}
}

// A CUDA build that fails with -minimal is tried once without it; any
// other failure is returned as it is, and NVRTC's refusal of the option
// stops the module asking for it.
func TestBuildImageRetriesWithoutMinimal(t *testing.T) {
	compileError := &ur.Error{Result: ur.ErrProgramBuildFailure, Adapter: "cuda", NativeName: "NVRTC_ERROR_COMPILATION"}
	refused := &ur.Error{Result: ur.ErrProgramBuildFailure, Adapter: "cuda", NativeName: "NVRTC_ERROR_INVALID_OPTION"}
	for _, c := range []struct {
		name       string
		minimalErr error // the build with -minimal; the one without succeeds
		want       error
		builds     int
		full       bool // the module stops asking for -minimal
	}{
		{"builds", nil, nil, 1, false},
		{"fails only with -minimal", compileError, nil, 2, false},
		{"refused", refused, nil, 2, true},
		{"not a build failure", ur.ErrOutOfHostMemory, ur.ErrOutOfHostMemory, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &Module{CUDA: "__global__ void K() {}", OpenCL: "__kernel void K() {}", Kernels: []KernelInfo{{Name: "K"}}}
			var options []string
			_, err := buildImage(m, &m.Kernels[0], true, false, func(img *programmgr.Image) (int, error) {
				options = append(options, img.CompileOptions())
				if img.CompileOptions() == minimalCUDA {
					return 0, c.minimalErr
				}
				return 1, nil
			})
			if !errors.Is(err, c.want) || len(options) != c.builds || m.im.fullCUDA != c.full {
				t.Errorf("err %v, builds with options %q, module full %v; want %v, %d builds, %v", err, options, m.im.fullCUDA, c.want, c.builds, c.full)
			}
		})
	}
	// A failure of the build without -minimal is the one returned.
	m := &Module{CUDA: "x", OpenCL: "x", Kernels: []KernelInfo{{Name: "K"}}}
	_, err := buildImage(m, &m.Kernels[0], true, false, func(img *programmgr.Image) (int, error) {
		if img.CompileOptions() == "" {
			return 0, fmt.Errorf("without: %w", compileError)
		}
		return 0, compileError
	})
	if err == nil || err.Error()[:8] != "without:" {
		t.Errorf("a kernel that fails both ways: %v, want the second build's error", err)
	}
}
