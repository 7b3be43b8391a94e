package blas_test

import (
	"path/filepath"
	"testing"

	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur"
)

// TestTraceSpans: while a trace records, a call is a span of category
// "blas" naming the call, the backend that served it and its sizes,
// on every backend of the device.
func TestTraceSpans(t *testing.T) {
	envs := envs(t)
	path := filepath.Join(t.TempDir(), "t.json")
	if err := ur.StartTrace(path); err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			ur.StopTrace()
		}
	}()
	for _, e := range envs {
		a := blas.GemmArgs{Type: dtype.Float32, M: 3, N: 5, K: 7, Alpha: 1, LDA: 7, LDB: 5, LDC: 5}
		a.A = e.upload(t, a.Type, values(3*7, 1), 0, 0, false).operand()
		a.B = e.upload(t, a.Type, values(7*5, 2), 0, 0, false).operand()
		a.C = e.upload(t, a.Type, values(3*5, 3), 0, 0, false).operand()
		if err := e.h.Gemm(a); err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		if err := e.q.Finish(); err != nil {
			t.Fatal(err)
		}
	}
	stopped = true
	if err := ur.StopTrace(); err != nil {
		t.Fatal(err)
	}
	evs, err := trace.ValidateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, ev := range evs {
		if ev.Cat != "blas" || ev.Name != "blas.Gemm" {
			continue
		}
		if ev.Args["m"] != 3.0 || ev.Args["n"] != 5.0 || ev.Args["k"] != 7.0 || ev.Args["type"] != "float32" {
			t.Errorf("span args %v, want m 3, n 5, k 7, type float32", ev.Args)
		}
		b, _ := ev.Args["backend"].(string)
		served[b] = true
	}
	for _, e := range envs {
		if !served[string(e.h.Backend())] {
			t.Errorf("no blas.Gemm span served by %s (spans by %v)", e.h.Backend(), served)
		}
	}
}
