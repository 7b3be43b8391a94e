package blas_test

import (
	"encoding/binary"
	"math"
	"strconv"
	"testing"

	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/dtype"
)

// at is the index of element i of a vector of n elements inc apart, as
// BLAS walks it: from the end for a negative increment.
func at(i, n, inc int) int {
	if inc < 0 {
		return (n - 1 - i) * -inc
	}
	return i * inc
}

type vecCase struct {
	n, incX, incY int
}

// vecCases cover no element, one, several work-groups' worth (the
// reductions' two passes), strides and negative increments.
var vecCases = []vecCase{{0, 1, 1}, {1, 1, 1}, {1000, 1, 1}, {5003, 3, -2}, {777, -1, 2}, {64, 2, 1}}

// TestLevel1 compares every Level 1 routine with the host's result, on
// buffers and USM.
func TestLevel1(t *testing.T) {
	for _, e := range envs(t) {
		for _, ty := range types {
			t.Run(e.name+"/"+ty.String(), func(t *testing.T) {
				e.skipType(t, ty)
				before, calls := e.h.Fallbacks(), 0
				for ci, c := range vecCases {
					usm := kinds[ci%len(kinds)]
					for _, op := range []string{"Axpy", "Dot", "Nrm2", "Asum", "Iamax", "Scal", "Copy", "Swap"} {
						checkLevel1(t, e, ty, op, c, usm, uint64(ci))
						calls++
					}
				}
				e.checkServed(t, ty, calls, before)
			})
		}
	}
}

func checkLevel1(t *testing.T, e *env, ty dtype.Type, op string, c vecCase, k operandKinds, seed uint64) {
	t.Helper()
	incX, incY := c.incX, c.incY
	if op == "Nrm2" || op == "Asum" || op == "Iamax" || op == "Scal" {
		incX = max(incX, -incX) // these take positive increments
	}
	span := func(inc int) int { return max(1, (c.n-1)*max(inc, -inc)+1) }
	X, Y := values(span(incX), seed), values(span(incY), seed+1)
	dx, dy := e.upload(t, ty, X, 1, 0, k[0]), e.upload(t, ty, Y, 0, 0, k[1])
	dr := e.upload(t, ty, []float64{-7}, 2, 0, k[2])
	x, y, r := dx.operand(), dy.operand(), dr.operand()
	const alpha = -1.25
	var err error
	switch op {
	case "Axpy":
		err = e.h.Axpy(ty, c.n, alpha, x, incX, y, incY)
	case "Dot":
		err = e.h.Dot(ty, c.n, x, incX, y, incY, r)
	case "Nrm2":
		err = e.h.Nrm2(ty, c.n, x, incX, r)
	case "Asum":
		err = e.h.Asum(ty, c.n, x, incX, r)
	case "Iamax":
		dr = e.upload(t, dtype.Float32, []float64{-7}, 0, 0, k[2]) // an int32
		err = e.h.Iamax(ty, c.n, x, incX, dr.operand())
	case "Scal":
		err = e.h.Scal(ty, c.n, alpha, x, incX)
	case "Copy":
		err = e.h.Copy(ty, c.n, x, incX, y, incY)
	case "Swap":
		err = e.h.Swap(ty, c.n, x, incX, y, incY)
	}
	if err != nil {
		t.Fatalf("%s n=%d incX=%d incY=%d: %v", op, c.n, incX, incY, err)
	}
	fail := func(what string, got, want any) {
		t.Helper()
		t.Fatalf("%s %s n=%d incX=%d incY=%d on USM %v: %s = %v, want %v", op, ty, c.n, incX, incY, k, what, got, want)
	}
	// Vectors: the expected x and y, untouched between the strides.
	wantX, wantY := append([]float64(nil), X...), append([]float64(nil), Y...)
	var sum, abs float64
	for i := range c.n {
		ix, iy := at(i, c.n, incX), at(i, c.n, incY)
		switch op {
		case "Axpy":
			wantY[iy] = Y[iy] + alpha*X[ix]
		case "Scal":
			wantX[ix] = alpha * X[ix]
		case "Copy":
			wantY[iy] = X[ix]
		case "Swap":
			wantX[ix], wantY[iy] = Y[iy], X[ix]
		case "Dot":
			sum += X[ix] * Y[iy]
			abs += math.Abs(X[ix] * Y[iy])
		case "Nrm2":
			sum += X[ix] * X[ix]
			abs += X[ix] * X[ix]
		case "Asum":
			sum += math.Abs(X[ix])
			abs += math.Abs(X[ix])
		}
	}
	gx, gy := dx.read(t), dy.read(t)
	for i := range wantX {
		if w := round(ty, wantX[i]); !near(ty, gx[i], w, math.Abs(w)+1) {
			fail("x["+strconv.Itoa(i)+"]", gx[i], w)
		}
	}
	for i := range wantY {
		if w := round(ty, wantY[i]); !near(ty, gy[i], w, math.Abs(w)+1) {
			fail("y["+strconv.Itoa(i)+"]", gy[i], w)
		}
	}
	switch op {
	case "Dot", "Asum":
		if got, w := dr.read(t)[0], round(ty, sum); !near(ty, got, w, abs+1) {
			fail("the result", got, w)
		}
	case "Nrm2":
		if got, w := dr.read(t)[0], round(ty, math.Sqrt(sum)); !near(ty, got, w, math.Sqrt(abs)+1) {
			fail("the result", got, w)
		}
	case "Iamax":
		want, best := -1, -1.0
		for i := range c.n {
			if v := math.Abs(X[at(i, c.n, incX)]); v > best {
				want, best = i, v
			}
		}
		if got := int32(binary.LittleEndian.Uint32(dr.bytes(t))); got != int32(want) {
			fail("the index", got, want)
		}
	}
}

// TestNrm2Scaled: the norm of numbers whose squares overflow (or
// underflow) the type is still right, as BLAS's scaled sum of squares
// makes it.
func TestNrm2Scaled(t *testing.T) {
	for _, e := range envs(t) {
		t.Run(e.name, func(t *testing.T) {
			for _, v := range []float64{3e30, 3e-30} {
				xs := []float64{v, -v, v, -v}
				dx := e.upload(t, dtype.Float32, xs, 0, 0, false)
				dr := e.upload(t, dtype.Float32, []float64{0}, 0, 0, false)
				if err := e.h.Nrm2(dtype.Float32, len(xs), dx.operand(), 1, dr.operand()); err != nil {
					t.Fatal(err)
				}
				if got, want := dr.read(t)[0], 2*v; math.Abs(got-want) > 1e-6*want {
					t.Errorf("Nrm2 of ±%g: %g, want %g", v, got, want)
				}
			}
		})
	}
}

// TestGemv compares y = alpha*op(A)*x + beta*y with the host's, both
// transposes, strides, negative increments and empty A.
func TestGemv(t *testing.T) {
	for _, e := range envs(t) {
		for _, ty := range types {
			t.Run(e.name+"/"+ty.String(), func(t *testing.T) {
				e.skipType(t, ty)
				before, calls := e.h.Fallbacks(), 0
				for i, c := range []struct{ m, n, pad, incX, incY int }{
					{1, 1, 0, 1, 1}, {37, 300, 3, 1, 1}, {300, 37, 0, 2, -1}, {64, 64, 1, -3, 2}, {5, 0, 0, 1, 1}, {0, 7, 0, 1, 1},
				} {
					for _, tr := range []blas.Transpose{blas.NoTrans, blas.Trans} {
						ab := [][2]float64{{1, 0}, {-0.5, 1.5}, {2, -1}}[(i+int(tr))%3]
						checkGemv(t, e, blas.GemvArgs{Type: ty, Trans: tr, M: c.m, N: c.n, Alpha: ab[0], Beta: ab[1],
							LDA: max(1, c.n+c.pad), IncX: c.incX, IncY: c.incY}, kinds[(2*i+int(tr))%len(kinds)], uint64(i))
						calls++
					}
				}
				e.checkServed(t, ty, calls, before)
			})
		}
	}
}

func checkGemv(t *testing.T, e *env, a blas.GemvArgs, k operandKinds, seed uint64) {
	t.Helper()
	nx, ny := a.N, a.M
	if a.Trans == blas.Trans {
		nx, ny = a.M, a.N
	}
	span := func(n, inc int) int { return max(1, (n-1)*max(inc, -inc)+1) }
	A := values(max(1, a.M*a.LDA), seed)
	X, Y := values(span(nx, a.IncX), seed+1), values(span(ny, a.IncY), seed+2)
	if a.Beta == 0 {
		for i := range Y {
			Y[i] = math.NaN()
		}
	}
	da, dx, dy := e.upload(t, a.Type, A, 0, 0, k[0]), e.upload(t, a.Type, X, 0, 0, k[1]), e.upload(t, a.Type, Y, 1, 0, k[2])
	a.A, a.X, a.Y = da.operand(), dx.operand(), dy.operand()
	if err := e.h.Gemv(a); err != nil {
		t.Fatalf("%+v: %v", a, err)
	}
	got := dy.read(t)
	written := map[int]bool{}
	for i := range ny {
		var s, abs float64
		for j := range nx {
			ia := i*a.LDA + j
			if a.Trans == blas.Trans {
				ia = j*a.LDA + i
			}
			p := A[ia] * X[at(j, nx, a.IncX)]
			s += p
			abs += math.Abs(p)
		}
		iy := at(i, ny, a.IncY)
		c := 0.0
		if a.Beta != 0 {
			c = a.Beta * Y[iy]
		}
		written[iy] = true
		if w := round(a.Type, a.Alpha*s+c); !near(a.Type, got[iy], w, math.Abs(a.Alpha)*abs+math.Abs(c)+1) {
			t.Fatalf("%s %v M=%d N=%d lda=%d incX=%d incY=%d alpha=%v beta=%v on USM %v: y[%d] = %v, want %v",
				a.Type, a.Trans, a.M, a.N, a.LDA, a.IncX, a.IncY, a.Alpha, a.Beta, k, i, got[iy], w)
		}
	}
	for i := range Y { // between the strides, y is untouched
		if !written[i] && !math.IsNaN(Y[i]) && got[i] != round(a.Type, Y[i]) {
			t.Fatalf("y[%d] between the strides = %v, was %v", i, got[i], Y[i])
		}
	}
}
