package blas_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// trsmShapes cover one element, sizes below one diagonal block, and
// sizes of two and three blocks of every tiling's block size (32, 64,
// 128) with a partial last block, both ways round for the sides; pad is
// added to each leading dimension.
var trsmShapes = []struct{ m, n, pad int }{
	{1, 1, 0}, {7, 5, 2}, {70, 33, 1}, {33, 70, 0}, {131, 9, 3}, {6, 140, 0},
}

// triangular is a k×k matrix with leading dimension lda whose uplo
// triangle is well conditioned (a diagonal of 2 to 4 in magnitude, the
// rest small), with NaNs where the solve must not read: the other
// triangle, and the diagonal when it is a unit one.
func triangular(k, lda int, uplo blas.Uplo, diag blas.Diag, seed uint64) []float64 {
	a := values(k*lda, seed)
	for i := range k {
		for j := range lda {
			x := &a[i*lda+j]
			switch {
			case j >= k:
			case i == j && diag == blas.Unit:
				*x = math.NaN()
			case i == j:
				*x = math.Copysign(3+*x/2, *x+0.125)
			case (j > i) != (uplo == blas.Upper):
				*x = math.NaN()
			default:
				*x /= 8
			}
		}
	}
	return a
}

// opTri is op(A)(i, j) as the solve reads it: 1 on a unit diagonal, 0
// outside the triangle.
func opTri(a blas.TrsmArgs, A []float64, i, j int) float64 {
	if a.Trans == blas.Trans {
		i, j = j, i
	}
	switch {
	case i == j && a.Diag == blas.Unit:
		return 1
	case i != j && (j > i) != (a.Uplo == blas.Upper):
		return 0
	}
	return A[i*a.LDA+j]
}

// checkTrsmResidual checks X against op(A)*X = alpha*B (X*op(A) for
// Right) element by element: the residual within tolerance of the
// magnitudes of its terms, k of them, which is what a backward-stable
// solve guarantees whatever order it sums in.
func checkTrsmResidual(t *testing.T, a blas.TrsmArgs, A, B, X []float64) {
	t.Helper()
	k := a.M
	if a.Side == blas.Right {
		k = a.N
	}
	for i := range a.M {
		for j := range a.N {
			var s, abs float64
			for l := range k {
				var p float64
				if a.Side == blas.Left {
					p = opTri(a, A, i, l) * X[l*a.LDB+j]
				} else {
					p = X[i*a.LDB+l] * opTri(a, A, l, j)
				}
				s += p
				abs += math.Abs(p)
			}
			want := a.Alpha * B[i*a.LDB+j]
			if r := math.Abs(s - want); !(r <= tolerance(a.Type)*float64(k+2)*(abs+math.Abs(want))+1e-30) {
				t.Fatalf("%s: X[%d,%d] = %v: residual %v of op(A)X - alpha*B (%v), terms of magnitude %v",
					trsmName(a), i, j, X[i*a.LDB+j], r, want, abs)
			}
		}
	}
}

func trsmName(a blas.TrsmArgs) string {
	return fmt.Sprintf("%s %v%v%v%v M=%d N=%d lda=%d ldb=%d alpha=%v", a.Type, a.Side, a.Uplo, a.Trans, a.Diag, a.M, a.N, a.LDA, a.LDB, a.Alpha)
}

// TestTrsm solves with every side, triangle, transpose and diagonal,
// the shapes of trsmShapes, a few alphas, on buffers, USM and both, and
// checks each solution's residual, that the triangle's other half and a
// unit diagonal (NaNs) were not read, and that B's padding is untouched.
func TestTrsm(t *testing.T) {
	for _, e := range envs(t) {
		for _, ty := range []dtype.Type{dtype.Float32, dtype.Float64} {
			t.Run(e.name+"/"+ty.String(), func(t *testing.T) {
				e.skipType(t, ty)
				i, before := 0, e.h.Fallbacks()
				for _, sh := range trsmShapes {
					for _, side := range []blas.Side{blas.Left, blas.Right} {
						for _, uplo := range []blas.Uplo{blas.Upper, blas.Lower} {
							for _, tr := range []blas.Transpose{blas.NoTrans, blas.Trans} {
								for _, diag := range []blas.Diag{blas.NonUnit, blas.Unit} {
									alpha := []float64{1, -0.5, 2.5}[i%3]
									a := blas.TrsmArgs{Type: ty, Side: side, Uplo: uplo, Trans: tr, Diag: diag, M: sh.m, N: sh.n, Alpha: alpha}
									checkTrsm(t, e, a, sh.pad, kinds[i%len(kinds)], uint64(i))
									i++
								}
							}
						}
					}
				}
				e.checkServed(t, ty, i, before)
			})
		}
	}
}

// checkTrsm runs one solve with leading dimensions pad above the
// columns, A and B of the kinds k[0] and k[1], and checks it.
func checkTrsm(t *testing.T, e *env, a blas.TrsmArgs, pad int, k operandKinds, seed uint64) {
	t.Helper()
	n := a.M
	if a.Side == blas.Right {
		n = a.N
	}
	a.LDA, a.LDB = n+pad, a.N+pad
	A := triangular(n, a.LDA, a.Uplo, a.Diag, seed)
	B := values(a.M*a.LDB, seed+1)
	da, db := e.upload(t, a.Type, A, 1, 0, k[0]), e.upload(t, a.Type, B, 2, 0, k[1])
	a.A, a.B = da.operand(), db.operand()
	if err := e.h.Trsm(a); err != nil {
		t.Fatalf("%s: %v", trsmName(a), err)
	}
	X := db.read(t)
	for i := range a.M {
		for j := a.N; j < a.LDB; j++ {
			if x := i*a.LDB + j; X[x] != B[x] {
				t.Fatalf("%s: padding B[%d,%d] = %v, was %v", trsmName(a), i, j, X[x], B[x])
			}
		}
	}
	checkTrsmResidual(t, a, A, B, X)
}

// TestTrsmAlphaZero: alpha 0 sets B to zero, NaNs included, without
// reading A (here nil).
func TestTrsmAlphaZero(t *testing.T) {
	for _, e := range envs(t) {
		t.Run(e.name, func(t *testing.T) {
			const m, n, ldb = 5, 3, 4
			B := values(m*ldb, 9)
			for i := range B {
				if i%ldb < n && i%2 == 0 {
					B[i] = math.NaN()
				}
			}
			db := e.upload(t, dtype.Float32, B, 0, 0, false)
			a := blas.TrsmArgs{Type: dtype.Float32, Side: blas.Right, Uplo: blas.Lower, M: m, N: n, LDA: n, B: db.operand(), LDB: ldb}
			if err := e.h.Trsm(a); err != nil {
				t.Fatal(err)
			}
			for i, x := range db.read(t) {
				want := B[i] // the padding, untouched
				if i%ldb < n {
					want = 0
				}
				if x != want {
					t.Fatalf("B[%d] = %v, want %v", i, x, want)
				}
			}
		})
	}
}

// TestTrsmBadInput: each refused solve is an *ArgError naming the
// argument, and leaves B as it was.
func TestTrsmBadInput(t *testing.T) {
	for _, e := range envs(t) {
		t.Run(e.name, func(t *testing.T) {
			const n = 8
			f := dtype.Float32
			A, B := e.upload(t, f, values(n*n, 1), 0, 0, false), e.upload(t, f, values(n*n, 2), 0, 0, false)
			small, err := e.ctx.NewBuffer(ur.MemReadWrite, 8)
			if err != nil {
				t.Fatal(err)
			}
			defer small.Release()
			good := blas.TrsmArgs{Type: f, Side: blas.Left, Uplo: blas.Lower, M: n, N: n, Alpha: 1, A: A.operand(), B: B.operand(), LDA: n, LDB: n}
			cases := []struct {
				name string
				edit func(a *blas.TrsmArgs)
				arg  string
				code ur.Result
			}{
				{"half precision", func(a *blas.TrsmArgs) { a.Type = dtype.BFloat16 }, "Type", ur.ErrInvalidValue},
				{"unknown side", func(a *blas.TrsmArgs) { a.Side = 2 }, "Side", ur.ErrInvalidValue},
				{"unknown triangle", func(a *blas.TrsmArgs) { a.Uplo = -1 }, "Uplo", ur.ErrInvalidValue},
				{"unknown transpose", func(a *blas.TrsmArgs) { a.Trans = 3 }, "Trans", ur.ErrInvalidValue},
				{"unknown diagonal", func(a *blas.TrsmArgs) { a.Diag = 2 }, "Diag", ur.ErrInvalidValue},
				{"negative N", func(a *blas.TrsmArgs) { a.N = -1 }, "N", ur.ErrInvalidValue},
				{"LDA below M, side Left", func(a *blas.TrsmArgs) { a.N, a.LDB, a.LDA = 2, 2, n-1 }, "LDA", ur.ErrInvalidValue},
				{"LDA below N, side Right", func(a *blas.TrsmArgs) { a.Side, a.M, a.LDA = blas.Right, 2, n-1 }, "LDA", ur.ErrInvalidValue},
				{"LDB below N", func(a *blas.TrsmArgs) { a.LDB = n - 1 }, "LDB", ur.ErrInvalidValue},
				{"nil A", func(a *blas.TrsmArgs) { a.A = blas.Operand{} }, "A", ur.ErrInvalidNullPointer},
				{"A too small", func(a *blas.TrsmArgs) { a.A = blas.OnBuffer(small, 0) }, "A", ur.ErrInvalidSize},
				{"B past its buffer's end", func(a *blas.TrsmArgs) { a.B = a.B.Add(4) }, "B", ur.ErrInvalidSize},
			}
			before := B.bytes(t)
			for _, c := range cases {
				a := good
				c.edit(&a)
				err := e.h.Trsm(a)
				var ae *blas.ArgError
				if !errors.As(err, &ae) {
					t.Errorf("%s: %v, want an *ArgError", c.name, err)
					continue
				}
				if ae.Arg != c.arg || !errors.Is(err, c.code) || ae.Op != "blas.Trsm" {
					t.Errorf("%s: %v (argument %q, %v), want argument %q, %v", c.name, err, ae.Arg, ur.ResultOf(err), c.arg, c.code)
				}
			}
			if !bytes.Equal(B.bytes(t), before) {
				t.Error("B was written by a refused call")
			}
		})
	}
}
