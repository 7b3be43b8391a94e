package blas_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// TestBadInput: every refused call is a typed error naming the argument
// and matching its ur code, and leaves the outputs as they were.
func TestBadInput(t *testing.T) {
	for _, e := range envs(t) {
		t.Run(e.name, func(t *testing.T) {
			const n = 8
			f := dtype.Float32
			A, B, C := e.upload(t, f, values(n*n, 1), 0, 0, false), e.upload(t, f, values(n*n, 2), 0, 0, false), e.upload(t, f, values(n*n, 3), 0, 0, false)
			R := e.upload(t, f, []float64{5}, 0, 0, false)
			small, err := e.ctx.NewBuffer(ur.MemReadWrite, 2)
			if err != nil {
				t.Fatal(err)
			}
			defer small.Release()
			released, err := e.ctx.NewBuffer(ur.MemReadWrite, n*n*4)
			if err != nil {
				t.Fatal(err)
			}
			released.Release()
			other := otherContextBuffer(t, e.dev, n*n*4)
			good := blas.GemmArgs{Type: f, M: n, N: n, K: n, Alpha: 1, Beta: 1, A: A.operand(), B: B.operand(), C: C.operand(), LDA: n, LDB: n, LDC: n}
			gemm := func(edit func(a *blas.GemmArgs)) func() error {
				return func() error {
					a := good
					edit(&a)
					return e.h.Gemm(a)
				}
			}
			cases := []struct {
				name string
				call func() error
				arg  string
				code ur.Result
			}{
				{"LDA below K", gemm(func(a *blas.GemmArgs) { a.LDA = n - 1 }), "LDA", ur.ErrInvalidValue},
				{"LDA below M, A transposed", gemm(func(a *blas.GemmArgs) { a.TransA, a.M, a.LDA = blas.Trans, n/2, n/2-1 }), "LDA", ur.ErrInvalidValue},
				{"LDB below N", gemm(func(a *blas.GemmArgs) { a.LDB = 0 }), "LDB", ur.ErrInvalidValue},
				{"LDC below N", gemm(func(a *blas.GemmArgs) { a.LDC = n - 1 }), "LDC", ur.ErrInvalidValue},
				{"negative M", gemm(func(a *blas.GemmArgs) { a.M = -1 }), "M", ur.ErrInvalidValue},
				{"unknown transpose", gemm(func(a *blas.GemmArgs) { a.TransB = 7 }), "TransB", ur.ErrInvalidValue},
				{"unknown type", gemm(func(a *blas.GemmArgs) { a.Type = 0 }), "Type", ur.ErrInvalidValue},
				{"nil A", gemm(func(a *blas.GemmArgs) { a.A = blas.Operand{} }), "A", ur.ErrInvalidNullPointer},
				{"A too small", gemm(func(a *blas.GemmArgs) { a.A = blas.OnBuffer(small, 0) }), "A", ur.ErrInvalidSize},
				{"B past its buffer's end", gemm(func(a *blas.GemmArgs) { a.B = a.B.Add(4) }), "B", ur.ErrInvalidSize},
				{"misaligned A", gemm(func(a *blas.GemmArgs) { a.A, a.K, a.LDA = a.A.Add(1), n-1, n-1 }), "A", ur.ErrInvalidValue},
				{"released B", gemm(func(a *blas.GemmArgs) { a.B = blas.OnBuffer(released, 0) }), "B", ur.ErrInvalidMemObject},
				{"C of another context", gemm(func(a *blas.GemmArgs) { a.C = blas.OnBuffer(other, 0) }), "C", ur.ErrInvalidContext},
				{"negative batch", gemm(func(a *blas.GemmArgs) { a.Batch = -2 }), "Batch", ur.ErrInvalidValue},
				{"overlapping batch outputs", gemm(func(a *blas.GemmArgs) { a.Batch, a.M, a.StrideC = 2, n/2, n }), "StrideC", ur.ErrInvalidValue},
				{"batch past C's end", gemm(func(a *blas.GemmArgs) { a.Batch, a.StrideC = 2, n*n }), "C", ur.ErrInvalidSize},
				{"pointer batch of unequal lengths", func() error {
					return e.h.GemmBatched(blas.GemmArgs{Type: f, M: n, N: n, K: n, LDA: n, LDB: n, LDC: n, Alpha: 1},
						[]blas.Operand{A.operand()}, []blas.Operand{B.operand()}, nil)
				}, "bs, cs", ur.ErrInvalidValue},
				{"pointer batch with a nil C", func() error {
					return e.h.GemmBatched(blas.GemmArgs{Type: f, M: n, N: n, K: n, LDA: n, LDB: n, LDC: n, Alpha: 1},
						[]blas.Operand{A.operand(), A.operand()}, []blas.Operand{B.operand(), B.operand()}, []blas.Operand{C.operand(), {}})
				}, "cs[1]", ur.ErrInvalidNullPointer},
				{"pointer batch with operands in GemmArgs", func() error {
					return e.h.GemmBatched(good, []blas.Operand{A.operand()}, []blas.Operand{B.operand()}, []blas.Operand{C.operand()})
				}, "a", ur.ErrInvalidValue},
				{"Gemv with a zero increment", func() error {
					return e.h.Gemv(blas.GemvArgs{Type: f, M: n, N: n, Alpha: 1, A: A.operand(), LDA: n, X: B.operand(), IncX: 0, Y: C.operand(), IncY: 1})
				}, "IncX", ur.ErrInvalidValue},
				{"Gemv with y too short", func() error {
					return e.h.Gemv(blas.GemvArgs{Type: f, M: n, N: n, Alpha: 1, A: A.operand(), LDA: n, X: B.operand(), IncX: 1, Y: blas.OnBuffer(small, 0), IncY: 1})
				}, "Y", ur.ErrInvalidSize},
				{"Nrm2 with a negative increment", func() error { return e.h.Nrm2(f, n, A.operand(), -1, C.operand()) }, "incX", ur.ErrInvalidValue},
				{"Dot without a result", func() error { return e.h.Dot(f, n, A.operand(), 1, B.operand(), 1, blas.Operand{}) }, "result", ur.ErrInvalidNullPointer},
				{"Iamax into two bytes", func() error { return e.h.Iamax(f, n, A.operand(), 1, blas.OnBuffer(small, 0)) }, "result", ur.ErrInvalidSize},
				{"Axpy past y's end", func() error { return e.h.Axpy(f, n*n, 1, A.operand(), 1, C.operand(), 2) }, "y", ur.ErrInvalidSize},
				{"Swap of a negative count", func() error { return e.h.Swap(f, -3, A.operand(), 1, C.operand(), 1) }, "n", ur.ErrInvalidValue},
			}
			if lacking, aspect := lackedType(e.dev); lacking != 0 {
				cases = append(cases, struct {
					name string
					call func() error
					arg  string
					code ur.Result
				}{"a type the device lacks (" + aspect + ")", gemm(func(a *blas.GemmArgs) { a.Type = lacking }), "Type", ur.ErrUnsupportedFeature})
			}
			before := [][]byte{A.bytes(t), B.bytes(t), C.bytes(t), R.bytes(t)}
			for _, c := range cases {
				err := c.call()
				var ae *blas.ArgError
				if !errors.As(err, &ae) {
					t.Errorf("%s: %v, want an *ArgError", c.name, err)
					continue
				}
				if ae.Arg != c.arg || !errors.Is(err, c.code) {
					t.Errorf("%s: %v (argument %q, %v), want argument %q, %v", c.name, err, ae.Arg, ur.ResultOf(err), c.arg, c.code)
				}
				if c.code == ur.ErrUnsupportedFeature && ae.Aspect == "" {
					t.Errorf("%s: %v names no aspect", c.name, err)
				}
			}
			for i, m := range []*dmem{A, B, C, R} {
				if !bytes.Equal(m.bytes(t), before[i]) {
					t.Errorf("operand %d was written by a refused call", i)
				}
			}
		})
	}
}

// TestFreedPointer: an operand in freed USM is refused before anything
// is enqueued, also in a pointer batch whose other matrices are fine.
// The own kernels' launches find it (CLBlast leaves USM to them); cuBLAS
// takes addresses, which ur cannot check, and would fault the context.
func TestFreedPointer(t *testing.T) {
	for _, e := range envs(t) {
		if !e.dev.Info().USM.Device {
			continue
		}
		t.Run(e.name, func(t *testing.T) {
			const n = 8
			f := dtype.Float32
			A, B, C := e.upload(t, f, values(n*n, 1), 0, 0, true), e.upload(t, f, values(n*n, 2), 0, 0, true), e.upload(t, f, values(n*n, 3), 0, 0, true)
			freed := e.upload(t, f, values(n*n, 4), 0, 0, true)
			op := freed.operand()
			freed.usm.Free()
			freed.usm = nil
			before := C.bytes(t)
			a := blas.GemmArgs{Type: f, M: n, N: n, K: n, Alpha: 1, Beta: 1, LDA: n, LDB: n, LDC: n}
			one := a
			one.A, one.B, one.C = op, B.operand(), C.operand()
			if err := e.h.Gemm(one); !errors.Is(err, ur.ErrInvalidMemObject) {
				t.Errorf("Gemm on freed A: %v, want ErrInvalidMemObject", err)
			}
			as := []blas.Operand{A.operand(), op}
			bs := []blas.Operand{B.operand(), B.operand()}
			cs := []blas.Operand{C.operand(), C.operand()}
			if err := e.h.GemmBatched(a, as, bs, cs); !errors.Is(err, ur.ErrInvalidMemObject) {
				t.Errorf("GemmBatched with a freed A: %v, want ErrInvalidMemObject", err)
			}
			if err := e.h.Dot(f, n, A.operand(), 1, B.operand(), 1, op); !errors.Is(err, ur.ErrInvalidMemObject) {
				t.Errorf("Dot into a freed result: %v, want ErrInvalidMemObject", err)
			}
			if !bytes.Equal(C.bytes(t), before) {
				t.Error("C was written by a refused call")
			}
		})
	}
}

// TestNewAndClose: New's errors for backends that cannot serve the
// device, the fallback of Backend "", and calls after Close.
func TestNewAndClose(t *testing.T) {
	for _, e := range envs(t) {
		t.Run(e.name, func(t *testing.T) {
			if _, err := blas.New(e.q, blas.Options{Backend: "mkl"}); !errors.Is(err, ur.ErrInvalidValue) {
				t.Errorf("unknown backend: %v, want ErrInvalidValue", err)
			}
			foreign := blas.BackendCUBLAS
			if e.dev.Backend() == "cuda" {
				foreign = blas.BackendCLBlast
			}
			_, err := blas.New(e.q, blas.Options{Backend: foreign})
			var le *blas.LibraryError
			if !errors.Is(err, blas.ErrLibraryUnavailable) || !errors.As(err, &le) || le.Backend != foreign {
				t.Errorf("%s on a %s device: %v, want a *LibraryError", foreign, e.dev.Backend(), err)
			}
			h, err := blas.New(e.q, blas.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if h.Backend() == "" || h.Queue() != e.q {
				t.Errorf("Backend %q, Queue %p", h.Backend(), h.Queue())
			}
			if err := h.Close(); err != nil {
				t.Fatal(err)
			}
			if err := h.Close(); !errors.Is(err, blas.ErrClosed) {
				t.Errorf("second Close: %v", err)
			}
			if err := h.Scal(dtype.Float32, 1, 2, blas.Operand{}, 1); !errors.Is(err, blas.ErrClosed) {
				t.Errorf("Scal after Close: %v", err)
			}
			if _, err := blas.New(nil, blas.Options{}); !errors.Is(err, ur.ErrInvalidNullHandle) {
				t.Errorf("New(nil): %v", err)
			}
			released, err := e.ctx.NewQueue(e.dev, ur.QueueProperties{})
			if err != nil {
				t.Fatal(err)
			}
			released.Release()
			if _, err := blas.New(released, blas.Options{}); !errors.Is(err, ur.ErrInvalidQueue) {
				t.Errorf("New on a released queue: %v", err)
			}
		})
	}
}

// lackedType is a type the device lacks and its aspect, or 0.
func lackedType(dev *ur.Device) (dtype.Type, string) {
	switch info := dev.Info(); {
	case !info.FP16:
		return dtype.Float16, "fp16"
	case !info.FP64:
		return dtype.Float64, "fp64"
	}
	return 0, ""
}

// otherContextBuffer is a buffer of a second context on dev.
func otherContextBuffer(t *testing.T, dev *ur.Device, size uint64) *ur.Mem {
	t.Helper()
	ctx, err := ur.NewContext(dev)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ctx.NewBuffer(ur.MemReadWrite, size)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		m.Release()
		ctx.Release()
	})
	return m
}
