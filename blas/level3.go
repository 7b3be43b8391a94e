package blas

import (
	"math"

	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// GemmArgs are the arguments of C = alpha*op(A)*op(B) + beta*C, where
// op(A) is M×K, op(B) is K×N and C is M×N. Matrices are row-major, as Go
// and C arrays and gonum are: element (i, j) of A is at A + (i*LDA + j)
// elements. A is stored M×K (K×M when TransA is Trans), B K×N (N×K when
// TransB is Trans), and each leading dimension is at least the stored
// column count and at least 1. With Beta 0, C is not read.
//
// Batch above 1 makes a strided batch: matrix b of A starts StrideA
// elements after matrix b-1 (likewise B and C). StrideA and StrideB may
// be 0 (one matrix for the whole batch); StrideC must keep the batch's
// outputs apart: each after the previous (StrideC at least (M-1)*LDC + N)
// or side by side in the rows of LDC (StrideC at least N, and
// (Batch-1)*StrideC + N at most LDC), as attention's heads are when
// their outputs land in one [token][head][dim] matrix.
type GemmArgs struct {
	Type           dtype.Type
	TransA, TransB Transpose
	M, N, K        int
	Alpha, Beta    float64
	A, B, C        Operand
	LDA, LDB, LDC  int
	// Batch is the number of products; 0 and 1 mean one.
	Batch                     int
	StrideA, StrideB, StrideC int
}

// Gemm enqueues C = alpha*op(A)*op(B) + beta*C, Batch times for a
// strided batch. dtype.Float16 and dtype.BFloat16 accumulate in float32.
func (h *Handle) Gemm(a GemmArgs) error {
	const op = "blas.Gemm"
	if err := h.checkGemm(op, &a, true); err != nil {
		return err
	}
	if a.M == 0 || a.N == 0 {
		return nil
	}
	return h.run(op, callShape{t: a.Type, m: a.M, n: a.N, k: a.K, batch: a.Batch}, func(e engine) error { return e.gemm(a) })
}

// GemmBatched enqueues C = alpha*op(A)*op(B) + beta*C for every i, with
// as[i], bs[i] and cs[i] as A, B and C: the pointer-array batch. a gives
// the shapes, leading dimensions and scalars; its A, B, C, Batch and
// strides must be zero. The outputs must not overlap.
func (h *Handle) GemmBatched(a GemmArgs, as, bs, cs []Operand) error {
	const op = "blas.GemmBatched"
	if len(bs) != len(as) || len(cs) != len(as) {
		return argError(op, "bs, cs", ur.ErrInvalidValue, "%d, %d and %d operands: want as many B and C as A", len(as), len(bs), len(cs))
	}
	if !a.A.IsNil() || !a.B.IsNil() || !a.C.IsNil() || a.Batch != 0 || a.StrideA != 0 || a.StrideB != 0 || a.StrideC != 0 {
		return argError(op, "a", ur.ErrInvalidValue, "A, B, C, Batch and the strides come from as, bs and cs: leave them zero")
	}
	if err := h.checkGemm(op, &a, false); err != nil {
		return err
	}
	sa, sb, sc := gemmSpans(&a)
	for i := range as {
		if err := h.checkOperandAt(op, "as", i, as[i], a.Type.Size(), sa); err != nil {
			return err
		}
		if err := h.checkOperandAt(op, "bs", i, bs[i], a.Type.Size(), sb); err != nil {
			return err
		}
		if err := h.checkOperandAt(op, "cs", i, cs[i], a.Type.Size(), sc); err != nil {
			return err
		}
	}
	if a.M == 0 || a.N == 0 || len(as) == 0 {
		return nil
	}
	return h.run(op, callShape{t: a.Type, m: a.M, n: a.N, k: a.K, batch: len(as)}, func(e engine) error { return e.gemmBatched(&a, as, bs, cs) })
}

// checkGemm checks a's type, scalars, shapes and leading dimensions,
// and, with operands, A, B and C over the whole batch. It sets Batch to
// at least 1.
func (h *Handle) checkGemm(op string, a *GemmArgs, operands bool) error {
	if err := h.checkCall(op, a.Type); err != nil {
		return err
	}
	if err := checkTrans(op, "TransA", a.TransA); err != nil {
		return err
	}
	if err := checkTrans(op, "TransB", a.TransB); err != nil {
		return err
	}
	if err := checkDims(op, [...]string{"M", "N", "K"}, [...]int{a.M, a.N, a.K}); err != nil {
		return err
	}
	_, ca := rowsCols(a.TransA, a.M, a.K)
	_, cb := rowsCols(a.TransB, a.K, a.N)
	if err := checkLD(op, "LDA", a.LDA, ca, "A", a.TransA); err != nil {
		return err
	}
	if err := checkLD(op, "LDB", a.LDB, cb, "B", a.TransB); err != nil {
		return err
	}
	if err := checkLD(op, "LDC", a.LDC, a.N, "C", NoTrans); err != nil {
		return err
	}
	if a.Batch < 0 {
		return argError(op, "Batch", ur.ErrInvalidValue, "%d is negative", a.Batch)
	}
	if a.Batch > maxDim {
		return argError(op, "Batch", ur.ErrInvalidValue, "%d exceeds %d", a.Batch, maxDim)
	}
	a.Batch = max(a.Batch, 1)
	if !operands {
		return nil
	}
	sa, sb, sc := gemmSpans(a)
	if a.Batch > 1 {
		for _, s := range [...]struct {
			name   string
			stride int
		}{{"StrideA", a.StrideA}, {"StrideB", a.StrideB}, {"StrideC", a.StrideC}} {
			if s.stride < 0 || s.stride > math.MaxInt64/a.Batch {
				return argError(op, s.name, ur.ErrInvalidValue, "%d: want a stride of 0 or more whose batch fits in an int", s.stride)
			}
		}
		sideBySide := a.StrideC >= a.N && (a.Batch-1)*a.StrideC+a.N <= a.LDC
		if uint64(a.StrideC) < sc && !sideBySide {
			return argError(op, "StrideC", ur.ErrInvalidValue, "%d: the batch's outputs would overlap: want at least C's %d elements ((M-1)*LDC+N), or the matrices side by side within LDC %d", a.StrideC, sc, a.LDC)
		}
	}
	batch := uint64(a.Batch - 1)
	if err := h.checkOperand(op, "A", a.A, a.Type.Size(), batchSpan(sa, batch, a.StrideA)); err != nil {
		return err
	}
	if err := h.checkOperand(op, "B", a.B, a.Type.Size(), batchSpan(sb, batch, a.StrideB)); err != nil {
		return err
	}
	return h.checkOperand(op, "C", a.C, a.Type.Size(), batchSpan(sc, batch, a.StrideC))
}

// gemmSpans are the element extents of one A, B and C.
func gemmSpans(a *GemmArgs) (sa, sb, sc uint64) {
	ra, ca := rowsCols(a.TransA, a.M, a.K)
	rb, cb := rowsCols(a.TransB, a.K, a.N)
	return matSpan(ra, ca, a.LDA), matSpan(rb, cb, a.LDB), matSpan(a.M, a.N, a.LDC)
}

// rowsCols is the stored shape of a matrix that is r×c after op.
func rowsCols(t Transpose, r, c int) (int, int) {
	if t == Trans {
		return c, r
	}
	return r, c
}

func batchSpan(span, lastBatch uint64, stride int) uint64 {
	if span == 0 {
		return 0
	}
	return lastBatch*uint64(stride) + span
}
