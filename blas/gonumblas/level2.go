package gonumblas

import "gonum.org/v1/gonum/blas"

type gemvFunc[T float] func(tA blas.Transpose, m, n int, alpha T, a []T, lda int, x []T, incX int, beta T, y []T, incY int)

// Dgemv computes y = alpha * op(A) * x + beta * y, as gonum's, on the
// device when A has at least Options.Level2Threshold elements.
func (impl *Implementation) Dgemv(tA blas.Transpose, m, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	gemv(impl, "Dgemv", impl.Implementation.Dgemv, tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
}

// Sgemv is Dgemv in float32.
func (impl *Implementation) Sgemv(tA blas.Transpose, m, n int, alpha float32, a []float32, lda int, x []float32, incX int, beta float32, y []float32, incY int) {
	gemv(impl, "Sgemv", impl.Implementation.Sgemv, tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
}

func gemv[T float](impl *Implementation, routine string, native gemvFunc[T], tA blas.Transpose, m, n int, alpha T, a []T, lda int, x []T, incX int, beta T, y []T, incY int) {
	size := product(m, n, 1)
	if !offload[T](impl, impl.opts.Level2Threshold, size) {
		native(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	native(tA, m, n, 0, a, lda, x, incX, 1, y, incY) // gonum's checks
	if m == 0 || n == 0 || alpha == 0 || tooLarge(m, n, lda) {
		impl.onHost()
		native(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	lenX, lenY := n, m
	if tA != blas.NoTrans {
		lenX, lenY = m, n
	}
	// The vectors are gathered to unit increment as they are copied.
	j := &job[T]{
		out:   output[T]{data: y, rows: lenY, cols: 1, ld: incY, form: vector},
		steps: []step{{gemv: true, tA: tA, m: m, n: n, alpha: float64(alpha), beta: float64(beta), a: slotA, b: slotB}},
	}
	j.in[slotA] = matrix(a, m, n, lda)
	j.in[slotB] = vec(x, lenX, incX)
	if beta != 0 {
		j.in[slotC] = vec(y, lenY, incY)
	}
	if !run(impl, routine, j) {
		native(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
	}
}
