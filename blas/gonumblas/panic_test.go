package gonumblas_test

// Bad arguments panic exactly as in gonum's native implementation: for
// every offloaded routine, in both precisions, each argument and each
// pair of arguments is replaced by bad (and other valid) values, and the
// Implementation, sending every call with work to the device, must
// panic with gonum's value, or not panic where gonum does not.

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/blas"

	"github.com/gour-dev/gour/blas/gonumblas"
)

type both interface {
	blas.Float64
	blas.Float32
}

// panicCase is a routine's arguments as ints (enumerations, dimensions,
// leading dimensions and increments, slice lengths), a valid base, and
// the values each argument is replaced by.
type panicCase struct {
	name string
	base []int
	alt  [][]int
	call func(impl both, single bool, v []int)
}

func ones64(n int) []float64 {
	s := make([]float64, max(n, 0))
	for i := range s {
		s[i] = 1
	}
	return s
}

func ones32(n int) []float32 {
	s := make([]float32, max(n, 0))
	for i := range s {
		s[i] = 1
	}
	return s
}

const bad = 0 // an invalid enumeration value

var (
	nt = int(blas.NoTrans)
	tr = int(blas.Trans)
	ct = int(blas.ConjTrans)
	up = int(blas.Upper)
	lo = int(blas.Lower)
	lf = int(blas.Left)
	rt = int(blas.Right)
	nu = int(blas.NonUnit)
	un = int(blas.Unit)
)

var panicCases = []panicCase{{
	name: "gemm", // tA, tB, m, n, k, lda, ldb, ldc, len a, b, c
	base: []int{nt, nt, 3, 4, 5, 5, 4, 4, 15, 20, 12},
	alt:  [][]int{{bad, tr, ct}, {bad, tr}, {-1, 0, 6}, {-1, 0}, {-1, 0, 7}, {0, 3, 4}, {0, 3, 5}, {0, 3}, {0, 14}, {0, 19}, {11}},
	call: func(impl both, single bool, v []int) {
		tA, tB := blas.Transpose(v[0]), blas.Transpose(v[1])
		if single {
			impl.Sgemm(tA, tB, v[2], v[3], v[4], 1, ones32(v[8]), v[5], ones32(v[9]), v[6], 0.5, ones32(v[10]), v[7])
		} else {
			impl.Dgemm(tA, tB, v[2], v[3], v[4], 1, ones64(v[8]), v[5], ones64(v[9]), v[6], 0.5, ones64(v[10]), v[7])
		}
	},
}, {
	name: "symm", // side, uplo, m, n, lda, ldb, ldc, len a, b, c
	base: []int{lf, up, 3, 4, 3, 4, 4, 9, 12, 12},
	alt:  [][]int{{bad, rt}, {bad, lo}, {-1, 0, 4}, {-1, 0, 5}, {0, 2, 4}, {0, 3}, {0, 3}, {0, 8}, {0, 11}, {11}},
	call: func(impl both, single bool, v []int) {
		s, ul := blas.Side(v[0]), blas.Uplo(v[1])
		if single {
			impl.Ssymm(s, ul, v[2], v[3], 1, ones32(v[7]), v[4], ones32(v[8]), v[5], 0.5, ones32(v[9]), v[6])
		} else {
			impl.Dsymm(s, ul, v[2], v[3], 1, ones64(v[7]), v[4], ones64(v[8]), v[5], 0.5, ones64(v[9]), v[6])
		}
	},
}, {
	name: "syrk", // uplo, tA, n, k, lda, ldc, len a, c
	base: []int{up, nt, 3, 4, 4, 3, 12, 9},
	alt:  [][]int{{bad, lo}, {bad, tr, ct}, {-1, 0, 4}, {-1, 0, 2}, {0, 3, 5}, {0, 2}, {0, 11}, {8}},
	call: func(impl both, single bool, v []int) {
		ul, tA := blas.Uplo(v[0]), blas.Transpose(v[1])
		if single {
			impl.Ssyrk(ul, tA, v[2], v[3], 1, ones32(v[6]), v[4], 0.5, ones32(v[7]), v[5])
		} else {
			impl.Dsyrk(ul, tA, v[2], v[3], 1, ones64(v[6]), v[4], 0.5, ones64(v[7]), v[5])
		}
	},
}, {
	name: "syr2k", // uplo, tA, n, k, lda, ldb, ldc, len a, b, c
	base: []int{lo, nt, 3, 4, 4, 4, 3, 12, 12, 9},
	alt:  [][]int{{bad, up}, {bad, tr}, {-1, 0, 4}, {-1, 0}, {0, 3}, {0, 3, 5}, {0, 2}, {0, 11}, {0, 11}, {8}},
	call: func(impl both, single bool, v []int) {
		ul, tA := blas.Uplo(v[0]), blas.Transpose(v[1])
		if single {
			impl.Ssyr2k(ul, tA, v[2], v[3], 1, ones32(v[7]), v[4], ones32(v[8]), v[5], 0.5, ones32(v[9]), v[6])
		} else {
			impl.Dsyr2k(ul, tA, v[2], v[3], 1, ones64(v[7]), v[4], ones64(v[8]), v[5], 0.5, ones64(v[9]), v[6])
		}
	},
}, {
	name: "trmm", // side, uplo, tA, diag, m, n, lda, ldb, len a, b
	base: []int{lf, up, nt, nu, 3, 4, 3, 4, 9, 12},
	alt:  [][]int{{bad, rt}, {bad, lo}, {bad, tr, ct}, {bad, un}, {-1, 0, 4}, {-1, 0, 5}, {0, 2, 4}, {0, 3}, {0, 8}, {0, 11}},
	call: func(impl both, single bool, v []int) {
		s, ul, tA, d := blas.Side(v[0]), blas.Uplo(v[1]), blas.Transpose(v[2]), blas.Diag(v[3])
		if single {
			impl.Strmm(s, ul, tA, d, v[4], v[5], 1, ones32(v[8]), v[6], ones32(v[9]), v[7])
		} else {
			impl.Dtrmm(s, ul, tA, d, v[4], v[5], 1, ones64(v[8]), v[6], ones64(v[9]), v[7])
		}
	},
}, {
	name: "trsm", // side, uplo, tA, diag, m, n, lda, ldb, len a, b
	base: []int{rt, lo, tr, un, 3, 4, 4, 5, 16, 15},
	alt:  [][]int{{bad, lf}, {bad, up}, {bad, nt, ct}, {bad, nu}, {-1, 0, 4}, {-1, 0, 5}, {0, 3, 5}, {0, 3}, {0, 15}, {0, 14}},
	call: func(impl both, single bool, v []int) {
		s, ul, tA, d := blas.Side(v[0]), blas.Uplo(v[1]), blas.Transpose(v[2]), blas.Diag(v[3])
		// A's diagonal is 2, so a solve that is made is a finite one.
		if single {
			a := ones32(v[8])
			for i := range a {
				a[i] = 2
			}
			impl.Strsm(s, ul, tA, d, v[4], v[5], 1, a, v[6], ones32(v[9]), v[7])
		} else {
			a := ones64(v[8])
			for i := range a {
				a[i] = 2
			}
			impl.Dtrsm(s, ul, tA, d, v[4], v[5], 1, a, v[6], ones64(v[9]), v[7])
		}
	},
}, {
	name: "gemv", // tA, m, n, lda, incX, incY, len a, x, y
	base: []int{nt, 3, 4, 4, 1, 1, 12, 4, 3},
	alt:  [][]int{{bad, tr}, {-1, 0, 4}, {-1, 0}, {0, 3, 5}, {0, -1, 2}, {0, -1, 2}, {0, 11}, {0, 3}, {0, 2}},
	call: func(impl both, single bool, v []int) {
		tA := blas.Transpose(v[0])
		if single {
			impl.Sgemv(tA, v[1], v[2], 1, ones32(v[6]), v[3], ones32(v[7]), v[4], 0.5, ones32(v[8]), v[5])
		} else {
			impl.Dgemv(tA, v[1], v[2], 1, ones64(v[6]), v[3], ones64(v[7]), v[4], 0.5, ones64(v[8]), v[5])
		}
	},
}}

// panicValue calls f and returns what it panicked with, nil if nothing.
func panicValue(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

func TestPanicsAsGonum(t *testing.T) {
	onDevices(t, f32, func(t *testing.T, impl *gonumblas.Implementation) {
		for _, pc := range panicCases {
			for _, single := range []bool{true, false} {
				name := pc.name
				if single {
					name = "s" + name
				} else {
					name = "d" + name
				}
				t.Run(name, func(t *testing.T) {
					n, panics := 0, 0
					check := func(v []int) {
						n++
						want := panicValue(func() { pc.call(native, single, v) })
						got := panicValue(func() { pc.call(impl, single, v) })
						if want != nil {
							panics++
						}
						if fmt.Sprint(got) != fmt.Sprint(want) {
							t.Errorf("arguments %v: panic %v, want %v (gonum's)", v, got, want)
						}
					}
					// Each argument, then each pair, replaced: a pair
					// checks that the checks come in gonum's order.
					for i := range pc.base {
						for _, x := range pc.alt[i] {
							v := append([]int(nil), pc.base...)
							v[i] = x
							check(v)
							for j := i + 1; j < len(pc.base); j++ {
								for _, y := range pc.alt[j] {
									w := append([]int(nil), v...)
									w[j] = y
									check(w)
								}
							}
						}
					}
					if panics == 0 || panics == n {
						t.Errorf("%d of %d calls panic in gonum: the cases check nothing", panics, n)
					}
				})
			}
		}
	})
}
