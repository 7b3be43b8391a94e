package blas

import (
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// Axpy enqueues y += alpha*x.
func (h *Handle) Axpy(t dtype.Type, n int, alpha float64, x Operand, incX int, y Operand, incY int) error {
	return h.vector(&vecArgs{Op: opAxpy, Type: t, N: n, Alpha: alpha, X: x, IncX: incX, Y: y, IncY: incY})
}

// Dot enqueues result = x·y.
func (h *Handle) Dot(t dtype.Type, n int, x Operand, incX int, y Operand, incY int, result Operand) error {
	return h.vector(&vecArgs{Op: opDot, Type: t, N: n, X: x, IncX: incX, Y: y, IncY: incY, Result: result})
}

// Nrm2 enqueues result = the Euclidean norm of x.
func (h *Handle) Nrm2(t dtype.Type, n int, x Operand, incX int, result Operand) error {
	return h.vector(&vecArgs{Op: opNrm2, Type: t, N: n, X: x, IncX: incX, Result: result})
}

// Asum enqueues result = the sum of the magnitudes of x's elements.
func (h *Handle) Asum(t dtype.Type, n int, x Operand, incX int, result Operand) error {
	return h.vector(&vecArgs{Op: opAsum, Type: t, N: n, X: x, IncX: incX, Result: result})
}

// Iamax enqueues result = the 0-based index of the first element of x
// with the largest magnitude (an int32; -1 for n = 0). NaN compares
// smaller than every number.
func (h *Handle) Iamax(t dtype.Type, n int, x Operand, incX int, result Operand) error {
	return h.vector(&vecArgs{Op: opIamax, Type: t, N: n, X: x, IncX: incX, Result: result})
}

// Scal enqueues x *= alpha.
func (h *Handle) Scal(t dtype.Type, n int, alpha float64, x Operand, incX int) error {
	return h.vector(&vecArgs{Op: opScal, Type: t, N: n, Alpha: alpha, X: x, IncX: incX})
}

// Copy enqueues y = x.
func (h *Handle) Copy(t dtype.Type, n int, x Operand, incX int, y Operand, incY int) error {
	return h.vector(&vecArgs{Op: opCopy, Type: t, N: n, X: x, IncX: incX, Y: y, IncY: incY})
}

// Swap enqueues the exchange of x and y.
func (h *Handle) Swap(t dtype.Type, n int, x Operand, incX int, y Operand, incY int) error {
	return h.vector(&vecArgs{Op: opSwap, Type: t, N: n, X: x, IncX: incX, Y: y, IncY: incY})
}

func (h *Handle) vector(a *vecArgs) error {
	op := "blas." + a.Op.String()
	if err := h.checkCall(op, a.Type); err != nil {
		return err
	}
	if a.N < 0 || a.N > maxDim {
		return argError(op, "n", ur.ErrInvalidValue, "%d is outside [0, %d]", a.N, maxDim)
	}
	positive := !a.Op.hasY()
	if err := checkInc(op, "incX", a.IncX, positive); err != nil {
		return err
	}
	if err := h.checkOperand(op, "x", a.X, a.Type.Size(), vecSpan(a.N, a.IncX)); err != nil {
		return err
	}
	if a.Op.hasY() {
		if err := checkInc(op, "incY", a.IncY, false); err != nil {
			return err
		}
		if err := h.checkOperand(op, "y", a.Y, a.Type.Size(), vecSpan(a.N, a.IncY)); err != nil {
			return err
		}
	}
	if a.Op.hasResult() {
		size := a.Type.Size()
		if a.Op == opIamax {
			size = 4 // an int32
		}
		if err := h.checkOperand(op, "result", a.Result, size, 1); err != nil {
			return err
		}
	} else if a.N == 0 {
		return nil
	}
	return h.run(op, callShape{t: a.Type, n: a.N}, func(e engine) error { return e.vector(a) })
}
