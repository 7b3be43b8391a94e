package blas

import (
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// TrsmArgs are the arguments of the triangular solve op(A)*X = Alpha*B
// (Side Left) or X*op(A) = Alpha*B (Side Right), X overwriting B. B is
// an M×N row-major matrix (LDB >= max(1, N)); A is triangular, K×K with
// K = M for Left and N for Right (LDA >= max(1, K)), and only its Uplo
// triangle is read: the other is not referenced, nor is the diagonal
// when Diag is Unit. With Alpha 0, B is set to zero and A is not read.
//
// As in BLAS, the solve does not test for singularity: a zero on A's
// diagonal gives infinities and NaNs in X.
type TrsmArgs struct {
	Type     dtype.Type
	Side     Side
	Uplo     Uplo
	Trans    Transpose
	Diag     Diag
	M, N     int
	Alpha    float64
	A, B     Operand
	LDA, LDB int
}

// Trsm enqueues the triangular solve of a (see TrsmArgs), for dtype.Float32
// and dtype.Float64. cuBLAS and CLBlast solve with their own trsm; the own
// kernels invert A's diagonal blocks and run the rest of the solve as
// general products (see the package documentation).
func (h *Handle) Trsm(a TrsmArgs) error {
	const op = "blas.Trsm"
	if err := h.checkCall(op, a.Type); err != nil {
		return err
	}
	if a.Type != dtype.Float32 && a.Type != dtype.Float64 {
		return argError(op, "Type", ur.ErrInvalidValue, "%v: Trsm takes dtype.Float32 or dtype.Float64", a.Type)
	}
	if a.Side != Left && a.Side != Right {
		return argError(op, "Side", ur.ErrInvalidValue, "%v: want Left or Right", a.Side)
	}
	if a.Uplo != Upper && a.Uplo != Lower {
		return argError(op, "Uplo", ur.ErrInvalidValue, "%v: want Upper or Lower", a.Uplo)
	}
	if err := checkTrans(op, "Trans", a.Trans); err != nil {
		return err
	}
	if a.Diag != NonUnit && a.Diag != Unit {
		return argError(op, "Diag", ur.ErrInvalidValue, "%v: want NonUnit or Unit", a.Diag)
	}
	if err := checkDims(op, [...]string{"M", "N"}, [...]int{a.M, a.N}); err != nil {
		return err
	}
	k := a.trsmK()
	if err := checkLD(op, "LDA", a.LDA, k, "A", NoTrans); err != nil {
		return err
	}
	if err := checkLD(op, "LDB", a.LDB, a.N, "B", NoTrans); err != nil {
		return err
	}
	empty := a.M == 0 || a.N == 0
	if !empty && a.Alpha != 0 {
		// A is read only when there is a solve to make.
		if err := h.checkOperand(op, "A", a.A, a.Type.Size(), matSpan(k, k, a.LDA)); err != nil {
			return err
		}
	}
	if err := h.checkOperand(op, "B", a.B, a.Type.Size(), matSpan(a.M, a.N, a.LDB)); err != nil {
		return err
	}
	if empty {
		return nil
	}
	return h.run(op, callShape{t: a.Type, m: a.M, n: a.N}, func(e engine) error { return e.trsm(a) })
}

// trsmK is the order of A: M for Left, N for Right.
func (a *TrsmArgs) trsmK() int {
	if a.Side == Left {
		return a.M
	}
	return a.N
}

// lowerOp reports whether op(A) is lower triangular: A's lower triangle
// as stored, or its upper one transposed.
func (a *TrsmArgs) lowerOp() bool { return (a.Uplo == Lower) != (a.Trans == Trans) }
