package gonumblas_test

// Benchmarks through gonum's interface, host slices in and out (the
// transfers are in the time): each size on every selected device and
// with gonum's native implementation on this machine's cores
// (GOMAXPROCS). gonum's own DgemmBenchmark does the calls (alpha 3, beta
// 1, so C goes to the device and back).
//
//	go test -run '^$' -bench 'Dgemm/4096' -benchtime 3x ./blas/gonumblas/
//
// -test.benchtime 3x keeps the native 4096 run to a few seconds' worth of
// calls; ONEAPI_DEVICE_SELECTOR picks the devices.

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/testblas"
)

var benchSizes = []int{64, 128, 256, 512, 1024, 2048, 4096}

// benchImpls runs f with gonum's native implementation and with each
// device's Implementation, as sub-benchmarks "native" and the device's
// name.
func benchImpls(b *testing.B, f func(b *testing.B, impl both)) {
	b.Run("native", func(b *testing.B) { f(b, native) })
	for _, d := range devices(b) {
		b.Run(d.name, func(b *testing.B) {
			before := d.impl.Stats()
			f(b, d.impl)
			if s := d.impl.Stats(); s.Fallbacks != before.Fallbacks {
				b.Errorf("%d device calls fell back to gonum", s.Fallbacks-before.Fallbacks)
			}
		})
	}
}

func flops(b *testing.B, ops float64) {
	b.ReportMetric(ops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkDgemm is C = 3*A*B + C, n×n, through gonum's DgemmBenchmark.
func BenchmarkDgemm(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			benchImpls(b, func(b *testing.B, impl both) {
				warm(impl, n)
				testblas.DgemmBenchmark(b, impl, n, n, n, blas.NoTrans, blas.NoTrans)
				flops(b, 2*float64(n)*float64(n)*float64(n))
			})
		})
	}
}

// warm makes one call of the benchmark's size outside the timing: the
// device's kernels are built and its scratch memory allocated.
func warm(impl both, n int) {
	x := make([]float64, n*n)
	impl.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, x, n, x, n, 0, make([]float64, n*n), n)
}

// BenchmarkSgemm is BenchmarkDgemm in float32.
func BenchmarkSgemm(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			benchImpls(b, func(b *testing.B, impl both) {
				rnd := rand.New(rand.NewPCG(1, 1))
				a, _ := randMat[float32](rnd, n, n, 0)
				bm, _ := randMat[float32](rnd, n, n, 0)
				c, _ := randMat[float32](rnd, n, n, 0)
				impl.Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 3, a, n, bm, n, 1, c, n)
				b.ResetTimer()
				for range b.N {
					impl.Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 3, a, n, bm, n, 1, c, n)
				}
				flops(b, 2*float64(n)*float64(n)*float64(n))
			})
		})
	}
}

// BenchmarkDgemv is y = A*x + y, n×n, through gonum's DgemvBenchmark:
// where Level 2 gains from the device, if anywhere.
func BenchmarkDgemv(b *testing.B) {
	for _, n := range []int{256, 1024, 4096, 8192} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			benchImpls(b, func(b *testing.B, impl both) {
				testblas.DgemvBenchmark(b, impl, blas.NoTrans, n, n, 1, 1)
				flops(b, 2*float64(n)*float64(n))
			})
		})
	}
}
