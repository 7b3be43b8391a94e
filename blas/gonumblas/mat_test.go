package gonumblas_test

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/gour-dev/gour/blas/gonumblas"
)

// gonum/mat and its LAPACK on the device, through blas64.Use, as a user
// runs them: products of views (leading dimensions above the column
// count), a symmetric rank-k update, triangular products, and a
// Cholesky factorisation and QR decomposition whose blocked algorithms
// call Dgemm, Dsyrk, Dtrmm and Dtrsm on submatrices. Each result must
// match the same computation with gonum's native implementation.
func TestGonumMat(t *testing.T) {
	onDevices(t, f64, func(t *testing.T, impl *gonumblas.Implementation) {
		rnd := rand.New(rand.NewPCG(7, 8))
		const n = 150 // above the blocked algorithms' crossovers (64)
		random := func(r, c int) *mat.Dense {
			d := mat.NewDense(r, c, nil)
			for i := range r {
				for j := range c {
					d.Set(i, j, 2*rnd.Float64()-1)
				}
			}
			return d
		}
		a, b := random(n, n+7), random(n+7, n)
		var spd mat.SymDense
		spd.SymOuterK(1, a) // a * aᵀ
		for i := range n {
			spd.SetSym(i, i, spd.At(i, i)+n)
		}

		// compute runs every operation with the implementation in use.
		compute := func() []mat.Matrix {
			var out []mat.Matrix
			var p mat.Dense
			p.Mul(a, b)
			out = append(out, &p)
			var v mat.Dense // a view's product: strides above the width
			v.Mul(a.Slice(3, 100, 5, 90), b.Slice(2, 60, 1, 86).T())
			out = append(out, &v)
			var s mat.SymDense
			s.SymOuterK(0.5, b.Slice(0, 80, 0, n))
			out = append(out, &s)
			var ch mat.Cholesky
			if !ch.Factorize(&spd) {
				t.Fatal("Cholesky: the matrix is not positive definite")
			}
			var u mat.TriDense
			ch.UTo(&u)
			out = append(out, &u)
			var tr mat.Dense
			tr.Mul(&u, b.Slice(0, n, 0, n))
			out = append(out, &tr)
			var qr mat.QR
			qr.Factorize(random(n, n-20))
			var r mat.Dense
			qr.RTo(&r)
			out = append(out, &r)
			return out
		}
		rnd = rand.New(rand.NewPCG(9, 10))
		want := compute()
		rnd = rand.New(rand.NewPCG(9, 10))
		before := impl.Stats().Device
		blas64.Use(impl)
		got := compute()
		blas64.Use(gonum.Implementation{})
		if impl.Stats().Device == before {
			t.Fatal("no call reached the device")
		}
		for i := range want {
			if !mat.EqualApprox(got[i], want[i], 1e-10) {
				t.Errorf("result %d differs from gonum's native one", i)
			}
		}
	})
}
