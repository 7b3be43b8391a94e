package blas

import (
	"errors"
	"testing"

	"github.com/gour-dev/gour/blas/internal/cublas"
	"github.com/gour-dev/gour/internal/testenv"
	"github.com/gour-dev/gour/ur"
)

// TestCUBLASErrors: a cuBLAS status comes back typed: an invalid value
// and a missing feature as *ArgError with ur's code, everything else as
// the library's *cublas.Error naming the function and the status.
func TestCUBLASErrors(t *testing.T) {
	var e cublasEngine
	for _, c := range []struct {
		status cublas.Status
		code   ur.Result
	}{
		{cublas.InvalidValue, ur.ErrInvalidValue},
		{cublas.NotSupported, ur.ErrUnsupportedFeature},
		{cublas.ArchMismatch, ur.ErrUnsupportedFeature},
	} {
		err := e.err("blas.Gemm", &cublas.Error{Func: "cublasGemmEx", Status: c.status})
		var ae *ArgError
		if !errors.As(err, &ae) || !errors.Is(err, c.code) || ae.Op != "blas.Gemm" {
			t.Errorf("%v: %v, want an *ArgError with %v", c.status, err, c.code)
		}
		var ce *cublas.Error
		if !errors.As(err, &ce) || ce.Status != c.status {
			t.Errorf("%v: %v does not unwrap to the *cublas.Error", c.status, err)
		}
	}
	err := e.err("blas.Dot", &cublas.Error{Func: "cublasSdot_v2", Status: cublas.ExecutionFailed})
	var ce *cublas.Error
	if !errors.As(err, &ce) || ce.Status != cublas.ExecutionFailed || err.Error() != "blas.Dot: cublas: cublasSdot_v2: CUBLAS_STATUS_EXECUTION_FAILED" {
		t.Errorf("execution failure = %v", err)
	}
	if e.err("blas.Dot", nil) != nil {
		t.Error("nil error mapped to an error")
	}
}

// cublasEngineOn returns the cuBLAS engine of a Handle on the first CUDA
// device, and the Handle (closed with the test).
func cublasEngineOn(t testing.TB) (*Handle, *cublasEngine) {
	t.Helper()
	dev := testenv.MustHaveDevice(t, "cuda")[0]
	ctx, err := ur.NewContext(dev)
	if err != nil {
		t.Fatal(err)
	}
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(q, Options{Backend: BackendCUBLAS})
	if errors.Is(err, ErrLibraryUnavailable) && !testenv.IsRequired("cuda") {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := errors.Join(h.Close(), q.Release(), ctx.Release()); err != nil {
			t.Error(err)
		}
	})
	return h, h.eng.(*cublasEngine)
}

// TestCUBLASEngineAllocatesNothing: the backend's GEMM call, from the
// checked arguments to cuBLAS, allocates nothing.
func TestCUBLASEngineAllocatesNothing(t *testing.T) {
	h, e := cublasEngineOn(t)
	const n = 64
	u, err := h.ctx.AllocDevice(h.dev, 3*n*n*4)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Free()
	p := u.Ptr()
	a := GemmArgs{Type: Float32, M: n, N: n, K: n, Alpha: 1, A: OnPtr(p), B: OnPtr(p.Add(n * n * 4)), C: OnPtr(p.Add(2 * n * n * 4)), LDA: n, LDB: n, LDC: n, Batch: 1}
	if allocs := testing.AllocsPerRun(200, func() {
		if err := e.gemm(&a); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("%v allocations per call", allocs)
	}
	if err := h.q.Finish(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkCUBLASGemm64 is the host's cost of a 64×64 SGEMM through the
// Handle and through the engine alone.
func BenchmarkCUBLASGemm64(b *testing.B) {
	h, e := cublasEngineOn(b)
	const n = 64
	u, err := h.ctx.AllocDevice(h.dev, 3*n*n*4)
	if err != nil {
		b.Fatal(err)
	}
	defer u.Free()
	p := u.Ptr()
	a := GemmArgs{Type: Float32, M: n, N: n, K: n, Alpha: 1, A: OnPtr(p), B: OnPtr(p.Add(n * n * 4)), C: OnPtr(p.Add(2 * n * n * 4)), LDA: n, LDB: n, LDC: n, Batch: 1}
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"Handle", func() error { return h.Gemm(a) }},
		{"engine", func() error { return e.gemm(&a) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := c.call(); err != nil {
					b.Fatal(err)
				}
				if i%256 == 255 {
					if err := h.q.Finish(); err != nil {
						b.Fatal(err)
					}
				}
			}
			if err := h.q.Finish(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
