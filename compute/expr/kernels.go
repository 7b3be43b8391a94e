package expr

import "math"

// The evaluator's loops: one per operation and operand shape (v: a slice
// of the chunk, s: one value for all its elements). Each is a plain typed
// loop the compiler turns into straight machine code, so that an
// operation costs one indirect call per chunk, not per element. The
// slices a, b, c are resliced to len(d) first so that the loops run
// without bounds checks.

type number interface {
	~float32 | ~float64 | ~int32 | ~uint32 | ~int64 | ~uint64
}

type integer interface {
	~int32 | ~uint32 | ~int64 | ~uint64
}

type float interface {
	~float32 | ~float64
}

func addVV[T number](d []T, a []T, b []T) {
	a = a[:len(d)]
	b = b[:len(d)]
	for i := range d {
		d[i] = a[i] + b[i]
	}
}

func addVS[T number](d []T, a []T, b T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = a[i] + b
	}
}

func addSV[T number](d []T, a T, b []T) {
	b = b[:len(d)]
	for i := range d {
		d[i] = a + b[i]
	}
}

func subVV[T number](d []T, a []T, b []T) {
	a = a[:len(d)]
	b = b[:len(d)]
	for i := range d {
		d[i] = a[i] - b[i]
	}
}

func subVS[T number](d []T, a []T, b T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = a[i] - b
	}
}

func subSV[T number](d []T, a T, b []T) {
	b = b[:len(d)]
	for i := range d {
		d[i] = a - b[i]
	}
}

func mulVV[T number](d []T, a []T, b []T) {
	a = a[:len(d)]
	b = b[:len(d)]
	for i := range d {
		d[i] = a[i] * b[i]
	}
}

func mulVS[T number](d []T, a []T, b T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = a[i] * b
	}
}

func mulSV[T number](d []T, a T, b []T) {
	b = b[:len(d)]
	for i := range d {
		d[i] = a * b[i]
	}
}

func divFVV[T float](d []T, a []T, b []T) {
	a = a[:len(d)]
	b = b[:len(d)]
	for i := range d {
		d[i] = a[i] / b[i]
	}
}

func divFVS[T float](d []T, a []T, b T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = a[i] / b
	}
}

func divFSV[T float](d []T, a T, b []T) {
	b = b[:len(d)]
	for i := range d {
		d[i] = a / b[i]
	}
}

func divIVV[T integer](d []T, a []T, b []T) {
	a = a[:len(d)]
	b = b[:len(d)]
	for i := range d {
		x, y := a[i], b[i]
		if y == 0 {
			d[i] = 0
		} else {
			d[i] = x / y
		}
	}
}

func divIVS[T integer](d []T, a []T, b T) {
	a = a[:len(d)]
	for i := range d {
		x, y := a[i], b
		if y == 0 {
			d[i] = 0
		} else {
			d[i] = x / y
		}
	}
}

func divISV[T integer](d []T, a T, b []T) {
	b = b[:len(d)]
	for i := range d {
		x, y := a, b[i]
		if y == 0 {
			d[i] = 0
		} else {
			d[i] = x / y
		}
	}
}

func remIVV[T integer](d []T, a []T, b []T) {
	a = a[:len(d)]
	b = b[:len(d)]
	for i := range d {
		x, y := a[i], b[i]
		if y == 0 {
			d[i] = 0
		} else {
			d[i] = x % y
		}
	}
}

func remIVS[T integer](d []T, a []T, b T) {
	a = a[:len(d)]
	for i := range d {
		x, y := a[i], b
		if y == 0 {
			d[i] = 0
		} else {
			d[i] = x % y
		}
	}
}

func remISV[T integer](d []T, a T, b []T) {
	b = b[:len(d)]
	for i := range d {
		x, y := a, b[i]
		if y == 0 {
			d[i] = 0
		} else {
			d[i] = x % y
		}
	}
}

func minVV[T number](d []T, a []T, b []T) {
	a = a[:len(d)]
	b = b[:len(d)]
	for i := range d {
		x, y := a[i], b[i]
		if y < x || x != x {
			d[i] = y
		} else {
			d[i] = x
		}
	}
}

func minVS[T number](d []T, a []T, b T) {
	a = a[:len(d)]
	for i := range d {
		x, y := a[i], b
		if y < x || x != x {
			d[i] = y
		} else {
			d[i] = x
		}
	}
}

func minSV[T number](d []T, a T, b []T) {
	b = b[:len(d)]
	for i := range d {
		x, y := a, b[i]
		if y < x || x != x {
			d[i] = y
		} else {
			d[i] = x
		}
	}
}

func maxVV[T number](d []T, a []T, b []T) {
	a = a[:len(d)]
	b = b[:len(d)]
	for i := range d {
		x, y := a[i], b[i]
		if y > x || x != x {
			d[i] = y
		} else {
			d[i] = x
		}
	}
}

func maxVS[T number](d []T, a []T, b T) {
	a = a[:len(d)]
	for i := range d {
		x, y := a[i], b
		if y > x || x != x {
			d[i] = y
		} else {
			d[i] = x
		}
	}
}

func maxSV[T number](d []T, a T, b []T) {
	b = b[:len(d)]
	for i := range d {
		x, y := a, b[i]
		if y > x || x != x {
			d[i] = y
		} else {
			d[i] = x
		}
	}
}

func powVV[T float](d []T, a []T, b []T) {
	a = a[:len(d)]
	b = b[:len(d)]
	for i := range d {
		d[i] = T(math.Pow(float64(a[i]), float64(b[i])))
	}
}

func powVS[T float](d []T, a []T, b T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Pow(float64(a[i]), float64(b)))
	}
}

func ltVV[T number](d []bool, a []T, b []T) {
	a = a[:len(d)]
	b = b[:len(d)]
	for i := range d {
		d[i] = a[i] < b[i]
	}
}

func ltVS[T number](d []bool, a []T, b T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = a[i] < b
	}
}

func leVV[T number](d []bool, a []T, b []T) {
	a = a[:len(d)]
	b = b[:len(d)]
	for i := range d {
		d[i] = a[i] <= b[i]
	}
}

func leVS[T number](d []bool, a []T, b T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = a[i] <= b
	}
}

func gtVV[T number](d []bool, a []T, b []T) {
	a = a[:len(d)]
	b = b[:len(d)]
	for i := range d {
		d[i] = a[i] > b[i]
	}
}

func gtVS[T number](d []bool, a []T, b T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = a[i] > b
	}
}

func geVV[T number](d []bool, a []T, b []T) {
	a = a[:len(d)]
	b = b[:len(d)]
	for i := range d {
		d[i] = a[i] >= b[i]
	}
}

func geVS[T number](d []bool, a []T, b T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = a[i] >= b
	}
}

func eqVV[T number](d []bool, a []T, b []T) {
	a = a[:len(d)]
	b = b[:len(d)]
	for i := range d {
		d[i] = a[i] == b[i]
	}
}

func eqVS[T number](d []bool, a []T, b T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = a[i] == b
	}
}

func neVV[T number](d []bool, a []T, b []T) {
	a = a[:len(d)]
	b = b[:len(d)]
	for i := range d {
		d[i] = a[i] != b[i]
	}
}

func neVS[T number](d []bool, a []T, b T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = a[i] != b
	}
}

func andVV(d, a, b []bool) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] && b[i]
	}
}

func orVV(d, a, b []bool) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] || b[i]
	}
}

func eqBVV(d, a, b []bool) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] == b[i]
	}
}

func neBVV(d, a, b []bool) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] != b[i]
	}
}

func notV(d, a []bool) {
	a = a[:len(d)]
	for i := range d {
		d[i] = !a[i]
	}
}

func negV[T number](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = -a[i]
	}
}

// absI wraps for the most negative value, as the generated helpers do.
func absI[T integer](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		if x := a[i]; x < 0 {
			d[i] = -x
		} else {
			d[i] = x
		}
	}
}

// mathV applies a float64 function to float32 or float64 elements: exact
// for float64; for float32 the float64 result rounded, which is within the
// error OpenCL and CUDA allow their float functions.
func mathV[T float](d, a []T, f func(float64) float64) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(f(float64(a[i])))
	}
}

func sqrtV[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Sqrt(float64(a[i])))
	}
}

func absV[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Abs(float64(a[i])))
	}
}

func floorV[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Floor(float64(a[i])))
	}
}

func ceilV[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Ceil(float64(a[i])))
	}
}

func rsqrtV[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(1 / math.Sqrt(float64(a[i])))
	}
}

func fmaVVV[T float](d, a, b, c []T) {
	a, b, c = a[:len(d)], b[:len(d)], c[:len(d)]
	for i := range d {
		d[i] = T(math.FMA(float64(a[i]), float64(b[i]), float64(c[i])))
	}
}

func clampVVV[T number](d, a, b, c []T) {
	a, b, c = a[:len(d)], b[:len(d)], c[:len(d)]
	for i := range d {
		x, lo, hi := a[i], b[i], c[i]
		if lo > x || x != x {
			x = lo
		}
		if hi < x || x != x {
			x = hi
		}
		d[i] = x
	}
}

func muladdVVV[T number](d []T, a []T, b []T, c []T) {
	a = a[:len(d)]
	b = b[:len(d)]
	c = c[:len(d)]
	for i := range d {
		d[i] = T(a[i]*b[i]) + c[i]
	}
}

func muladdSVV[T number](d []T, a T, b []T, c []T) {
	b = b[:len(d)]
	c = c[:len(d)]
	for i := range d {
		d[i] = T(a*b[i]) + c[i]
	}
}

func muladdVVS[T number](d []T, a []T, b []T, c T) {
	a = a[:len(d)]
	b = b[:len(d)]
	for i := range d {
		d[i] = T(a[i]*b[i]) + c
	}
}

func muladdSVS[T number](d []T, a T, b []T, c T) {
	b = b[:len(d)]
	for i := range d {
		d[i] = T(a*b[i]) + c
	}
}

func selVV[T number | bool](d []T, c []bool, a []T, b []T) {
	c = c[:len(d)]
	a = a[:len(d)]
	b = b[:len(d)]
	for i := range d {
		if c[i] {
			d[i] = a[i]
		} else {
			d[i] = b[i]
		}
	}
}

func selVS[T number | bool](d []T, c []bool, a []T, b T) {
	c = c[:len(d)]
	a = a[:len(d)]
	for i := range d {
		if c[i] {
			d[i] = a[i]
		} else {
			d[i] = b
		}
	}
}

func selSV[T number | bool](d []T, c []bool, a T, b []T) {
	c = c[:len(d)]
	b = b[:len(d)]
	for i := range d {
		if c[i] {
			d[i] = a
		} else {
			d[i] = b[i]
		}
	}
}

func selSS[T number | bool](d []T, c []bool, a T, b T) {
	c = c[:len(d)]
	for i := range d {
		if c[i] {
			d[i] = a
		} else {
			d[i] = b
		}
	}
}

func convV[A, B number](d []B, a []A) {
	a = a[:len(d)]
	for i := range d {
		d[i] = B(a[i])
	}
}

func convBoolV[B number](d []B, a []bool) {
	a = a[:len(d)]
	for i := range d {
		if a[i] {
			d[i] = 1
		} else {
			d[i] = 0
		}
	}
}

func fill[T number | bool](d []T, v T) {
	for i := range d {
		d[i] = v
	}
}
