package gomlx

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/shapeinference"
	"github.com/pkg/errors"

	"github.com/gour-dev/gour/compute/expr"
)

// gatherSpec is one Gather's configuration, from which its kernel is
// generated with every extent and stride a constant.
type gatherSpec struct {
	outDims, opDims, idxDims     []int
	indexVectorAxis              int
	offsetOutputAxes, collapsed  []int
	startIndexMap, sliceSizes    []int
	elem                         int       // element size in bytes, 4 or 8
	idx                          expr.Type // the indices' storage type
	unsignedIdx                  bool
	name                         string
	idxStrides, opStrides, batch []int
}

// source is the gather kernel: work-item i < n decomposes i over the
// output's dimensions and copies the operand's element at the clamped
// start index (read from the indices at the output's batch coordinates)
// plus the output's offset coordinates.
func (g *gatherSpec) source(backend string) string {
	ul, l := cType(backend, expr.Uint64), cType(backend, expr.Int64)
	et := bitsType(backend, g.elem)
	var sb strings.Builder
	kernelHead(&sb, backend, g.name, false)
	fmt.Fprintf(&sb, "%s dst, %s src, %s idx, %s n) {\n", globalPtr(backend, et, true), globalPtr(backend, et, false),
		globalPtr(backend, cType(backend, g.idx), false), ul)
	sb.WriteString(globalID(backend))
	fmt.Fprintf(&sb, "  if (i >= n) return;\n  %s r = i, q;\n", ul)
	for k := len(g.outDims) - 1; k >= 0; k-- {
		fmt.Fprintf(&sb, "  q = r / %du; %s c%d = r - q * %du; r = q;\n", g.outDims[k], ul, k, g.outDims[k])
	}
	// The indices' offset of the output's batch coordinates.
	fmt.Fprintf(&sb, "  %s ib = 0", l)
	for j, oa := range g.batch {
		fmt.Fprintf(&sb, " + (%s)c%d * %d", l, oa, g.idxStrides[j])
	}
	fmt.Fprintf(&sb, ";\n  %s p = 0, s;\n", l)
	vecStride := 0
	if g.indexVectorAxis < len(g.idxDims) {
		vecStride = rowMajorStrides(g.idxDims)[g.indexVectorAxis]
	}
	offsetOf := map[int]int{} // operand axis → output axis
	j := 0
	for a := range g.opDims {
		if !slices.Contains(g.collapsed, a) {
			offsetOf[a] = g.offsetOutputAxes[j]
			j++
		}
	}
	for a := range g.opDims {
		maxIdx := max(0, g.opDims[a]-g.sliceSizes[a])
		term := "0"
		if m := slices.Index(g.startIndexMap, a); m >= 0 {
			v := fmt.Sprintf("idx[ib + %d]", m*vecStride)
			if g.unsignedIdx {
				fmt.Fprintf(&sb, "  s = (%s)%s > %du ? %d : (%s)%s;\n", ul, v, maxIdx, maxIdx, l, v)
			} else {
				fmt.Fprintf(&sb, "  s = (%s)%s; s = s < 0 ? 0 : (s > %d ? %d : s);\n", l, v, maxIdx, maxIdx)
			}
			term = "s"
		}
		if oa, ok := offsetOf[a]; ok {
			term += fmt.Sprintf(" + (%s)c%d", l, oa)
		}
		fmt.Fprintf(&sb, "  p += (%s) * %d;\n", term, g.opStrides[a])
	}
	sb.WriteString("  dst[i] = src[p];\n}\n")
	return sb.String()
}

// Gather implements compute.Function: XLA's gather, one kernel generated
// for its configuration; start indices are clamped so that the slice fits
// the operand.
func (f *Function) Gather(operand, startIndices gc.Value, indexVectorAxis int,
	offsetOutputAxes, collapsedSliceAxes, startIndexMap, sliceSizes []int, indicesAreSorted bool) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	ns, err := f.nodesOf(operand, startIndices)
	if err != nil {
		return nil, err
	}
	op, ix := ns[0], ns[1]
	out, err := shapeinference.Gather(op.shape, ix.shape, indexVectorAxis, offsetOutputAxes, collapsedSliceAxes,
		startIndexMap, sliceSizes, indicesAreSorted)
	if err != nil {
		return nil, err
	}
	if !ix.shape.DType.IsInt() {
		return nil, errors.Errorf("gour backend: Gather indices of %s, want integers", ix.shape)
	}
	for _, n := range ns {
		if err := f.builder.backend.checkDType(n.shape.DType); err != nil {
			return nil, err
		}
	}
	if op.shape.IsDynamic() || ix.shape.IsDynamic() {
		return f.pending(gc.OpTypeGather, out, op, ix), nil
	}
	ot, _ := storageType(op.shape.DType)
	it, _ := storageType(ix.shape.DType)
	g := &gatherSpec{outDims: slices.Clone(out.Dimensions), opDims: slices.Clone(op.shape.Dimensions),
		idxDims: slices.Clone(ix.shape.Dimensions), indexVectorAxis: indexVectorAxis,
		offsetOutputAxes: slices.Clone(offsetOutputAxes), collapsed: slices.Clone(collapsedSliceAxes),
		startIndexMap: slices.Clone(startIndexMap), sliceSizes: slices.Clone(sliceSizes),
		elem: elemSize(ot), idx: it, unsignedIdx: ix.shape.DType.IsUnsigned(),
		opStrides: rowMajorStrides(op.shape.Dimensions)}
	// The output's batch axes (those not offset axes), in order, are the
	// indices' axes other than the index vector's.
	is := rowMajorStrides(ix.shape.Dimensions)
	ia := 0
	for oa := range out.Rank() {
		if slices.Contains(offsetOutputAxes, oa) {
			continue
		}
		if ia == indexVectorAxis {
			ia++
		}
		g.batch = append(g.batch, oa)
		g.idxStrides = append(g.idxStrides, is[ia])
		ia++
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%v|%v|%v|%d|%v|%v|%v|%v|%d|%v|%v", g.outDims, g.opDims, g.idxDims, indexVectorAxis,
		offsetOutputAxes, collapsedSliceAxes, startIndexMap, sliceSizes, g.elem, g.idx, g.unsignedIdx)
	g.name = fmt.Sprintf("gour_gomlx_gather_%016x", h.Sum64())
	return f.add(&node{op: gc.OpTypeGather, shape: out, inputs: ns,
		run: func(b *Backend, sts []store) (store, error) {
			st, err := b.alloc(out)
			if err != nil {
				return nil, err
			}
			if err := b.runGather(g, st, sts[0], sts[1]); err != nil {
				_ = st.release()
				return nil, err
			}
			return st, nil
		}}), nil
}

func (b *Backend) runGather(g *gatherSpec, out, src, idx store) error {
	return b.launchEach(g.name, g.source, false, out, []store{src, idx})
}
