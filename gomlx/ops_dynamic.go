package gomlx

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/shapeinference"
	"github.com/pkg/errors"

	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/compute/expr"
	"github.com/gour-dev/gour/ur"
)

// dynSliceSpec is a DynamicSlice's or a DynamicUpdateSlice's kernel: the
// window of extents win at start indices read on the device (one scalar
// array per axis), clamped so that the window fits the operand of dims.
type dynSliceSpec struct {
	name   string
	elem   int // element size in bytes
	idx    []expr.Type
	dims   []int
	win    []int
	update bool // DynamicUpdateSlice: dst (the operand's copy) gets src (the update)
	vector bool // one vector of start indices rather than a scalar per axis
}

// source: work-item i < n, an element of the window, copies between the
// window's element (dst for DynamicSlice, src for an update) and the
// operand's (src, or dst for an update).
func (d *dynSliceSpec) source(backend string) string {
	ul, l := cType(backend, expr.Uint64), cType(backend, expr.Int64)
	et := bitsType(backend, d.elem)
	var sb strings.Builder
	kernelHead(&sb, backend, d.name, false)
	fmt.Fprintf(&sb, "%s dst, %s src", globalPtr(backend, et, true), globalPtr(backend, et, false))
	for j, t := range d.idx {
		fmt.Fprintf(&sb, ", %s s%d", globalPtr(backend, cType(backend, t), false), j)
	}
	fmt.Fprintf(&sb, ", %s n) {\n", ul)
	sb.WriteString(globalID(backend))
	fmt.Fprintf(&sb, "  if (i >= n) return;\n  %s r = i, q;\n  %s p = 0;\n", ul, l)
	os := rowMajorStrides(d.dims)
	for a := len(d.dims) - 1; a >= 0; a-- {
		maxStart := d.dims[a] - d.win[a]
		from := fmt.Sprintf("s%d[0]", a)
		if d.vector {
			from = fmt.Sprintf("s0[%d]", a)
		}
		fmt.Fprintf(&sb, "  q = r / %du; { %s c = (%s)(r - q * %du); %s s = (%s)%s; s = s < 0 ? 0 : (s > %d ? %d : s); p += (s + c) * %d; } r = q;\n",
			max(d.win[a], 1), l, l, max(d.win[a], 1), l, l, from, maxStart, maxStart, os[a])
	}
	if d.update {
		sb.WriteString("  dst[p] = src[i];\n}\n")
	} else {
		sb.WriteString("  dst[i] = src[p];\n}\n")
	}
	return sb.String()
}

func (f *Function) dynSlice(op gc.OpType, operand, update *node, startIndices []gc.Value, win []int) (*dynSliceSpec, []*node, error) {
	ins, err := f.nodesOf(startIndices...)
	if err != nil {
		return nil, nil, err
	}
	rank := operand.shape.Rank()
	d := &dynSliceSpec{dims: slices.Clone(operand.shape.Dimensions), win: slices.Clone(win), update: update != nil}
	// A vector of the start indices, or a scalar per axis.
	d.vector = len(ins) == 1 && rank != 0 && ins[0].shape.Rank() == 1 && ins[0].shape.Dimensions[0] == rank
	if !d.vector && len(ins) != rank {
		return nil, nil, errors.Errorf("gour backend: %s of %s with %d start indices", op, operand.shape, len(startIndices))
	}
	t, _ := storageType(operand.shape.DType)
	d.elem = elemSize(t)
	for _, in := range ins {
		if (!d.vector && !in.shape.IsScalar()) || !in.shape.DType.IsInt() {
			return nil, nil, errors.Errorf("gour backend: %s start index of %s, want an integer scalar", op, in.shape)
		}
		if err := f.builder.backend.checkDType(in.shape.DType); err != nil {
			return nil, nil, err
		}
		it, _ := storageType(in.shape.DType)
		d.idx = append(d.idx, it)
	}
	if operand.shape.IsDynamic() || (update != nil && update.shape.IsDynamic()) {
		return nil, ins, nil // no kernel before Execute knows the shapes (dynamic.go)
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%+v", op, *d)
	d.name = fmt.Sprintf("gour_gomlx_dynslice_%016x", h.Sum64())
	return d, ins, nil
}

func (b *Backend) runDynSlice(d *dynSliceSpec, dst, src store, starts []store, n int) error {
	if n == 0 {
		return nil
	}
	k, err := b.kernel(d.name, d.name, d.source, false)
	if err != nil {
		return err
	}
	mode := compute.Out
	if d.update {
		mode = compute.InOut // the rest of the operand's copy stays
	}
	da, err := dst.arg(mode)
	if err != nil {
		return err
	}
	args := []ur.Arg{da}
	for _, st := range append([]store{src}, starts...) {
		a, err := st.arg(compute.In)
		if err != nil {
			return err
		}
		args = append(args, a)
	}
	return b.launch(k, n, append(args, ur.ArgOf(uint64(n)))...)
}

// DynamicSlice implements compute.Function: one kernel, the start indices
// read (and clamped) on the device.
func (f *Function) DynamicSlice(operand gc.Value, startIndices []gc.Value, sliceDims []int) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	on, err := f.nodeOf(operand)
	if err != nil {
		return nil, err
	}
	out, err := shapeinference.DynamicSlice(on.shape, sliceDims)
	if err != nil {
		return nil, err
	}
	d, ins, err := f.dynSlice(gc.OpTypeDynamicSlice, on, nil, startIndices, out.Dimensions)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return f.pending(gc.OpTypeDynamicSlice, out, append([]*node{on}, ins...)...), nil
	}
	return f.add(&node{op: gc.OpTypeDynamicSlice, shape: out, inputs: append([]*node{on}, ins...),
		run: func(b *Backend, sts []store) (store, error) {
			st, err := b.alloc(out)
			if err != nil {
				return nil, err
			}
			if err := b.runDynSlice(d, st, sts[0], sts[1:], out.Size()); err != nil {
				_ = st.release()
				return nil, err
			}
			return st, nil
		}}), nil
}

// DynamicUpdateSlice implements compute.Function: a copy of the operand,
// then one kernel writing the update at the start indices read (and
// clamped) on the device.
func (f *Function) DynamicUpdateSlice(operand, update gc.Value, startIndices []gc.Value) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	ns, err := f.nodesOf(operand, update)
	if err != nil {
		return nil, err
	}
	out, err := shapeinference.DynamicUpdateSlice(ns[0].shape, ns[1].shape)
	if err != nil {
		return nil, err
	}
	d, ins, err := f.dynSlice(gc.OpTypeDynamicUpdateSlice, ns[0], ns[1], startIndices, ns[1].shape.Dimensions)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return f.pending(gc.OpTypeDynamicUpdateSlice, out, append(ns, ins...)...), nil
	}
	n := ns[1].shape.Size()
	return f.add(&node{op: gc.OpTypeDynamicUpdateSlice, shape: out, inputs: append(ns, ins...),
		run: func(b *Backend, sts []store) (store, error) {
			st, err := b.alloc(out)
			if err != nil {
				return nil, err
			}
			err = b.copyAll(st, sts[0])
			if err == nil {
				err = b.runDynSlice(d, st, sts[1], sts[2:], n)
			}
			if err != nil {
				_ = st.release()
				return nil, err
			}
			return st, nil
		}}), nil
}
