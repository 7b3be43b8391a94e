package gomlx

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapeinference"
	"github.com/pkg/errors"

	"github.com/gour-dev/gour/compute/expr"
	"github.com/gour-dev/gour/ur"
)

// scatterSpec is one Scatter's configuration, its kernel generated with
// every extent and stride a constant.
type scatterSpec struct {
	name string
	t    expr.Type
	dt   dtypes.DType
	idx  expr.Type
	op   gc.OpType
	// The updates' scatter (batch) axes: extents, and strides in the
	// updates and in the indices.
	batch, updBatchStr, idxBatchStr []int
	// The window: extents, and strides in the updates and the operand.
	win, updWinStr, opWinStr []int
	// Per index vector component: its stride in the indices, the operand
	// axis's stride and the largest start that fits the window.
	vecStride    int
	scatterStr   []int
	scatterLimit []int
}

// source is the scatter kernel: one work-group goes over the updates in
// order, its work-items combining the window of each (elements the group
// shares out) into dst, a copy of the operand, with a barrier between
// updates, so that overlapping windows combine in order, with no atomics.
// An update whose window does not fit the operand is skipped (XLA's rule).
func (s *scatterSpec) source(backend string) string {
	var sb strings.Builder
	sb.WriteString(rowPrelude(backend, s.t))
	if backend == "cuda" {
		sb.WriteString("#define GBARRIER() __syncthreads()\n")
	} else {
		sb.WriteString("#define GBARRIER() barrier(CLK_GLOBAL_MEM_FENCE)\n")
	}
	fmt.Fprintf(&sb, "KERNEL %s(GLOBAL T* dst, GLOBAL const %s* idx, GLOBAL const T* upd) {\n  UL lid = LID;\n", s.name, cType(backend, s.idx))
	nb, nw := 1, 1
	for _, d := range s.batch {
		nb *= d
	}
	for _, d := range s.win {
		nw *= d
	}
	fmt.Fprintf(&sb, "  for (UL u = 0; u < %du; u++) {\n    UL r = u, q;\n    SL ib = 0, ub = 0, ob = 0;\n    int ok = 1;\n", nb)
	for k := len(s.batch) - 1; k >= 0; k-- {
		fmt.Fprintf(&sb, "    q = r / %du; { SL c = (SL)(r - q * %du); ib += c * %d; ub += c * %d; } r = q;\n", s.batch[k], s.batch[k],
			s.idxBatchStr[k], s.updBatchStr[k])
	}
	for j := range s.scatterStr {
		fmt.Fprintf(&sb, "    { SL v = (SL)idx[ib + %d]; if (v < 0 || v > %d) ok = 0; ob += v * %d; }\n", j*s.vecStride, s.scatterLimit[j], s.scatterStr[j])
	}
	var comb string
	switch s.op {
	case gc.OpTypeScatterSum:
		comb = "a + b"
	case gc.OpTypeScatterMax:
		comb = "(b > a) ? b : a"
		if s.dt.IsFloat() {
			comb = "(b > a || b != b) ? b : a"
		}
	default:
		comb = "(b < a) ? b : a"
		if s.dt.IsFloat() {
			comb = "(b < a || b != b) ? b : a"
		}
	}
	comb = strings.NewReplacer("a", "dst[o]", "b", "x").Replace(comb)
	fmt.Fprintf(&sb, "    if (ok) {\n      for (UL w = lid; w < %du; w += WG) {\n        UL r2 = w, q2;\n        SL o = ob, p = ub;\n", nw)
	for k := len(s.win) - 1; k >= 0; k-- {
		fmt.Fprintf(&sb, "        q2 = r2 / %du; { SL c = (SL)(r2 - q2 * %du); o += c * %d; p += c * %d; } r2 = q2;\n", s.win[k], s.win[k],
			s.opWinStr[k], s.updWinStr[k])
	}
	fmt.Fprintf(&sb, "        T x = upd[p];\n        dst[o] = %s;\n      }\n    }\n    GBARRIER();\n  }\n}\n", comb)
	return sb.String()
}

// ScatterSum implements compute.Function: see scatterSpec.source.
func (f *Function) ScatterSum(operand, scatterIndices, updates gc.Value, indexVectorAxis int,
	updateWindowAxes, insertedWindowAxes, scatterAxesToOperandAxes []int, indicesAreSorted, uniqueIndices bool) (gc.Value, error) {
	return f.scatter(gc.OpTypeScatterSum, operand, scatterIndices, updates, indexVectorAxis, updateWindowAxes,
		insertedWindowAxes, scatterAxesToOperandAxes)
}

// ScatterMax implements compute.Function: see scatterSpec.source.
func (f *Function) ScatterMax(operand, scatterIndices, updates gc.Value, indexVectorAxis int,
	updateWindowAxes, insertedWindowAxes, scatterAxesToOperandAxes []int, indicesAreSorted, uniqueIndices bool) (gc.Value, error) {
	return f.scatter(gc.OpTypeScatterMax, operand, scatterIndices, updates, indexVectorAxis, updateWindowAxes,
		insertedWindowAxes, scatterAxesToOperandAxes)
}

// ScatterMin implements compute.Function: see scatterSpec.source.
func (f *Function) ScatterMin(operand, scatterIndices, updates gc.Value, indexVectorAxis int,
	updateWindowAxes, insertedWindowAxes, scatterAxesToOperandAxes []int, indicesAreSorted, uniqueIndices bool) (gc.Value, error) {
	return f.scatter(gc.OpTypeScatterMin, operand, scatterIndices, updates, indexVectorAxis, updateWindowAxes,
		insertedWindowAxes, scatterAxesToOperandAxes)
}

func (f *Function) scatter(op gc.OpType, operand, scatterIndices, updates gc.Value, indexVectorAxis int,
	updateWindowAxes, insertedWindowAxes, scatterAxesToOperandAxes []int) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	ns, err := f.nodesOf(operand, scatterIndices, updates)
	if err != nil {
		return nil, err
	}
	on, in, un := ns[0], ns[1], ns[2]
	out, err := shapeinference.Scatter(on.shape, in.shape, un.shape, indexVectorAxis, updateWindowAxes, insertedWindowAxes,
		scatterAxesToOperandAxes)
	if err != nil {
		return nil, err
	}
	for _, n := range ns {
		if err := f.builder.backend.checkDType(n.shape.DType); err != nil {
			return nil, err
		}
	}
	if on.shape.IsDynamic() || in.shape.IsDynamic() || un.shape.IsDynamic() {
		return f.pending(op, out, ns...), nil
	}
	if !in.shape.DType.IsInt() {
		return nil, errors.Errorf("gour backend: %s indices of %s, want integers", op, in.shape)
	}
	if out.DType == dtypes.Bool {
		return nil, notImplemented("%s of %s", op, out)
	}
	s := &scatterSpec{dt: out.DType, op: op}
	s.t, _ = storageType(out.DType)
	s.idx, _ = storageType(in.shape.DType)
	opDims, idxDims, updDims := on.shape.Dimensions, in.shape.Dimensions, un.shape.Dimensions
	opStr, idxStr, updStr := rowMajorStrides(opDims), rowMajorStrides(idxDims), rowMajorStrides(updDims)
	// The indices' batch axes: all but the index vector's.
	var idxBatch []int
	for a := range idxDims {
		if a != indexVectorAxis {
			idxBatch = append(idxBatch, a)
		}
	}
	if indexVectorAxis < len(idxDims) {
		s.vecStride = idxStr[indexVectorAxis]
	}
	j := 0
	for a := range updDims {
		if slices.Contains(updateWindowAxes, a) {
			continue
		}
		if j >= len(idxBatch) {
			return nil, errors.Errorf("gour backend: %s updates %s have more scatter axes than the indices %s", op, un.shape, in.shape)
		}
		s.batch = append(s.batch, updDims[a])
		s.updBatchStr = append(s.updBatchStr, updStr[a])
		s.idxBatchStr = append(s.idxBatchStr, idxStr[idxBatch[j]])
		j++
	}
	// The operand's window axes: those not inserted, in order.
	winSize := make([]int, len(opDims))
	for a := range winSize {
		winSize[a] = 1
	}
	k := 0
	for a := range opDims {
		if slices.Contains(insertedWindowAxes, a) {
			continue
		}
		if k >= len(updateWindowAxes) {
			return nil, errors.Errorf("gour backend: %s window axes %v do not match the operand %s", op, updateWindowAxes, on.shape)
		}
		ua := updateWindowAxes[k]
		s.win = append(s.win, updDims[ua])
		s.updWinStr = append(s.updWinStr, updStr[ua])
		s.opWinStr = append(s.opWinStr, opStr[a])
		winSize[a] = updDims[ua]
		k++
	}
	for _, a := range scatterAxesToOperandAxes {
		s.scatterStr = append(s.scatterStr, opStr[a])
		s.scatterLimit = append(s.scatterLimit, opDims[a]-winSize[a])
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%v|%v|%+v", opDims, idxDims, *s)
	s.name = fmt.Sprintf("gour_gomlx_scatter_%016x", h.Sum64())
	nUpd := un.shape.Size()
	v := f.add(&node{op: op, shape: out, inputs: ns,
		run: func(b *Backend, sts []store) (store, error) {
			st, err := b.alloc(out)
			if err != nil {
				return nil, err
			}
			if err := b.copyAll(st, sts[0]); err != nil {
				_ = st.release()
				return nil, err
			}
			if nUpd == 0 || st.len() == 0 {
				return st, nil
			}
			kern, err := b.kernel(s.name, s.name, s.source, s.t == expr.Float64)
			if err == nil {
				var args []ur.Arg
				if args, err = ioArgs(st, sts[1:], 0); err == nil {
					err = b.launchGroups(kern, 1, args...)
				}
			}
			if err != nil {
				_ = st.release()
				return nil, err
			}
			return st, nil
		}})
	if op == gc.OpTypeScatterSum && wrapNarrow("x", out.DType) != "x" {
		return f.ewNode(op, out.Clone(), []*node{v}, func(in []string) string { return in[0] })
	}
	return v, nil
}
