package blas

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/gour-dev/gour/blas/internal/cublas"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/internal/harness/testenv"
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
	_, q := testenv.ContextQueue(t, dev)
	h, err := New(q, Options{Backend: BackendCUBLAS})
	if errors.Is(err, ErrLibraryUnavailable) && !testenv.IsRequired("cuda") {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
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
	a := GemmArgs{Type: dtype.Float32, M: n, N: n, K: n, Alpha: 1, A: OnPtr(p), B: OnPtr(p.Add(n * n * 4)), C: OnPtr(p.Add(2 * n * n * 4)), LDA: n, LDB: n, LDC: n, Batch: 1}
	if allocs := testing.AllocsPerRun(200, func() {
		if err := e.gemm(a); err != nil {
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
	a := GemmArgs{Type: dtype.Float32, M: n, N: n, K: n, Alpha: 1, A: OnPtr(p), B: OnPtr(p.Add(n * n * 4)), C: OnPtr(p.Add(2 * n * n * 4)), LDA: n, LDB: n, LDC: n, Batch: 1}
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"Handle", func() error { return h.Gemm(a) }},
		{"engine", func() error { return e.gemm(a) }},
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

// TestCUBLASSmallBreakdown splits the host's cost of a 64×64 SGEMM call
// through gour against cuBLAS called from C in this process, rounds of
// 200 calls alternating between the sides: C as a C program calls
// (c), C making the context current before each call as gour does
// (c-setctx), C on a handle with gour's workspace (c-ws), gour's Handle
// (gour), the same on a locked thread (gour-locked), a second Handle
// left on cuBLAS's own workspace (gour-defaultws), the engine without the
// Handle's checks (engine), and the binding alone (binding). It runs
// where GOUR_CUBLAS_SMALL_LIB names the library built from
// scripts/bench/c/cublas_small.c, and logs its table.
func TestCUBLASSmallBreakdown(t *testing.T) {
	lib := os.Getenv("GOUR_CUBLAS_SMALL_LIB")
	if lib == "" {
		t.Skip("GOUR_CUBLAS_SMALL_LIB is not set")
	}
	h, e := cublasEngineOn(t)
	h2, err := New(h.q, Options{Backend: BackendCUBLAS})
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	// SetStream puts cuBLAS's own workspace back.
	if err := h2.eng.(*cublasEngine).blas.SetStream(h.q.Native()); err != nil {
		t.Fatal(err)
	}
	const n, calls, rounds = 64, 200, 150
	size := uint64(n * n * 4)
	mem, err := h.ctx.AllocDevice(h.dev, 3*size)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Free()
	ev, err := h.q.EnqueueMemFill(mem.Ptr(), []byte{0, 0, 0x80, 0x3f}, 3*size)
	if err != nil {
		t.Fatal(err)
	}
	ev.Release()
	p := mem.Ptr()
	a := GemmArgs{Type: dtype.Float32, M: n, N: n, K: n, Alpha: 1, A: OnPtr(p), B: OnPtr(p.Add(size)), C: OnPtr(p.Add(2 * size)), LDA: n, LDB: n, LDC: n, Batch: 1}
	l, err := dl.Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	loop, err := l.Lookup("gour_bench_cublas_sgemm_loop_with")
	if err != nil {
		t.Fatal(err)
	}
	cSide := func(setctx bool, ws uintptr, wsSize uint64) func(int) error {
		args := &dl.Args{h.ctx.Native(), h.q.Native(), p.Addr(), p.Add(size).Addr(), p.Add(2 * size).Addr(), n, 0, 0, ws, uintptr(wsSize)}
		if setctx {
			args[7] = 1
		}
		return func(k int) error {
			args[6] = uintptr(k)
			if r := int32(dl.Call(loop, args)); r != 0 {
				return fmt.Errorf("gour_bench_cublas_sgemm_loop_with: %d", r)
			}
			return nil
		}
	}
	A := cublas.Matrix{Ptr: p.Addr(), Type: cublas.R32F, LD: n}
	B := cublas.Matrix{Ptr: p.Add(size).Addr(), Type: cublas.R32F, LD: n}
	C := cublas.Matrix{Ptr: p.Add(2 * size).Addr(), Type: cublas.R32F, LD: n}
	a2 := a
	type side struct {
		name             string
		q                *ur.Queue
		call             func(int) error
		enqueues, totals []float64
	}
	sides := []*side{
		{name: "c", q: h.q, call: cSide(false, 0, 0)},
		{name: "c-setctx", q: h.q, call: cSide(true, 0, 0)},
		{name: "c-ws", q: h.q, call: cSide(false, e.ws.Addr(), cublasWorkspace)},
		{name: "gour", q: h.q, call: func(k int) error {
			for range k {
				if err := h.Gemm(a); err != nil {
					return err
				}
			}
			return nil
		}},
		{name: "gour-locked", q: h.q, call: func(k int) error {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for range k {
				if err := h.Gemm(a); err != nil {
					return err
				}
			}
			return nil
		}},
		{name: "gour-defaultws", q: h.q, call: func(k int) error {
			for range k {
				if err := h2.Gemm(a2); err != nil {
					return err
				}
			}
			return nil
		}},
		{name: "engine", q: h.q, call: func(k int) error {
			for range k {
				if err := e.gemm(a); err != nil {
					return err
				}
			}
			return nil
		}},
		{name: "binding", q: h.q, call: func(k int) error {
			for range k {
				if err := e.blas.Gemm(cublas.OpN, cublas.OpN, n, n, n, 1, B, A, 0, C, cublas.Compute32F); err != nil {
					return err
				}
			}
			return nil
		}},
	}
	round := func(s *side, k int) (float64, float64, error) {
		start := time.Now()
		if err := s.call(k); err != nil {
			return 0, 0, err
		}
		enq := time.Since(start)
		if err := s.q.Finish(); err != nil {
			return 0, 0, err
		}
		return float64(enq.Nanoseconds()) / float64(k), float64(time.Since(start).Nanoseconds()) / float64(k), nil
	}
	for _, s := range sides {
		if _, _, err := round(s, 200); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	for r := range rounds {
		for j := range sides {
			s := sides[(j+r)%len(sides)]
			en, tot, err := round(s, calls)
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			s.enqueues, s.totals = append(s.enqueues, en), append(s.totals, tot)
		}
	}
	med := func(xs []float64) float64 {
		s := slices.Clone(xs)
		slices.Sort(s)
		return s[len(s)/2]
	}
	c := med(sides[0].enqueues)
	for _, s := range sides {
		t.Logf("%-15s enqueue %8.1f ns/call (%.3f of c)  total %8.1f ns/call  enqueue min %8.1f", s.name, med(s.enqueues), med(s.enqueues)/c, med(s.totals), slices.Min(s.enqueues))
	}
}
