package main

import (
	"bytes"
	_ "embed"
	"strings"
	"testing"

	"github.com/gour-dev/gour/bundle"
	"github.com/gour-dev/gour/internal/harness/testenv"
)

// TestRun runs the example on every selected device whose backend the
// committed bundle has an image for, and checks what it prints: y = 1 + 2x
// from both kernels, each from the image the device should run (on
// OpenCL, the OpenCL C part with the kernel; on an H100, sm_90's cubin;
// on another CUDA device, the best of the cubins, PTX and CUDA C).
func TestRun(t *testing.T) {
	t.Setenv("SYCL_CACHE_DIR", t.TempDir()) // the persistent cache's first use: not the user's
	const values = "y[:4] = [1 3 5 7] y[1023] = 2047\n"
	for _, dev := range testenv.Devices(t) {
		t.Run(dev.Backend()+"/"+dev.Name(), func(t *testing.T) {
			if b := dev.Backend(); b != "opencl" && b != "cuda" {
				t.Skipf("the committed bundle has no image for %s devices (no SPIR-V: llvm-spirv was not installed where it was generated)", b)
			}
			var out bytes.Buffer
			if err := run(&out, dev); err != nil {
				t.Fatalf("run on %s: %v", dev, err)
			}
			lines := strings.SplitAfter(out.String(), "\n")
			if len(lines) != 6 || lines[0] != "bundle of 6 images, 2 kernels on "+dev.Name()+"\n" {
				t.Fatalf("run on %s printed\n%s", dev, out.String())
			}
			want := []string{
				"axpy: image 0 (opencl-c opencl): source compiled at run time\n",
				"axpy: " + values,
				"axpy_f64: image 1 (opencl-c opencl): source compiled at run time\n",
				"axpy_f64: " + values,
			}
			if dev.Backend() == "cuda" {
				// Whatever the architecture, a CUDA image; on sm_90, its own
				// cubin (image 3).
				want[0], want[2] = "axpy: image ", "axpy_f64: image "
				if dev.Info().LanguageVersion == "sm_90" {
					want[0] = "axpy: image 3 (native cuda:sm_90): exact native match\n"
					want[2] = "axpy_f64: image 3 (native cuda:sm_90): exact native match\n"
				}
			}
			if !dev.Info().FP64 {
				want[2] = "axpy_f64: not run: "
				want[3] = ""
			}
			for i, w := range want {
				if !strings.HasPrefix(lines[i+1], w) {
					t.Errorf("line %d on %s: %q, want %q", i+2, dev, lines[i+1], w)
				}
			}
		})
	}
}

// The sources, embedded so that the test binary runs from any directory
// (make build-device-tests).
var (
	//go:embed axpy.cl
	cl []byte
	//go:embed axpy.cu
	cu []byte
)

// TestBundleIsCurrent: the embedded bundle's source images are the
// sources beside it, split as urpack splits them: go generate was run
// after the last change.
func TestBundleIsCurrent(t *testing.T) {
	b, err := bundle.Parse(axpyBundle)
	if err != nil {
		t.Fatal(err)
	}
	a, err := bundle.Analyze(bundle.FormatOpenCLC, cl)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := a.Split(bundle.SplitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, p := range parts {
		want = append(want, string(p.Code))
	}
	want = append(want, string(cu))
	for _, im := range b.Images {
		if im.Format == bundle.FormatOpenCLC || im.Format == bundle.FormatCUDAC {
			got = append(got, string(im.Code))
		}
	}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("axpy.urb holds other sources than axpy.cl and axpy.cu: run go generate ./examples/bundle")
	}
}
