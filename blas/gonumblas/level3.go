package gonumblas

import (
	"math"

	"gonum.org/v1/gonum/blas"
)

// Each routine below first has gonum check its arguments, so that bad
// ones panic exactly as in gonum (same message, same order of checks):
// for Dgemm, Dsymm, Dsyrk and Dsyr2k by calling gonum's routine with
// alpha 0 and beta 1, which checks everything and then returns without
// computing (Dsyrk and Dsyr2k multiply C's triangle by 1); Dtrmm has no
// such call, nor has Dtrsm, and checkTri repeats gonum's checks. Calls without work
// for the device (an empty or zero product) are gonum's too, which gives
// its exact results for them (C = beta*C, NaNs in A and B ignored).

type (
	gemmFunc[T float]  func(tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)
	symmFunc[T float]  func(s blas.Side, ul blas.Uplo, m, n int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)
	syrkFunc[T float]  func(ul blas.Uplo, tA blas.Transpose, n, k int, alpha T, a []T, lda int, beta T, c []T, ldc int)
	syr2kFunc[T float] func(ul blas.Uplo, tA blas.Transpose, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)
	trmmFunc[T float]  func(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha T, a []T, lda int, b []T, ldb int)
	trsmFunc[T float]  = trmmFunc[T]
)

// product is the number of multiply-adds of an m×k by k×n product, the
// size the Level 3 threshold compares; negative when a dimension is (for
// gonum to panic), and saturated.
func product(m, n, k int) int {
	if m < 0 || n < 0 || k < 0 {
		return -1
	}
	if p := float64(m) * float64(n) * float64(k); p < math.MaxInt/2 {
		return m * n * k
	}
	return math.MaxInt / 2
}

// Dgemm computes C = alpha * op(A) * op(B) + beta * C, as gonum's, on
// the device from Options.Level3Threshold on.
func (impl *Implementation) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	gemm(impl, "Dgemm", impl.Implementation.Dgemm, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Sgemm is Dgemm in float32.
func (impl *Implementation) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	gemm(impl, "Sgemm", impl.Implementation.Sgemm, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func gemm[T float](impl *Implementation, routine string, native gemmFunc[T], tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if !offload[T](impl, impl.opts.Level3Threshold, product(m, n, k)) {
		native(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	native(tA, tB, m, n, k, 0, a, lda, b, ldb, 1, c, ldc) // gonum's checks
	if m == 0 || n == 0 || k == 0 || alpha == 0 || tooLarge(m, n, k, lda, ldb, ldc) {
		impl.onHost()
		native(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	ra, ca := stored(tA, m, k)
	rb, cb := stored(tB, k, n)
	j := &job[T]{
		out:   output[T]{data: c, rows: m, cols: n, ld: ldc},
		steps: []step{{tA: tA, tB: tB, m: m, n: n, k: k, alpha: float64(alpha), beta: float64(beta), a: slotA, b: slotB}},
	}
	j.in[slotA] = matrix(a, ra, ca, lda)
	j.in[slotB] = matrix(b, rb, cb, ldb)
	if beta != 0 {
		j.in[slotC] = matrix(c, m, n, ldc)
	}
	if !run(impl, routine, j) {
		native(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
}

// stored is the shape of a matrix that is r×c after the transposition t.
func stored(t blas.Transpose, r, c int) (int, int) {
	if t == blas.NoTrans {
		return r, c
	}
	return c, r
}

// Dsymm computes C = alpha * A * B + beta * C (side Left) or C = alpha *
// B * A + beta * C (side Right) with A symmetric, as gonum's. On the
// device it is a general product: A's stored triangle is mirrored into
// a full matrix as it is copied to the device.
func (impl *Implementation) Dsymm(s blas.Side, ul blas.Uplo, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	symm(impl, "Dsymm", impl.Implementation.Dsymm, s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Ssymm is Dsymm in float32.
func (impl *Implementation) Ssymm(s blas.Side, ul blas.Uplo, m, n int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	symm(impl, "Ssymm", impl.Implementation.Ssymm, s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
}

func symm[T float](impl *Implementation, routine string, native symmFunc[T], s blas.Side, ul blas.Uplo, m, n int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	k := n
	if s == blas.Left {
		k = m
	}
	if !offload[T](impl, impl.opts.Level3Threshold, product(m, n, k)) {
		native(s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	native(s, ul, m, n, 0, a, lda, b, ldb, 1, c, ldc) // gonum's checks
	if m == 0 || n == 0 || alpha == 0 || tooLarge(m, n, lda, ldb, ldc) {
		impl.onHost()
		native(s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	sym := matrix(a, k, k, lda)
	sym.form = symLower
	if ul == blas.Upper {
		sym.form = symUpper
	}
	j := &job[T]{out: output[T]{data: c, rows: m, cols: n, ld: ldc}}
	j.in[slotA] = sym
	j.in[slotB] = matrix(b, m, n, ldb)
	if beta != 0 {
		j.in[slotC] = matrix(c, m, n, ldc)
	}
	st := step{tA: blas.NoTrans, tB: blas.NoTrans, m: m, n: n, k: k, alpha: float64(alpha), beta: float64(beta), a: slotA, b: slotB}
	if s == blas.Right {
		st.a, st.b = slotB, slotA
	}
	j.steps = []step{st}
	if !run(impl, routine, j) {
		native(s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
	}
}

// Dsyrk computes the ul triangle of C = alpha * A * Aᵀ + beta * C (or
// alpha * Aᵀ * A + beta * C), as gonum's. On the device it is a general
// product computing all of C, of which only the ul triangle is copied
// back: twice the arithmetic of a rank-k update, which costs little
// where the copies take most of the call's time.
func (impl *Implementation) Dsyrk(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	syrk(impl, "Dsyrk", impl.Implementation.Dsyrk, ul, tA, n, k, alpha, a, lda, beta, c, ldc)
}

// Ssyrk is Dsyrk in float32.
func (impl *Implementation) Ssyrk(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float32, a []float32, lda int, beta float32, c []float32, ldc int) {
	syrk(impl, "Ssyrk", impl.Implementation.Ssyrk, ul, tA, n, k, alpha, a, lda, beta, c, ldc)
}

func syrk[T float](impl *Implementation, routine string, native syrkFunc[T], ul blas.Uplo, tA blas.Transpose, n, k int, alpha T, a []T, lda int, beta T, c []T, ldc int) {
	if !offload[T](impl, impl.opts.Level3Threshold, product(n, n, k)) {
		native(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	native(ul, tA, n, k, 0, a, lda, 1, c, ldc) // gonum's checks
	if n == 0 || k == 0 || alpha == 0 || tooLarge(n, k, lda, ldc) {
		impl.onHost()
		native(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	j := &job[T]{out: triangle(c, n, ldc, ul)}
	st := step{m: n, n: n, k: k, alpha: float64(alpha), beta: float64(beta), a: slotA, b: slotA}
	if tA == blas.NoTrans {
		j.in[slotA] = matrix(a, n, k, lda) // C = A * Aᵀ
		st.tA, st.tB = blas.NoTrans, blas.Trans
	} else {
		j.in[slotA] = matrix(a, k, n, lda) // C = Aᵀ * A
		st.tA, st.tB = blas.Trans, blas.NoTrans
	}
	if beta != 0 {
		j.in[slotC] = matrix(c, n, n, ldc)
	}
	j.steps = []step{st}
	if !run(impl, routine, j) {
		native(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
	}
}

// triangle is the output of the ul triangle of the n×n matrix c.
func triangle[T float](c []T, n, ldc int, ul blas.Uplo) output[T] {
	f := triLower
	if ul == blas.Upper {
		f = triUpper
	}
	return output[T]{data: c, rows: n, cols: n, ld: ldc, form: f}
}

// Dsyr2k computes the ul triangle of C = alpha * A * Bᵀ + alpha * B * Aᵀ +
// beta * C (or alpha * Aᵀ * B + alpha * Bᵀ * A + beta * C), as gonum's. On
// the device it is two general products into all of C, of which only the
// ul triangle is copied back.
func (impl *Implementation) Dsyr2k(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	syr2k(impl, "Dsyr2k", impl.Implementation.Dsyr2k, ul, tA, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Ssyr2k is Dsyr2k in float32.
func (impl *Implementation) Ssyr2k(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	syr2k(impl, "Ssyr2k", impl.Implementation.Ssyr2k, ul, tA, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func syr2k[T float](impl *Implementation, routine string, native syr2kFunc[T], ul blas.Uplo, tA blas.Transpose, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if !offload[T](impl, impl.opts.Level3Threshold, 2*product(n, n, k)) {
		native(ul, tA, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	native(ul, tA, n, k, 0, a, lda, b, ldb, 1, c, ldc) // gonum's checks
	if n == 0 || k == 0 || alpha == 0 || tooLarge(n, k, lda, ldb, ldc) {
		impl.onHost()
		native(ul, tA, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	j := &job[T]{out: triangle(c, n, ldc, ul)}
	first := step{m: n, n: n, k: k, alpha: float64(alpha), beta: float64(beta), a: slotA, b: slotB}
	if tA == blas.NoTrans {
		j.in[slotA] = matrix(a, n, k, lda) // C = A * Bᵀ + B * Aᵀ
		j.in[slotB] = matrix(b, n, k, ldb)
		first.tA, first.tB = blas.NoTrans, blas.Trans
	} else {
		j.in[slotA] = matrix(a, k, n, lda) // C = Aᵀ * B + Bᵀ * A
		j.in[slotB] = matrix(b, k, n, ldb)
		first.tA, first.tB = blas.Trans, blas.NoTrans
	}
	if beta != 0 {
		j.in[slotC] = matrix(c, n, n, ldc)
	}
	second := first
	second.a, second.b, second.beta = slotB, slotA, 1
	j.steps = []step{first, second}
	if !run(impl, routine, j) {
		native(ul, tA, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
}

// Dtrmm computes B = alpha * op(A) * B (side Left) or B = alpha * B *
// op(A) (side Right) with A triangular, as gonum's. On the device it is
// a general product: A's stored triangle is copied with zeros in the
// other one (and ones on the diagonal for a unit A). Infinities or NaNs
// in B then meet those zeros, so where B has them the device's result
// may have NaNs where gonum's, which skips the zeros, has not.
func (impl *Implementation) Dtrmm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	trmm(impl, "Dtrmm", impl.Implementation.Dtrmm, s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
}

// Strmm is Dtrmm in float32.
func (impl *Implementation) Strmm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float32, a []float32, lda int, b []float32, ldb int) {
	trmm(impl, "Strmm", impl.Implementation.Strmm, s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
}

func trmm[T float](impl *Implementation, routine string, native trmmFunc[T], s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha T, a []T, lda int, b []T, ldb int) {
	k := triOrder(s, m, n)
	if !triOffload(impl, product(m, n, k), s, ul, tA, d, m, n, alpha, len(a), lda, len(b), ldb) {
		native(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		return
	}
	tri := matrix(a, k, k, lda)
	switch {
	case ul == blas.Upper && d == blas.Unit:
		tri.form = triUpperUnit
	case ul == blas.Upper:
		tri.form = triUpper
	case d == blas.Unit:
		tri.form = triLowerUnit
	default:
		tri.form = triLower
	}
	j := &job[T]{out: output[T]{data: b, rows: m, cols: n, ld: ldb}}
	j.in[slotA] = tri
	j.in[slotB] = matrix(b, m, n, ldb)
	st := step{tA: tA, tB: blas.NoTrans, m: m, n: n, k: k, alpha: float64(alpha), a: slotA, b: slotB}
	if s == blas.Right {
		st.tA, st.tB, st.a, st.b = blas.NoTrans, tA, slotB, slotA
	}
	j.steps = []step{st}
	if !run(impl, routine, j) {
		native(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
	}
}

// Dtrsm solves op(A) * X = alpha * B (side Left) or X * op(A) = alpha *
// B (side Right) for X, which overwrites B, with A triangular, as
// gonum's. On the device it is the device BLAS's Trsm (cuBLAS's,
// CLBlast's, or the own kernels' blocked solve), whose arithmetic for
// many right-hand sides is mostly general products: the solves of
// lapack's Dgetrs and Dpotrs, and so of mat.Dense.Solve and
// mat.Cholesky.SolveTo, which gonum computes row by row on one core.
// Its size for the threshold is its multiply-adds, m·n·k/2.
func (impl *Implementation) Dtrsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	trsm(impl, "Dtrsm", impl.Implementation.Dtrsm, s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
}

// Strsm is Dtrsm in float32.
func (impl *Implementation) Strsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float32, a []float32, lda int, b []float32, ldb int) {
	trsm(impl, "Strsm", impl.Implementation.Strsm, s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
}

func trsm[T float](impl *Implementation, routine string, native trsmFunc[T], s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha T, a []T, lda int, b []T, ldb int) {
	k := triOrder(s, m, n)
	size := product(m, n, k)
	if size > 0 {
		size /= 2
	}
	if !triOffload(impl, size, s, ul, tA, d, m, n, alpha, len(a), lda, len(b), ldb) {
		native(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		return
	}
	// A goes as stored: the solve reads its ul triangle only, and not
	// its diagonal when d is Unit.
	j := &job[T]{out: output[T]{data: b, rows: m, cols: n, ld: ldb}}
	j.in[slotA] = matrix(a, k, k, lda)
	j.in[slotC] = matrix(b, m, n, ldb)
	j.steps = []step{{solve: true, side: s, uplo: ul, diag: d, tA: tA, m: m, n: n, alpha: float64(alpha), a: slotA}}
	if !run(impl, routine, j) {
		native(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
	}
}

// triOrder is the order of a triangular routine's A: m for side Left, n
// for Right.
func triOrder(s blas.Side, m, n int) int {
	if s == blas.Left {
		return m
	}
	return n
}

// triOffload reports whether a triangular routine (Dtrmm, Dtrsm) of
// size (its multiply-adds, for the Level 3 threshold) goes to the device;
// false leaves it to gonum. Above the threshold it first repeats gonum's
// checks (checkTri, panicking as gonum does), and counts a call without
// work for the device, or too large for it, as the host's.
func triOffload[T float](impl *Implementation, size int, s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha T, lenA, lda, lenB, ldb int) bool {
	if !offload[T](impl, impl.opts.Level3Threshold, size) {
		return false
	}
	checkTri(s, ul, tA, d, m, n, lenA, lda, lenB, ldb)
	if m == 0 || n == 0 || alpha == 0 || tooLarge(m, n, lda, ldb) {
		impl.onHost()
		return false
	}
	return true
}
