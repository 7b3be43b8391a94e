package main

import (
	"os"
	"strings"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

// TestMain runs urbench itself, not the tests, in the children that
// compute's transform.first starts from this binary (os.Executable).
func TestMain(m *testing.M) {
	if os.Getenv(envComputeChild) != "" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// urbench compute measures and checks every figure on PoCL, small.
func TestCompute(t *testing.T) {
	testenv.MustHaveDevice(t, "opencl")
	code, out, errOut := runUrbench(t, "compute", "-backend", "opencl", "-quick", "-rounds", "2", "-calls", "20", "-first-runs", "2")
	if code != 0 {
		t.Fatalf("urbench compute exited %d: %s", code, errOut)
	}
	for _, want := range []string{"2 rounds; y = a*x + y (a = 2); -n 65536, -reduce-n 65536, -cpu-n 65536, 20 calls per round\n",
		"\ntransform.axpy ", "\ncopy.d2d ", "\nreduce.sum ", "\nreduce.read ", "\ntransform.dispatch ", "\ndispatch.prepared ", "\ndispatch.arglaunch ",
		"\ncpu.axpy ", "\ncpu.goroutines ", "\ntransform.first ", "\ntransform.first.alone ", "\ntaskseq ", "\ntaskseq.plain ", "\npipeline ", "\npipeline.loop ", "\nmatmul.sgemm ", "\nblas.sgemm ", "\ncpu.matmul "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	t.Log("\n" + out)
	for _, args := range [][]string{{"compute", "-n", "100"}, {"compute", "-rounds", "0"}, {"compute", "-first-runs", "0"},
		{"compute", "-reduce-n", "x"}, {"compute", "-backend", "vulkan"}, {"compute", "extra"}, {"compute", "-mm-n", "0"}, {"compute", "-devices", "-1"}} {
		if code, _, _ := runUrbench(t, args...); code != 2 {
			t.Errorf("urbench %q exited %d, want 2", args, code)
		}
	}
}

// urbench compute -devices 2 measures compute over two of PoCL's
// sub-devices against one, and checks the results.
func TestComputeDevices(t *testing.T) {
	testenv.MustHaveDevice(t, "opencl")
	code, out, errOut := runUrbench(t, "compute", "-backend", "opencl", "-quick", "-rounds", "2", "-devices", "2")
	if code != 0 {
		t.Fatalf("urbench compute -devices 2 exited %d: %s", code, errOut)
	}
	for _, want := range []string{"-n 65536 and -reduce-n 65536 elements per device\n", "\ndevices.axpy.1 ", "\ndevices.axpy.2 ", "\ndevices.reduce.1 ", "\ndevices.reduce.2 ", "/one "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	t.Log("\n" + out)
}
