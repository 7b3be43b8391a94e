package gonumblas

import (
	"runtime"
	"sync"
)

// form says how an operand's device copy is made from what the caller
// stores.
type form int

const (
	plain        form = iota // the matrix as stored
	symUpper                 // symmetric, stored in its upper triangle: both triangles
	symLower                 // symmetric, stored in its lower triangle
	triUpper                 // upper triangular: the lower triangle zero
	triLower                 // lower triangular: the upper triangle zero
	triUpperUnit             // triUpper with a unit diagonal, which is not read
	triLowerUnit             // triLower with a unit diagonal
	vector                   // a vector: rows elements, ld the increment (negative walks backwards)
)

// operand is a matrix or vector as the caller stores it: rows×cols
// elements of data, row i at i*ld; for a vector, rows elements at
// increment ld.
type operand[T float] struct {
	data       []T
	rows, cols int
	ld         int
	form       form
}

func matrix[T float](data []T, rows, cols, ld int) *operand[T] {
	return &operand[T]{data: data, rows: rows, cols: cols, ld: ld}
}

func vec[T float](data []T, n, inc int) *operand[T] {
	return &operand[T]{data: data, rows: n, cols: 1, ld: inc, form: vector}
}

// contiguous returns the operand's elements when its device copy is
// exactly a run of data.
func (o *operand[T]) contiguous() ([]T, bool) {
	switch {
	case o.form == plain && (o.ld == o.cols || o.rows == 1):
		return o.data[:o.rows*o.cols], true
	case o.form == vector && (o.ld == 1 || o.rows == 1):
		return o.data[:o.rows], true
	}
	return nil, false
}

// pack writes rows [r0, r1) of the operand's device copy, rows×cols
// row-major without gaps, into dst, which holds the whole copy.
func (o *operand[T]) pack(dst []T, r0, r1 int) {
	a, lda, n := o.data, o.ld, o.cols
	rows := func(cols int, f func(lo, hi int)) {
		parallel(r1-r0, cols, func(lo, hi int) { f(r0+lo, r0+hi) })
	}
	switch o.form {
	case plain:
		rows(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				copy(dst[i*n:i*n+n], a[i*lda:i*lda+n])
			}
		})
	case vector:
		inc, start := o.ld, 0
		if inc < 0 {
			start = (1 - o.rows) * inc
		}
		for i := r0; i < r1; i++ {
			dst[i] = a[start+i*inc]
		}
	case symUpper, symLower:
		upper := o.form == symUpper
		rows(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d := dst[i*n : i*n+n]
				for j := range n {
					if (j >= i) == upper || i == j {
						d[j] = a[i*lda+j]
					} else {
						d[j] = a[j*lda+i]
					}
				}
			}
		})
	default: // triangular
		upper := o.form == triUpper || o.form == triUpperUnit
		unit := o.form == triUpperUnit || o.form == triLowerUnit
		rows(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d := dst[i*n : i*n+n]
				if upper {
					clear(d[:i])
					copy(d[i+1:], a[i*lda+i+1:i*lda+n])
				} else {
					copy(d[:i], a[i*lda:i*lda+i])
					clear(d[i+1:])
				}
				if unit {
					d[i] = 1
				} else {
					d[i] = a[i*lda+i]
				}
			}
		})
	}
}

// output is where a call's result goes: rows×cols elements of data, row
// i at i*ld, all of them (plain), one triangle (triUpper, triLower), or
// a vector (rows elements at increment ld).
type output[T float] struct {
	data       []T
	rows, cols int
	ld         int
	form       form
}

// unpack writes src, rows×cols row-major without gaps, into the output.
func (o *output[T]) unpack(src []T) {
	c, ldc, n := o.data, o.ld, o.cols
	switch o.form {
	case vector:
		inc, start := o.ld, 0
		if inc < 0 {
			start = (1 - o.rows) * inc
		}
		for i := range o.rows {
			c[start+i*inc] = src[i]
		}
	case triUpper:
		parallel(o.rows, n/2, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				copy(c[i*ldc+i:i*ldc+n], src[i*n+i:i*n+n])
			}
		})
	case triLower:
		parallel(o.rows, n/2, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				copy(c[i*ldc:i*ldc+i+1], src[i*n:i*n+i+1])
			}
		})
	default:
		parallel(o.rows, n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				copy(c[i*ldc:i*ldc+n], src[i*n:i*n+n])
			}
		})
	}
}

// parallel runs f over [0, m) in row ranges, on several goroutines when the
// work (m rows of about cols elements) is large enough to gain from it:
// the copies between the caller's slices and the staging memory run at
// the memory's speed rather than one core's.
func parallel(m, cols int, f func(lo, hi int)) {
	const grain = 1 << 16 // elements per goroutine, at least
	p := min(runtime.GOMAXPROCS(0), m*max(cols, 1)/grain, m)
	if p <= 1 {
		f(0, m)
		return
	}
	var wg sync.WaitGroup
	for w := range p {
		lo, hi := m*w/p, m*(w+1)/p
		wg.Go(func() { f(lo, hi) })
	}
	wg.Wait()
}
