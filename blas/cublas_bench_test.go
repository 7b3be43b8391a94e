package blas_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// cuRandomFill writes count uniform values in [-0.5, 0.5) of ty from p:
// the GPU's power, and so its clock, depends on the data, and PyTorch's
// side multiplies random matrices.
func cuRandomFill(tb testing.TB, e *env, p ur.Ptr, ty dtype.Type, count int) {
	tb.Helper()
	const chunk = 1 << 20
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, chunk)
	for done := 0; done < count; done += chunk {
		k := min(chunk, count-done)
		for i := range k {
			xs[i] = r.Float64() - 0.5
		}
		if err := e.q.CopyToPtr(p.Add(uint64(done*ty.Size())), encode(ty, xs[:k])); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkCUBLASGemmThroughput is C = A·B for square matrices of every
// type through cuBLAS, and float32 through the own kernels on the same
// CUDA device, in TFLOP/s (2n³ per product; the queue is drained once per
// 10 products).
func BenchmarkCUBLASGemmThroughput(b *testing.B) {
	e := cublasEnv(b)
	for _, n := range []int{4096, 8192} {
		for _, c := range []struct {
			backend blas.Backend
			ty      dtype.Type
		}{
			{blas.BackendCUBLAS, dtype.Float32}, {blas.BackendCUBLAS, dtype.Float64},
			{blas.BackendCUBLAS, dtype.Float16}, {blas.BackendCUBLAS, dtype.BFloat16},
			{blas.BackendGour, dtype.Float32},
		} {
			b.Run(fmt.Sprintf("%s/%v/%d", c.backend, c.ty, n), func(b *testing.B) {
				h := e.h
				if c.backend != blas.BackendCUBLAS {
					var err error
					if h, err = blas.New(e.q, blas.Options{Backend: c.backend}); err != nil {
						b.Fatal(err)
					}
					defer h.Close()
				}
				size := uint64(n * n * c.ty.Size())
				mem, err := e.ctx.AllocDevice(e.dev, 3*size)
				if err != nil {
					b.Fatal(err)
				}
				defer mem.Free()
				p := mem.Ptr()
				cuRandomFill(b, e, p, c.ty, 3*n*n)
				a := blas.GemmArgs{Type: c.ty, M: n, N: n, K: n, Alpha: 1, A: blas.OnPtr(p), B: blas.OnPtr(p.Add(size)), C: blas.OnPtr(p.Add(2 * size)), LDA: n, LDB: n, LDC: n}
				for range 2 { // warm up
					if err := h.Gemm(a); err != nil {
						b.Fatal(err)
					}
				}
				if err := e.q.Finish(); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := h.Gemm(a); err != nil {
						b.Fatal(err)
					}
					if i%10 == 9 {
						if err := e.q.Finish(); err != nil {
							b.Fatal(err)
						}
					}
				}
				if err := e.q.Finish(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e12, "TFLOP/s")
			})
		}
	}
}
