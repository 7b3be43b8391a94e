package main

import (
	"io"
	"strings"
	"testing"

	"github.com/gour-dev/gour/adapters/cuda/nvrtc"
	"github.com/gour-dev/gour/bundle"
	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/ur"
)

// TestBundleUsage: bundle's usage, its misuse (exit 2) and its failure
// without a CUDA device (exit 1, naming why).
func TestBundleUsage(t *testing.T) {
	code, out, _ := runUrbench(t, "help", "bundle")
	if code != cli.ExitOK || !strings.Contains(out, "usage: urbench bundle ") || !strings.Contains(out, "ptx cached") {
		t.Errorf("help bundle: exit %d\n%s", code, out)
	}
	t.Setenv(ur.EnvDeviceSelector, "")
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"bundle", "-runs", "0"}, "urbench bundle: -kernels, -ops and -runs must be at least 1\n"},
		{[]string{"bundle", "-cuda-arch", "90"}, "urbench bundle: -cuda-arch: \"90\" is not sm_XY\n"},
		{[]string{"bundle", "-ptx-arch", "sm_80"}, "urbench bundle: -ptx-arch: \"sm_80\" is not compute_XY\n"},
	} {
		code, out, errOut := runUrbench(t, tc.args...)
		if code != cli.ExitUsage || out != "" || !strings.HasPrefix(errOut, tc.stderr) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and %q", tc.args, code, out, errOut, cli.ExitUsage, tc.stderr)
		}
	}
	t.Setenv(ur.EnvForceLoad, "opencl")
	code, out, errOut := runUrbench(t, "bundle")
	want := "urbench bundle: no cuda device: the cuda adapter did not load: not among the adapters UR_ADAPTERS_FORCE_LOAD loads\n"
	if code != cli.ExitFailure || out != "" || errOut != want {
		t.Errorf("without CUDA: exit %d, stdout %q, stderr %q; want %d and %q", code, out, errOut, cli.ExitFailure, want)
	}
	t.Setenv(envBundleMode, "fat")
	t.Setenv(envBundleFile, "/nonexistent/bench.urb")
	if code, _, errOut := runUrbench(t, "bundle"); code != cli.ExitFailure || !strings.Contains(errOut, "/nonexistent/bench.urb") {
		t.Errorf("child without its bundle file: exit %d, stderr %q", code, errOut)
	}
}

// TestBundleBuild: the generated CUDA C has the kernels asked for and
// needs no aspect; building the bundle needs NVRTC, which says so where
// it is missing.
func TestBundleBuild(t *testing.T) {
	src := generateC(cudaC, 3, 8)
	a, err := bundle.Analyze(bundle.FormatCUDAC, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Kernels) != 3 || a.Kernels[2].Name != "kernel_002" || a.Kernels[0].Aspects != 0 {
		t.Errorf("generated CUDA C: %+v", a.Kernels)
	}
	b, _, err := buildBundle(io.Discard, src, []string{"sm_90"}, "compute_80")
	if nvrtc.Available() != nil {
		if ur.ResultOf(err) != ur.ErrUnsupportedFeature {
			t.Errorf("without NVRTC: buildBundle = %v, want ErrUnsupportedFeature", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, im := range b.Images {
		got = append(got, im.Format.String()+" "+im.Target.String())
	}
	if want := "native cuda:sm_90, ptx cuda:compute_80, cuda-c cuda"; strings.Join(got, ", ") != want {
		t.Errorf("images %s, want %s", strings.Join(got, ", "), want)
	}
}
