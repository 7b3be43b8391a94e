package blas

import "github.com/gour-dev/gour/dtype"

// GemvArgs are the arguments of y = alpha*op(A)*x + beta*y, with A an
// M×N row-major matrix (LDA >= max(1, N)), x of N elements and y of M
// (of M and N when Trans), IncX and IncY elements apart. A negative
// increment walks the vector from its last element, as in BLAS. With
// Beta 0, y is not read.
type GemvArgs struct {
	Type        dtype.Type
	Trans       Transpose
	M, N        int
	Alpha, Beta float64
	A           Operand
	LDA         int
	X           Operand
	IncX        int
	Y           Operand
	IncY        int
}

// Gemv enqueues y = alpha*op(A)*x + beta*y. dtype.Float16 and dtype.BFloat16
// accumulate in float32.
func (h *Handle) Gemv(a GemvArgs) error {
	const op = "blas.Gemv"
	if err := h.checkCall(op, a.Type); err != nil {
		return err
	}
	if err := checkTrans(op, "Trans", a.Trans); err != nil {
		return err
	}
	if err := checkDims(op, [...]string{"M", "N"}, [...]int{a.M, a.N}); err != nil {
		return err
	}
	if err := checkLD(op, "LDA", a.LDA, a.N, "A", NoTrans); err != nil {
		return err
	}
	if err := checkInc(op, "IncX", a.IncX, false); err != nil {
		return err
	}
	if err := checkInc(op, "IncY", a.IncY, false); err != nil {
		return err
	}
	nx, ny := a.N, a.M
	if a.Trans == Trans {
		nx, ny = a.M, a.N
	}
	if err := h.checkOperand(op, "A", a.A, a.Type.Size(), matSpan(a.M, a.N, a.LDA)); err != nil {
		return err
	}
	if ny > 0 {
		// x is read only when there is a y to write.
		if err := h.checkOperand(op, "X", a.X, a.Type.Size(), vecSpan(nx, a.IncX)); err != nil {
			return err
		}
	}
	if err := h.checkOperand(op, "Y", a.Y, a.Type.Size(), vecSpan(ny, a.IncY)); err != nil {
		return err
	}
	if ny == 0 {
		return nil
	}
	return h.run(op, callShape{t: a.Type, m: a.M, n: a.N}, func(e engine) error { return e.gemv(a) })
}
