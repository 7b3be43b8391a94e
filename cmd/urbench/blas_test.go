package main

import (
	"strings"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

// urbench blas measures and checks every figure on PoCL, small, on the
// own kernels and on CLBlast.
func TestBLAS(t *testing.T) {
	testenv.MustHaveDevice(t, "opencl")
	code, out, errOut := runUrbench(t, "blas", "-backend", "gour", "-quick", "-types", "float32,bfloat16", "-small", "16")
	if code != 0 {
		t.Fatalf("urbench blas exited %d: %s", code, errOut)
	}
	for _, want := range []string{"\nblas.gemm backend=gour type=float32 n=256 tflops=", "\nblas.gemm backend=gour type=bfloat16 n=256 ",
		"\nblas.gemm.vs backend=gour type=float32 n=128 ", "\nblas.gemm.small backend=gour type=float32 n=16 calls=20 us="} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "\nblas.gemm.vs backend=clblast ") && !strings.Contains(out, "# blas.gemm.vs skipped: ") {
		t.Errorf("output has neither CLBlast's blas.gemm.vs nor why not:\n%s", out)
	}
	t.Log("\n" + out)
	for _, args := range [][]string{{"blas", "-backend", "mkl"}, {"blas", "-types", "int8"}, {"blas", "-rounds", "0"}, {"blas", "-mem", "host"}} {
		if code, _, _ := runUrbench(t, args...); code != 2 {
			t.Errorf("urbench %q exited %d, want 2", args, code)
		}
	}
}
