package gonumblas_test

// The offloaded routines against gonum's own, in float32 (testblas has
// no float32 tests) and float64, over what testblas leaves out:
// submatrices (leading dimensions above the column count), whose gaps
// must stay untouched; NaNs where a routine must not read (C with beta
// 0, the triangle a symmetric or triangular A does not use, a unit
// diagonal, the triangle of C that Dsyrk and Dsyr2k do not write);
// vector increments, negative ones included.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/gour-dev/gour/blas/gonumblas"
)

type float interface{ ~float32 | ~float64 }

// sentinel marks the elements a routine must leave alone: the gaps
// between a submatrix's rows.
const sentinel = 1234.5

var native gonum.Implementation

// randMat returns a rows×cols matrix at leading dimension cols+pad,
// random in [-1, 1), its gaps holding sentinel.
func randMat[T float](rnd *rand.Rand, rows, cols, pad int) ([]T, int) {
	ld := max(1, cols+pad)
	a := make([]T, max(0, (rows-1)*ld+cols))
	for i := range a {
		if i%ld < cols {
			a[i] = T(2*rnd.Float64() - 1)
		} else {
			a[i] = sentinel
		}
	}
	return a, ld
}

// spoil writes NaN where the routine must not read: the elements (i, j)
// of the n×n matrix a for which bad holds.
func spoil[T float](a []T, n, lda int, bad func(i, j int) bool) {
	for i := range n {
		for j := range n {
			if bad(i, j) {
				a[i*lda+j] = T(math.NaN())
			}
		}
	}
}

// same fails unless got equals want within a relative tolerance, and
// bit for bit where want is the sentinel, NaN, or beyond k.
func same[T float](t *testing.T, what string, got, want []T, k int) {
	t.Helper()
	tol := 1e-12
	if _, ok := any(got).([]float32); ok {
		tol = 2e-5
	}
	tol *= float64(k + 1)
	bad := 0
	for i := range want {
		g, w := float64(got[i]), float64(want[i])
		if math.IsNaN(w) || w == sentinel || math.IsInf(w, 0) {
			if math.Float64bits(g) != math.Float64bits(w) && !(math.IsNaN(g) && math.IsNaN(w)) {
				bad++
				if bad < 5 {
					t.Errorf("%s: element %d is %v, want %v", what, i, g, w)
				}
			}
			continue
		}
		if math.IsNaN(g) || math.Abs(g-w) > tol*math.Max(1, math.Abs(w)) {
			bad++
			if bad < 5 {
				t.Errorf("%s: element %d is %v, want %v (difference %.3g)", what, i, g, w, g-w)
			}
		}
	}
	if bad >= 5 {
		t.Errorf("%s: %d elements of %d differ", what, bad, len(want))
	}
}

var (
	transposes = []blas.Transpose{blas.NoTrans, blas.Trans, blas.ConjTrans}
	uplos      = []blas.Uplo{blas.Upper, blas.Lower}
	sides      = []blas.Side{blas.Left, blas.Right}
	diags      = []blas.Diag{blas.NonUnit, blas.Unit}
	shapes     = [][3]int{{1, 1, 1}, {3, 5, 2}, {17, 9, 33}, {40, 65, 31}}
	scalars    = [][2]float64{{1, 0}, {-0.5, 1}, {0.75, -1.25}, {0, 0.5}}
	pads       = []int{0, 3}
)

// realBLAS is what the comparisons call of an implementation: gonum's
// routines of one precision.
type realBLAS[T float] struct {
	gemm  func(tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)
	symm  func(s blas.Side, ul blas.Uplo, m, n int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)
	syrk  func(ul blas.Uplo, tA blas.Transpose, n, k int, alpha T, a []T, lda int, beta T, c []T, ldc int)
	syr2k func(ul blas.Uplo, tA blas.Transpose, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)
	trmm  func(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha T, a []T, lda int, b []T, ldb int)
	trsm  func(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha T, a []T, lda int, b []T, ldb int)
	gemv  func(tA blas.Transpose, m, n int, alpha T, a []T, lda int, x []T, incX int, beta T, y []T, incY int)
}

func float64s(impl interface {
	blas.Float64
}) realBLAS[float64] {
	return realBLAS[float64]{impl.Dgemm, impl.Dsymm, impl.Dsyrk, impl.Dsyr2k, impl.Dtrmm, impl.Dtrsm, impl.Dgemv}
}

func float32s(impl interface {
	blas.Float32
}) realBLAS[float32] {
	return realBLAS[float32]{impl.Sgemm, impl.Ssymm, impl.Ssyrk, impl.Ssyr2k, impl.Strmm, impl.Strsm, impl.Sgemv}
}

func TestCompareFloat32(t *testing.T) {
	onDevices(t, f32, func(t *testing.T, impl *gonumblas.Implementation) {
		compare(t, float32s(impl), float32s(native))
	})
}

func TestCompareFloat64(t *testing.T) {
	onDevices(t, f64, func(t *testing.T, impl *gonumblas.Implementation) {
		compare(t, float64s(impl), float64s(native))
	})
}

func compare[T float](t *testing.T, got, want realBLAS[T]) {
	rnd := rand.New(rand.NewPCG(1, 2))
	clone := func(s []T) []T { return append([]T(nil), s...) }
	t.Run("gemm", func(t *testing.T) {
		for _, sh := range shapes {
			m, n, k := sh[0], sh[1], sh[2]
			for _, tA := range transposes {
				for _, tB := range transposes {
					for _, sc := range scalars {
						pad := pads[rnd.IntN(len(pads))]
						ra, ca := stored(tA, m, k)
						rb, cb := stored(tB, k, n)
						a, lda := randMat[T](rnd, ra, ca, pad)
						b, ldb := randMat[T](rnd, rb, cb, pad)
						c, ldc := randMat[T](rnd, m, n, pad)
						alpha, beta := T(sc[0]), T(sc[1])
						if beta == 0 { // C must not be read
							for i := range c {
								if i%ldc < n {
									c[i] = T(math.NaN())
								}
							}
						}
						wc, gc := clone(c), clone(c)
						want.gemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, wc, ldc)
						got.gemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, gc, ldc)
						same(t, fmt.Sprintf("gemm %v%v m=%d n=%d k=%d alpha=%v beta=%v lds=%d,%d,%d", tA, tB, m, n, k, alpha, beta, lda, ldb, ldc), gc, wc, k)
					}
				}
			}
		}
	})
	t.Run("symm", func(t *testing.T) {
		for _, sh := range shapes {
			m, n := sh[0], sh[1]
			for _, s := range sides {
				for _, ul := range uplos {
					for _, sc := range scalars {
						pad := pads[rnd.IntN(len(pads))]
						a, lda, b, ldb, k := sideOperands[T](rnd, s, ul, false, m, n, pad)
						c, ldc := randMat[T](rnd, m, n, pad)
						alpha, beta := T(sc[0]), T(sc[1])
						wc, gc := clone(c), clone(c)
						want.symm(s, ul, m, n, alpha, a, lda, b, ldb, beta, wc, ldc)
						got.symm(s, ul, m, n, alpha, a, lda, b, ldb, beta, gc, ldc)
						same(t, fmt.Sprintf("symm %v %v m=%d n=%d alpha=%v beta=%v", s, ul, m, n, alpha, beta), gc, wc, k)
					}
				}
			}
		}
	})
	t.Run("syrk", func(t *testing.T) {
		for _, sh := range shapes {
			n, k := sh[0], sh[2]
			for _, ul := range uplos {
				for _, tA := range transposes {
					for _, sc := range scalars {
						pad := pads[rnd.IntN(len(pads))]
						ra, ca := stored(tA, n, k)
						a, lda := randMat[T](rnd, ra, ca, pad)
						b, ldb := randMat[T](rnd, ra, ca, pad)
						c, ldc := randMat[T](rnd, n, n, pad)
						spoil(c, n, ldc, unused(ul, false))
						alpha, beta := T(sc[0]), T(sc[1])
						wc, gc := clone(c), clone(c)
						want.syrk(ul, tA, n, k, alpha, a, lda, beta, wc, ldc)
						got.syrk(ul, tA, n, k, alpha, a, lda, beta, gc, ldc)
						same(t, fmt.Sprintf("syrk %v %v n=%d k=%d alpha=%v beta=%v", ul, tA, n, k, alpha, beta), gc, wc, k)
						wc, gc = clone(c), clone(c)
						want.syr2k(ul, tA, n, k, alpha, a, lda, b, ldb, beta, wc, ldc)
						got.syr2k(ul, tA, n, k, alpha, a, lda, b, ldb, beta, gc, ldc)
						same(t, fmt.Sprintf("syr2k %v %v n=%d k=%d alpha=%v beta=%v", ul, tA, n, k, alpha, beta), gc, wc, 2*k)
					}
				}
			}
		}
	})
	t.Run("trmm", func(t *testing.T) {
		for _, sh := range shapes {
			m, n := sh[0], sh[1]
			for _, s := range sides {
				for _, ul := range uplos {
					for _, tA := range transposes {
						for _, d := range diags {
							pad := pads[rnd.IntN(len(pads))]
							a, lda, b, ldb, k := sideOperands[T](rnd, s, ul, d == blas.Unit, m, n, pad)
							alpha := T(scalars[rnd.IntN(len(scalars))][0])
							wb, gb := clone(b), clone(b)
							want.trmm(s, ul, tA, d, m, n, alpha, a, lda, wb, ldb)
							got.trmm(s, ul, tA, d, m, n, alpha, a, lda, gb, ldb)
							same(t, fmt.Sprintf("trmm %v %v %v %v m=%d n=%d alpha=%v", s, ul, tA, d, m, n, alpha), gb, wb, k)
						}
					}
				}
			}
		}
	})
	t.Run("trsm", func(t *testing.T) {
		for _, sh := range append(shapes, [3]int{70, 130, 0}, [3]int{131, 9, 0}) {
			m, n := sh[0], sh[1]
			for _, s := range sides {
				for _, ul := range uplos {
					for _, tA := range transposes {
						for _, d := range diags {
							pad := pads[rnd.IntN(len(pads))]
							a, lda, b, ldb, k := sideOperands[T](rnd, s, ul, d == blas.Unit, m, n, pad)
							conditioned(a, k, lda)
							alpha := T(scalars[rnd.IntN(len(scalars))][0])
							wb, gb := clone(b), clone(b)
							want.trsm(s, ul, tA, d, m, n, alpha, a, lda, wb, ldb)
							got.trsm(s, ul, tA, d, m, n, alpha, a, lda, gb, ldb)
							same(t, fmt.Sprintf("trsm %v %v %v %v m=%d n=%d alpha=%v", s, ul, tA, d, m, n, alpha), gb, wb, k)
						}
					}
				}
			}
		}
	})
	t.Run("gemv", func(t *testing.T) {
		for _, sh := range shapes {
			m, n := sh[0], sh[1]
			for _, tA := range transposes {
				for _, inc := range [][2]int{{1, 1}, {2, -1}, {-3, 2}} {
					for _, sc := range scalars {
						pad := pads[rnd.IntN(len(pads))]
						a, lda := randMat[T](rnd, m, n, pad)
						lenX, lenY := n, m
						if tA != blas.NoTrans {
							lenX, lenY = m, n
						}
						x, _ := randMat[T](rnd, lenX, 1, abs(inc[0])-1)
						y, _ := randMat[T](rnd, lenY, 1, abs(inc[1])-1)
						alpha, beta := T(sc[0]), T(sc[1])
						wy, gy := clone(y), clone(y)
						want.gemv(tA, m, n, alpha, a, lda, x, inc[0], beta, wy, inc[1])
						got.gemv(tA, m, n, alpha, a, lda, x, inc[0], beta, gy, inc[1])
						same(t, fmt.Sprintf("gemv %v m=%d n=%d incs=%v alpha=%v beta=%v", tA, m, n, inc, alpha, beta), gy, wy, max(m, n))
					}
				}
			}
		}
	})
}

// unused says which elements of an n×n symmetric or triangular matrix
// stored in its ul triangle a routine must not read: the other
// triangle, and the diagonal of a unit triangular matrix.
func unused(ul blas.Uplo, unitDiag bool) func(i, j int) bool {
	return func(i, j int) bool {
		if i == j {
			return unitDiag
		}
		return (j > i) != (ul == blas.Upper)
	}
}

// sideOperands is the k×k symmetric or triangular A of a routine with
// side s (k is m on the left, n on the right), its unused elements
// spoiled, and an m×n B, both with row padding pad.
func sideOperands[T float](rnd *rand.Rand, s blas.Side, ul blas.Uplo, unitDiag bool, m, n, pad int) (a []T, lda int, b []T, ldb, k int) {
	k = n
	if s == blas.Left {
		k = m
	}
	a, lda = randMat[T](rnd, k, k, pad)
	spoil(a, k, lda, unused(ul, unitDiag))
	b, ldb = randMat[T](rnd, m, n, pad)
	return a, lda, b, ldb, k
}

// conditioned makes the k×k triangular a well conditioned, so that two
// solves' results differ by rounding only: its off-diagonal elements are
// divided by k, and its diagonal is 1 to 2 in magnitude. NaNs (spoiled
// elements) stay.
func conditioned[T float](a []T, k, lda int) {
	for i := range k {
		for j := range k {
			if x := &a[i*lda+j]; i == j {
				*x = T(math.Copysign(1, float64(*x))) + *x
			} else {
				*x /= T(k)
			}
		}
	}
}

func stored(t blas.Transpose, r, c int) (int, int) {
	if t == blas.NoTrans {
		return r, c
	}
	return c, r
}

func abs(x int) int { return max(x, -x) }
