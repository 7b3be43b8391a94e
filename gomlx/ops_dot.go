package gomlx

import (
	"fmt"
	"slices"
	"strings"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapeinference"
	"github.com/pkg/errors"

	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/compute/expr"
	"github.com/gour-dev/gour/ur"
)

// DotGeneral implements compute.Function: one batched GEMM through
// compute.MatMulWith (package blas: CLBlast or blas's own kernels on
// OpenCL, cuBLAS on CUDA). Each operand is taken as a [B, M, K] (or
// transposed [B, K, M]) matrix batch as it lies where its axes are in
// such an order, the transpose folded into the GEMM; otherwise it is first
// copied into that order.
func (f *Function) DotGeneral(lhs gc.Value, lhsContractingAxes, lhsBatchAxes []int,
	rhs gc.Value, rhsContractingAxes, rhsBatchAxes []int, config gc.DotGeneralConfig) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	ns, err := f.nodesOf(lhs, rhs)
	if err != nil {
		return nil, err
	}
	out, err := shapeinference.DotGeneral(ns[0].shape, lhsContractingAxes, lhsBatchAxes,
		ns[1].shape, rhsContractingAxes, rhsBatchAxes, config)
	if err != nil {
		return nil, err
	}
	inDT := ns[0].shape.DType
	calcDT := inDT
	if config.AccumulatorDType != dtypes.InvalidDType {
		calcDT = config.AccumulatorDType
	}
	outDT := inDT
	if config.OutputDType != dtypes.InvalidDType {
		outDT = config.OutputDType
	}
	for _, dt := range []dtypes.DType{inDT, calcDT, outDT} {
		if err := f.builder.backend.checkDType(dt); err != nil {
			return nil, err
		}
	}
	if !calcDT.IsFloat() && !calcDT.IsInt() {
		return nil, notImplemented("DotGeneral computed in %s", calcDT)
	}
	l, r := ns[0], ns[1]
	if calcDT != inDT {
		lv, err := f.ConvertDType(l, calcDT)
		if err != nil {
			return nil, err
		}
		rv, err := f.ConvertDType(r, calcDT)
		if err != nil {
			return nil, err
		}
		l, r = lv.(*node), rv.(*node)
	}
	lm := matLayout(l.shape.Dimensions, lhsBatchAxes, lhsContractingAxes, false)
	rm := matLayout(r.shape.Dimensions, rhsBatchAxes, rhsContractingAxes, true)
	calcOut := out.Clone()
	calcOut.DType = calcDT
	cDims := []int{lm.m, rm.m}
	if lm.b != 1 {
		cDims = []int{lm.b, lm.m, rm.m}
	}
	dot := f.add(&node{op: gc.OpTypeDotGeneral, shape: calcOut, inputs: []*node{l, r},
		run: func(b *Backend, sts []store) (store, error) {
			c, err := newStore(b.ctx, sts[0].typ(), cDims)
			if err != nil {
				return nil, err
			}
			if c.len() == 0 || lm.k == 0 {
				return c, nil
			}
			a, transA, freeA, err := lm.operand(b, sts[0])
			if err != nil {
				_ = c.release()
				return nil, err
			}
			bm, transB, freeB, err := rm.operand(b, sts[1])
			if err == nil {
				if calcDT.IsInt() {
					err = b.intMatMul(calcDT, c, a, bm, lm, rm, transA, transB)
				} else {
					err = matMul(c, a, bm, compute.MatMulOptions{TransA: transA, TransB: transB})
				}
				freeB()
			}
			freeA()
			if err != nil {
				_ = c.release()
				return nil, err
			}
			return c, nil
		}})
	if outDT == calcDT {
		if wrapNarrow("x", calcDT) != "x" {
			return f.ewNode(gc.OpTypeDotGeneral, calcOut.Clone(), []*node{dot}, func(in []string) string { return in[0] })
		}
		return dot, nil
	}
	return f.ConvertDType(dot, outDT)
}

// layout says how an operand of a DotGeneral is read as a batch of
// matrices: b matrices of m "cross" rows and k contracting columns (for
// the right operand, m is N).
type layout struct {
	b, m, k int
	dims    []int
	// natural is the order of axes as [batch, cross, contracting] (the
	// left operand untransposed, the right one transposed); swapped as
	// [batch, contracting, cross].
	natural, swapped []int
}

func matLayout(dims, batch, contracting []int, right bool) layout {
	l := layout{b: 1, m: 1, k: 1, dims: slices.Clone(dims)}
	used := make([]bool, len(dims))
	for _, a := range batch {
		used[a] = true
		l.b *= dims[a]
	}
	for _, a := range contracting {
		used[a] = true
		l.k *= dims[a]
	}
	var cross []int
	for a := range dims {
		if !used[a] {
			cross = append(cross, a)
			l.m *= dims[a]
		}
	}
	l.natural = slices.Concat(batch, cross, contracting)
	l.swapped = slices.Concat(batch, contracting, cross)
	_ = right
	return l
}

// operand returns the array a GEMM reads for the operand and whether it
// is transposed as [m, k] (for the left operand, GEMM's A is [M, K] when
// not transposed; for the right one, B is [K, N] when not transposed, so
// [N, K] means transposed). free releases a copy made for it.
func (l layout) operand(b *Backend, st store) (arr store, kmOrder bool, free func(), err error) {
	id := seq(len(l.dims))
	shape := func(rows, cols int) []int {
		if l.b == 1 {
			return []int{rows, cols}
		}
		return []int{l.b, rows, cols}
	}
	var want []int
	var perm []int
	switch {
	case slices.Equal(l.natural, id):
		want, perm, kmOrder = shape(l.m, l.k), l.natural, true
	case slices.Equal(l.swapped, id):
		want, perm, kmOrder = shape(l.k, l.m), l.swapped, false
	default:
		want, perm, kmOrder = shape(l.m, l.k), l.natural, true
	}
	if slices.Equal(st.dims(), want) {
		return st, kmOrder, func() {}, nil
	}
	tmp, err := newStore(b.ctx, st.typ(), want)
	if err != nil {
		return nil, false, nil, err
	}
	in := rowMajorStrides(l.dims)
	ext := make([]int, len(perm))
	ss := make([]int, len(perm))
	for i, p := range perm {
		ext[i], ss[i] = l.dims[p], in[p]
	}
	if err := b.stridedCopy(tmp, st, ext, 0, 0, rowMajorStrides(ext), ss); err != nil {
		_ = tmp.release()
		return nil, false, nil, err
	}
	return tmp, kmOrder, func() { _ = tmp.release() }, nil
}

// matMul computes c = op(a)·op(b). For the left operand, kmOrder true
// (stored [M, K]) is no transpose; for the right one, stored [N, K] is
// GEMM's transposed B.
func matMul(c, a, b store, o compute.MatMulOptions) error {
	o.TransA = !o.TransA // a stored [M, K] (kmOrder true) is untransposed
	switch c.typ() {
	case expr.Float32:
		return matMulOf[float32](c, a, b, o)
	case expr.Float64:
		return matMulOf[float64](c, a, b, o)
	}
	return errors.Errorf("gour backend: DotGeneral of %v", c.typ())
}

func matMulOf[T float32 | float64](c, a, b store, o compute.MatMulOptions) error {
	cc, ca, cb := c.(*arrStore[T]), a.(*arrStore[T]), b.(*arrStore[T])
	return compute.MatMulWith(cc.a.Context(), cc.a, ca.a, cb.a, o)
}

// intMatMul computes c = a·b of integers (no BLAS has them): a kernel, an
// output element per work-item, the sum in the storage type (so wrapping;
// a narrow dtype is wrapped after). kmA and kmB say whether a and b are
// stored [.., M, K] and [.., N, K] (else [.., K, M] and [.., K, N]).
func (b *Backend) intMatMul(dt dtypes.DType, c, a, bm store, lm, rm layout, kmA, kmB bool) error {
	t := c.typ()
	B, M, N, K := lm.b, lm.m, rm.m, lm.k
	sam, sak, sbn, sbk := K, 1, K, 1
	if !kmA {
		sam, sak = 1, M
	}
	if !kmB {
		sbn, sbk = 1, N
	}
	name := kernelName("imatmul", fmt.Sprint(t, "_", B, "_", M, "_", N, "_", K, "_", kmA, "_", kmB))
	k, err := b.kernel(name, name, func(backend string) string {
		ul := "ulong"
		if backend == "cuda" {
			ul = "unsigned long long"
		}
		ct := cType(backend, t)
		var sb strings.Builder
		kernelHead(&sb, backend, name, false)
		fmt.Fprintf(&sb, "%s dst, %s x, %s y, %s n) {\n", globalPtr(backend, ct, true), globalPtr(backend, ct, false),
			globalPtr(backend, ct, false), ul)
		sb.WriteString(globalID(backend))
		fmt.Fprintf(&sb, "  if (i >= n) return;\n  %s q = i / %du, nn = i - q * %du;\n  %s bi = q / %du, m = q - bi * %du;\n", ul, N, N, ul, M, M)
		fmt.Fprintf(&sb, "  %s acc = 0;\n  for (%s k = 0; k < %du; k++) acc += x[bi * %du + m * %du + k * %du] * y[bi * %du + nn * %du + k * %du];\n",
			ct, ul, K, M*K, sam, sak, N*K, sbn, sbk)
		sb.WriteString("  dst[i] = acc;\n}\n")
		return sb.String()
	}, false)
	if err != nil {
		return err
	}
	args, err := ioArgs(c, []store{a, bm}, 1)
	if err != nil {
		return err
	}
	n := B * M * N
	return b.launch(k, n, append(args, ur.ArgOf(uint64(n)))...)
}
