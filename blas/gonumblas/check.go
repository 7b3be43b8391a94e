package gonumblas

import "gonum.org/v1/gonum/blas"

// gonum's panic messages (gonum.org/v1/gonum/blas/gonum's errors.go),
// for the checks this package cannot leave to a call of gonum's routine.
const (
	mLT0         = "blas: m < 0"
	nLT0         = "blas: n < 0"
	badUplo      = "blas: illegal triangle"
	badTranspose = "blas: illegal transpose"
	badDiag      = "blas: illegal diagonal"
	badSide      = "blas: illegal side"
	badLdA       = "blas: bad leading dimension of A"
	badLdB       = "blas: bad leading dimension of B"
	shortA       = "blas: insufficient length of a"
	shortB       = "blas: insufficient length of b"
)

// checkTri is gonum's argument check of Dtrmm and Dtrsm (and Strmm and
// Strsm), which are the same, in gonum's order: gonum's routines have no
// argument values that check without writing B.
func checkTri(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n, lenA, lda, lenB, ldb int) {
	if s != blas.Left && s != blas.Right {
		panic(badSide)
	}
	if ul != blas.Lower && ul != blas.Upper {
		panic(badUplo)
	}
	if tA != blas.NoTrans && tA != blas.Trans && tA != blas.ConjTrans {
		panic(badTranspose)
	}
	if d != blas.NonUnit && d != blas.Unit {
		panic(badDiag)
	}
	if m < 0 {
		panic(mLT0)
	}
	if n < 0 {
		panic(nLT0)
	}
	k := n
	if s == blas.Left {
		k = m
	}
	if lda < max(1, k) {
		panic(badLdA)
	}
	if ldb < max(1, n) {
		panic(badLdB)
	}
	if m == 0 || n == 0 {
		return
	}
	if lenA < lda*(k-1)+k {
		panic(shortA)
	}
	if lenB < ldb*(m-1)+n {
		panic(shortB)
	}
}
